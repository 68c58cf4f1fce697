import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Objects published through atomics are ordered: a Box through
 * compareAndSet, a Plain through set, a counter value through
 * AtomicLong.incrementAndGet/get. The racy twin: `late` is written by both
 * threads after the hand-off, unordered and without a lock.
 */
public class AtomicPublish {
    static final class Box { final long v; Box(long v) { this.v = v; } }
    static final class Plain { long v; }
    static final AtomicReference<Box> REF = new AtomicReference<>();
    static final AtomicReference<Plain> PREF = new AtomicReference<>();
    static final AtomicLong READY = new AtomicLong();
    static long payload;
    static long late;

    public static void main(String[] args) throws Exception {
        Thread reader = new Thread(() -> {
            Box b;
            while ((b = REF.get()) == null) { Thread.onSpinWait(); }
            Plain p;
            while ((p = PREF.get()) == null) { Thread.onSpinWait(); }
            while (READY.get() == 0) { Thread.onSpinWait(); }
            p.v = p.v + b.v + payload;
            late = late + 1;
            System.out.println("atomic " + p.v);
        }, "reader");
        reader.start();
        REF.compareAndSet(null, new Box(41));
        Plain p = new Plain();
        p.v = 1;
        PREF.set(p);
        payload = 100;
        READY.incrementAndGet();
        late = late + 1;
        reader.join();
    }
}
