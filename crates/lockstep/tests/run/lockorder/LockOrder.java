import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Lock orders for the run-time `deadlock` rule; the first argument picks
 * the shape. Two threads `forward` and `backward` run at the same time, but
 * a latch makes `backward` wait until `forward` is done, so no run hangs
 * except the `hang-*` shapes, which deadlock for sure.
 */
public class LockOrder {
    static final Object first = new Object();
    static final Object second = new Object();
    static final Object gate = new Object();
    static final ReentrantLock left = new ReentrantLock();
    static final ReentrantLock right = new ReentrantLock();
    static int hits;

    public static void main(String[] args) throws Exception {
        String shape = args[0];
        switch (shape) {
            case "potential": concurrently(LockOrder::forward, LockOrder::backward); break;
            case "gated":
                concurrently(() -> { synchronized (gate) { forward(); } },
                             () -> { synchronized (gate) { backward(); } });
                break;
            case "joined": {
                Thread a = new Thread(LockOrder::forward, "forward");
                a.start();
                a.join();
                Thread b = new Thread(LockOrder::backward, "backward");
                b.start();
                b.join();
                break;
            }
            case "single": {
                Thread t = new Thread(() -> { forward(); backward(); }, "both");
                t.start();
                t.join();
                break;
            }
            case "juc": concurrently(LockOrder::forwardJuc, LockOrder::backwardJuc); break;
            case "hang-juc": hangJuc(); break;
            default: throw new IllegalArgumentException(shape);
        }
        System.out.println(shape + " done");
    }

    /** Runs `a` in `forward` and then `b` in `backward`, both started first. */
    static void concurrently(Runnable a, Runnable b) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        Thread ta = new Thread(() -> { a.run(); done.countDown(); }, "forward");
        Thread tb = new Thread(() -> { await(done); b.run(); }, "backward");
        ta.start();
        tb.start();
        ta.join();
        tb.join();
    }

    static void forward() {
        synchronized (first) {
            synchronized (second) { hits++; }
        }
    }

    static void backward() {
        synchronized (second) {
            synchronized (first) { hits++; }
        }
    }

    static void forwardJuc() {
        left.lock();
        try {
            right.lock();
            try { hits++; } finally { right.unlock(); }
        } finally {
            left.unlock();
        }
    }

    static void backwardJuc() {
        right.lock();
        try {
            left.lock();
            try { hits++; } finally { left.unlock(); }
        } finally {
            right.unlock();
        }
    }

    /** Each thread holds its first lock before either takes its second. */
    static void hangJuc() throws InterruptedException {
        CountDownLatch holding = new CountDownLatch(2);
        Thread a = new Thread(() -> crossed(left, right, holding), "takes-left");
        Thread b = new Thread(() -> crossed(right, left, holding), "takes-right");
        a.start();
        b.start();
        a.join();
        b.join();
    }

    static void crossed(ReentrantLock mine, ReentrantLock theirs, CountDownLatch holding) {
        mine.lock();
        try {
            holding.countDown();
            await(holding);
            theirs.lock();
            try { hits++; } finally { theirs.unlock(); }
        } finally {
            mine.unlock();
        }
    }

    static void await(CountDownLatch latch) {
        try { latch.await(); } catch (InterruptedException e) { throw new RuntimeException(e); }
    }
}
