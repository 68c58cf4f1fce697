import java.util.Vector;

/** Bug (slide 2 of paper 003, the Vector(Collection) copy): size() then get(i) on a Vector another thread shrinks; each call is atomic, the copy is not. Usage: VectorCopy N */
public class VectorCopy {
    private final Vector<Integer> items = new Vector<>();

    public Object[] snapshot() {
        int n = items.size();
        Object[] copy = new Object[n];
        for (int i = 0; i < n; i++) {
            try {
                copy[i] = items.get(i);
            } catch (ArrayIndexOutOfBoundsException e) {
                return copy;
            }
        }
        return copy;
    }

    public void churn(int k) {
        items.add(k);
        if (items.size() > 8) {
            items.remove(0);
        }
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        VectorCopy v = new VectorCopy();
        Thread writer = new Thread(() -> {
            for (int k = 0; k < n; k++) {
                v.churn(k);
            }
        });
        Thread reader = new Thread(() -> {
            for (int k = 0; k < n; k++) {
                v.snapshot();
            }
        });
        writer.start();
        reader.start();
        writer.join();
        reader.join();
        System.out.println("done");
    }
}
