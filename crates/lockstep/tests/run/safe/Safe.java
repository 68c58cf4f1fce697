import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.locks.*;

/** Accesses ordered by locks, volatiles, start/join, latches, executors, or confined to a thread. */
public class Safe {
    int locked;
    int published;
    volatile boolean ready;
    int joined;
    int latched;
    int guardedByLock;
    int guardedByRw;
    int byExecutor;
    int afterTermination;
    int syncThrow;
    final int[] array = new int[8];
    final ReentrantLock lock = new ReentrantLock();
    final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    final List<Integer> list = new ArrayList<>();

    static class Box { int value; }

    synchronized void failIncrement() {
        syncThrow++;
        throw new IllegalStateException("out of a synchronized method");
    }

    public static void main(String[] args) throws Exception {
        Safe s = new Safe();
        // start/join (Eraser's false alarm without the join extension)
        s.joined = 1;
        s.array[0] = 1;
        Thread child = new Thread(() -> { s.joined++; s.array[1] = s.array[0] + 1; });
        child.start();
        child.join();
        s.joined++;
        int a1 = s.array[1];

        // monitors, including exceptional exit of synchronized methods
        Runnable lockedWork = () -> {
            for (int i = 0; i < 200; i++) {
                synchronized (s) { s.locked++; }
                try { s.failIncrement(); } catch (IllegalStateException e) { /* expected */ }
                s.lock.lock();
                try { s.guardedByLock++; } finally { s.lock.unlock(); }
                if (s.lock.tryLock()) {
                    try { s.guardedByLock++; } finally { s.lock.unlock(); }
                }
                s.rw.writeLock().lock();
                try { s.guardedByRw++; } finally { s.rw.writeLock().unlock(); }
                s.rw.readLock().lock();
                try { int r = s.guardedByRw; } finally { s.rw.readLock().unlock(); }
                synchronized (s.list) { s.list.add(i); }
            }
        };
        Thread t1 = new Thread(lockedWork);
        Thread t2 = new Thread(lockedWork);
        t1.start(); t2.start(); t1.join(); t2.join();

        // volatile publication
        Thread writer = new Thread(() -> { s.published = 42; s.ready = true; });
        writer.start();
        while (!s.ready) { Thread.onSpinWait(); }
        int p = s.published;
        writer.join();

        // latch
        CountDownLatch latch = new CountDownLatch(1);
        new Thread(() -> { s.latched = 5; latch.countDown(); }).start();
        latch.await();
        int l = s.latched;

        // executor hand-off and future
        ExecutorService pool = Executors.newFixedThreadPool(2);
        s.byExecutor = 1;
        Future<Integer> f = pool.submit(() -> { s.byExecutor++; return s.byExecutor; });
        int fv = f.get();
        s.byExecutor++;
        pool.execute(() -> s.afterTermination = 3);
        pool.shutdown();
        pool.awaitTermination(30, TimeUnit.SECONDS);
        int at = s.afterTermination;

        // thread confinement
        Runnable confined = () -> {
            Box b = new Box();
            for (int i = 0; i < 100; i++) b.value++;
        };
        Thread c1 = new Thread(confined);
        Thread c2 = new Thread(confined);
        c1.start(); c2.start(); c1.join(); c2.join();

        // wait/notify hand-off
        final Object mon = new Object();
        final int[] slot = new int[1];
        Thread producer = new Thread(() -> {
            synchronized (mon) { slot[0] = 9; mon.notifyAll(); }
        });
        synchronized (mon) {
            producer.start();
            while (slot[0] == 0) { mon.wait(1000); }
        }
        producer.join();

        System.out.println("safe " + s.locked + " " + s.syncThrow + " " + (s.guardedByLock >= 400) + " " + s.guardedByRw
            + " " + p + " " + l + " " + fv + " " + at + " " + a1 + " " + s.joined + " " + s.list.size());
    }
}
