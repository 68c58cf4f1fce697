/** Benign violation: double-checked lazy initialization (the first read is outside the lock; the value never changes once set). Usage: LazyInit N */
public class LazyInit {
    private final Object lock = new Object();
    private int[] table;

    public int[] table() {
        int[] t = table;
        if (t == null) {
            synchronized (lock) {
                t = table;
                if (t == null) {
                    t = new int[] {1, 2, 3};
                    table = t;
                }
            }
        }
        return t;
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        LazyInit holder = new LazyInit();
        Workers.twice(() -> {
            long sum = 0;
            for (int k = 0; k < n; k++) {
                sum += holder.table().length;
            }
            if (sum != 3L * n) {
                throw new AssertionError("sum changed");
            }
        });
        System.out.println("sum kept");
    }
}
