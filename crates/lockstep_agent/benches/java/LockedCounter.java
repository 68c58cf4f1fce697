/** Worst case for recording: every operation is a lock acquire/release and a field access. */
public class LockedCounter {
    long count;

    public static void main(String[] args) throws Exception {
        int threads = 4, per = Integer.parseInt(args.length > 0 ? args[0] : "500000");
        LockedCounter c = new LockedCounter();
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            ts[t] = new Thread(() -> { for (int i = 0; i < per; i++) { synchronized (c) { c.count++; } } });
            ts[t].start();
        }
        for (Thread t : ts) t.join();
        System.out.println(c.count);
    }
}
