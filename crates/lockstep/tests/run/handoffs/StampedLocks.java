import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.StampedLock;

/**
 * StampedLock in every mode: write and read locks by stamp, `try*Lock`
 * (zero is a failure), `unlock(stamp)`, `tryConvertToWriteLock`, the
 * `asReadLock`/`asWriteLock` views, and an optimistic read that validates
 * (the writer has ended, seen through `isAlive`, which the recorder does not
 * model as an edge). The racy twin: `late`, written by both workers
 * without the lock.
 */
public class StampedLocks {
    static final StampedLock SL = new StampedLock();
    static double x;
    static double y;
    static long counter;
    static long late;

    static void move(double dx, double dy) {
        long s = SL.writeLock();
        try {
            x += dx;
            y += dy;
        } finally {
            SL.unlockWrite(s);
        }
    }

    static void moveTry(double dx) {
        long s;
        while ((s = SL.tryWriteLock()) == 0L) {
            Thread.onSpinWait();
        }
        try {
            x += dx;
        } finally {
            SL.unlock(s);
        }
    }

    static double readTry() {
        long s = SL.tryReadLock();
        if (s == 0L) {
            s = SL.readLock();
        }
        try {
            return x + y;
        } finally {
            SL.unlock(s);
        }
    }

    static void bump() {
        long s = SL.readLock();
        try {
            long ws = SL.tryConvertToWriteLock(s);
            if (ws == 0L) {
                SL.unlockRead(s);
                s = SL.writeLock();
            } else {
                s = ws;
            }
            counter++;
        } finally {
            SL.unlock(s);
        }
    }

    static void viewBump() {
        Lock w = SL.asWriteLock();
        w.lock();
        try {
            counter++;
        } finally {
            w.unlock();
        }
        Lock r = SL.asReadLock();
        r.lock();
        try {
            if (counter < 0) {
                throw new IllegalStateException();
            }
        } finally {
            r.unlock();
        }
    }

    static double distance() {
        long s = SL.tryOptimisticRead();
        double cx = x;
        double cy = y;
        if (!SL.validate(s)) {
            s = SL.readLock();
            try {
                cx = x;
                cy = y;
            } finally {
                SL.unlockRead(s);
            }
        }
        return Math.sqrt(cx * cx + cy * cy);
    }

    public static void main(String[] args) throws Exception {
        Runnable work = () -> {
            for (int i = 0; i < 500; i++) {
                move(1, 1);
                moveTry(1);
                readTry();
                bump();
                viewBump();
            }
            late = late + 1;
        };
        Thread a = new Thread(work, "a");
        Thread b = new Thread(work, "b");
        a.start();
        b.start();
        Thread reader = new Thread(() -> {
            while (a.isAlive() || b.isAlive()) {
                Thread.onSpinWait();
            }
            System.out.println("stamped " + (long) distance());
        }, "reader");
        reader.start();
        a.join();
        b.join();
        reader.join();
        long s = SL.readLock();
        try {
            System.out.println("counter " + counter);
        } finally {
            SL.unlockRead(s);
        }
    }
}
