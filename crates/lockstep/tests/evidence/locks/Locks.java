import java.util.concurrent.CountDownLatch;

// Two threads take `A` and `B` in opposite orders; a latch keeps the run
// from hanging, so the run sees the lock-order cycle without deadlocking
// (observed). `C` and `D` are taken in opposite orders only by code the
// run never calls (not reached).
public class Locks {
    static final Object A = new Object();
    static final Object B = new Object();
    static final Object C = new Object();
    static final Object D = new Object();
    static final CountDownLatch firstDone = new CountDownLatch(1);
    static int n;

    public static void main(String[] args) throws Exception {
        Thread one = new Thread(Locks::ab);
        Thread two = new Thread(Locks::ba);
        one.start();
        two.start();
        one.join();
        two.join();
        if (args.length > 0) {
            new Thread(Locks::cd).start();
            new Thread(Locks::dc).start();
        }
        System.out.println("locks done " + n);
    }

    static void ab() {
        synchronized (A) {
            synchronized (B) {
                n++;
            }
        }
        firstDone.countDown();
    }

    static void ba() {
        try {
            firstDone.await();
        } catch (InterruptedException e) {
            return;
        }
        synchronized (B) {
            synchronized (A) {
                n++;
            }
        }
    }

    static void cd() {
        synchronized (C) {
            synchronized (D) {
                n++;
            }
        }
    }

    static void dc() {
        synchronized (D) {
            synchronized (C) {
                n++;
            }
        }
    }
}
