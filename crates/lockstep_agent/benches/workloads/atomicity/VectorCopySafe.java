import java.util.Vector;

/** Correct twin of VectorCopy: the copy and the churn hold the Vector's own monitor (as Vector's methods do). Usage: VectorCopySafe N */
public class VectorCopySafe {
    private final Vector<Integer> items = new Vector<>();

    public Object[] snapshot() {
        synchronized (items) {
            return copy();
        }
    }

    private Object[] copy() {
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
        synchronized (items) {
            items.add(k);
            if (items.size() > 8) {
                items.remove(0);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        VectorCopySafe v = new VectorCopySafe();
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
