import java.util.concurrent.atomic.AtomicReference;

/**
 * A writer publishes through an AtomicReference, two readers read, main
 * joins all three and reads again: no race anywhere.
 */
public class ReadRead {
    static final class Box { long v; Box(long v) { this.v = v; } }
    static final AtomicReference<Box> REF = new AtomicReference<>();

    static long spinRead() {
        Box b;
        while ((b = REF.get()) == null) { Thread.onSpinWait(); }
        return b.v;
    }

    public static void main(String[] args) throws Exception {
        Thread writer = new Thread(() -> REF.set(new Box(41)), "writer");
        Thread r1 = new Thread(ReadRead::spinRead, "reader-1");
        Thread r2 = new Thread(ReadRead::spinRead, "reader-2");
        r1.start(); r2.start(); writer.start();
        writer.join(); r1.join(); r2.join();
        System.out.println("readread " + REF.get().v);
    }
}
