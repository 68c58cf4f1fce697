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
        long[] sums = new long[2];
        Thread[] ts = new Thread[2];
        for (int i = 0; i < ts.length; i++) {
            int me = i;
            ts[i] = new Thread(() -> {
                for (int k = 0; k < n; k++) {
                    sums[me] += holder.table().length;
                }
            });
            ts[i].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        System.out.println(sums[0] + sums[1] == 6L * n ? "sum kept" : "sum changed");
    }
}
