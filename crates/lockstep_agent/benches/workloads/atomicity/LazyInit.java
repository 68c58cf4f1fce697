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
