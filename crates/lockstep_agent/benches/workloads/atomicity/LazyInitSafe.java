/** Correct twin of LazyInit: the whole lookup holds the lock. Usage: LazyInitSafe N */
public class LazyInitSafe {
    private final Object lock = new Object();
    private int[] table;

    public int[] table() {
        synchronized (lock) {
            if (table == null) {
                table = new int[] {1, 2, 3};
            }
            return table;
        }
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        LazyInitSafe holder = new LazyInitSafe();
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
