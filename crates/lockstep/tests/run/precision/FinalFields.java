/**
 * Final fields never race: objects published racily (plain static fields,
 * read by a spinning main thread) still show their constructor's values in
 * their final fields, read from the object's own class (not probed at all),
 * from another class (the recorder drops them) and through a subclass
 * (inherited final field). The racy twins: `Racy.value`, a plain field
 * published the same way, and the element of an array held by a final
 * field, written after the publication (only the field is frozen).
 */
public class FinalFields {
    static final class Fin {
        final long value;
        final int[] slots;
        Fin(long v) { value = v; slots = new int[] { 0 }; }
        long twice() { return value + value; }
    }
    static final class Racy {
        long value;
        Racy(long v) { value = v; }
    }
    static class Base {
        final long base;
        Base(long b) { base = b; }
    }
    static final class Sub extends Base {
        Sub(long b) { super(b); }
    }

    static Fin fin;
    static Sub sub;
    static Racy racy;

    public static void main(String[] args) throws Exception {
        Thread writer = new Thread(() -> {
            Fin f = new Fin(20);
            fin = f;
            sub = new Sub(1);
            f.slots[0] = 5;
            racy = new Racy(1);
        }, "writer");
        writer.start();
        Fin f;
        while ((f = fin) == null) { Thread.onSpinWait(); }
        Sub s;
        while ((s = sub) == null) { Thread.onSpinWait(); }
        Racy r;
        while ((r = racy) == null) { Thread.onSpinWait(); }
        long v = f.value + f.twice() + s.base + r.value;
        int slot = f.slots[0];
        writer.join();
        System.out.println("final " + v + " " + (slot >= 0));
    }
}
