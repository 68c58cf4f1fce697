import java.util.concurrent.atomic.AtomicReference;

/**
 * Copy-on-write, as h2's B-tree pages: the writer clones the published
 * node, changes the private copy and publishes it through an atomic.
 * `Object.clone` copies every field, the recorder's object-id field too:
 * the copy must get an id of its own, or its private writes look like
 * writes of the published original (`Node.v`, `Node.count` are silent).
 * The racy twin: `Node.late`, written after the publication.
 */
public class CloneCopies {
    static final int N = 200;

    static class Node implements Cloneable {
        long v;
        long count;
        long late;

        Node copy() {
            try {
                Node c = (Node) super.clone();
                c.v = v + 1;
                c.count = count + 1;
                return c;
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }
    }

    static final AtomicReference<Node> ROOT = new AtomicReference<>();

    public static void main(String[] args) throws Exception {
        ROOT.set(new Node());
        Thread reader = new Thread(() -> {
            long sum = 0;
            Node n;
            while ((n = ROOT.get()).v < N) {
                sum += n.count;
                Thread.onSpinWait();
            }
            long late = n.late;
            System.out.println("clone " + n.v + " " + (sum >= 0) + " " + (late >= 0));
        }, "reader");
        reader.start();
        for (int i = 0; i < N; i++) {
            Node c = ROOT.get().copy();
            ROOT.set(c);
            c.late = 1;
        }
        reader.join();
    }
}
