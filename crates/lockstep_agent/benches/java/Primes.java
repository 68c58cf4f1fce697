/** Mostly thread-local computation: few shared events per unit of work. */
public class Primes {
    static int total;

    static boolean prime(int n) {
        if (n < 2) return false;
        for (int d = 2; (long) d * d <= n; d++) if (n % d == 0) return false;
        return true;
    }

    public static void main(String[] args) throws Exception {
        int limit = Integer.parseInt(args.length > 0 ? args[0] : "3000000");
        int threads = 4;
        Thread[] ts = new Thread[threads];
        int[] found = new int[threads];
        for (int t = 0; t < threads; t++) {
            final int id = t;
            ts[t] = new Thread(() -> {
                int local = 0;
                for (int n = id; n < limit; n += threads) if (prime(n)) local++;
                found[id] = local;
            });
            ts[t].start();
        }
        for (Thread t : ts) t.join();
        for (int f : found) total += f;
        System.out.println(total);
    }
}
