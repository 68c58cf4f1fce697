import java.io.*;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.*;

/**
 * Object identity under the recorder: objects created and touched by
 * several threads, a lock that is also a field owner, a Thread subclass,
 * and a Serializable class whose default serialVersionUID and serialized
 * form must not change when the rewriter adds its id field.
 */
public class Ident {
    static class Node implements Serializable {
        int v;
        String name = "n";
    }

    static class Leaf extends Node {
        long w;
    }

    static class Worker extends Thread {
        final Node shared;
        int done;

        Worker(Node shared) {
            this.shared = shared;
        }

        @Override
        public void run() {
            for (int i = 0; i < 500; i++) {
                Node n = (i % 2 == 0) ? new Node() : new Leaf();
                n.v = i;
                if (n instanceof Leaf) {
                    ((Leaf) n).w = i;
                }
                synchronized (shared) {
                    shared.v++;
                }
            }
            done = 1;
        }
    }

    public static void main(String[] args) throws Exception {
        Node shared = new Node();
        List<Worker> ws = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            ws.add(new Worker(shared));
        }
        for (Worker w : ws) {
            w.start();
        }
        for (Worker w : ws) {
            w.join();
        }
        System.out.println("shared " + shared.v);

        System.out.println("suid " + ObjectStreamClass.lookup(Node.class).getSerialVersionUID());
        System.out.println("suid leaf " + ObjectStreamClass.lookup(Leaf.class).getSerialVersionUID());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            Leaf l = new Leaf();
            l.v = 7;
            l.w = 8;
            out.writeObject(l);
        }
        System.out.println("serialized " + Base64.getEncoder().encodeToString(bytes.toByteArray()));
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            Leaf back = (Leaf) in.readObject();
            System.out.println("read back " + back.v + " " + back.w + " " + back.name);
        }

        List<String> plain = new ArrayList<>();
        List<String> synthetic = new ArrayList<>();
        for (Field f : Node.class.getDeclaredFields()) {
            (f.isSynthetic() ? synthetic : plain).add(f.getName() + " " + Modifier.toString(f.getModifiers()));
        }
        System.out.println("fields " + plain);
        System.err.println("synthetic fields " + synthetic);
    }
}
