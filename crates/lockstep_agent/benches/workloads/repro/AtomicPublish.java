import java.util.concurrent.atomic.AtomicReference;

public class AtomicPublish {
    static final class Box { final long v; Box(long v) { this.v = v; } }
    static final class Plain { long v; }
    static final AtomicReference<Box> REF = new AtomicReference<>();
    static final AtomicReference<Plain> PREF = new AtomicReference<>();

    public static void main(String[] args) throws Exception {
        Thread reader = new Thread(() -> {
            Box b;
            while ((b = REF.get()) == null) { Thread.onSpinWait(); }
            Plain p;
            while ((p = PREF.get()) == null) { Thread.onSpinWait(); }
            System.out.println(b.v + p.v);
        });
        reader.start();
        REF.compareAndSet(null, new Box(41));
        Plain p = new Plain();
        p.v = 1;
        PREF.set(p);
        reader.join();
    }
}
