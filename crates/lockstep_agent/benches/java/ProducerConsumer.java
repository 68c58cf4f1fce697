import java.util.*;
import java.util.concurrent.*;

/** Hand-offs through a blocking queue, a shared map under a lock, volatile progress flags. */
public class ProducerConsumer {
    static volatile int produced;
    static final Map<Integer, Integer> counts = new HashMap<>();

    public static void main(String[] args) throws Exception {
        int items = Integer.parseInt(args.length > 0 ? args[0] : "100000");
        BlockingQueue<Integer> q = new ArrayBlockingQueue<>(1024);
        Thread[] ps = new Thread[2], cs = new Thread[2];
        for (int p = 0; p < 2; p++) {
            ps[p] = new Thread(() -> {
                for (int i = 0; i < items; i++) {
                    try { q.put(i % 97); } catch (InterruptedException e) { return; }
                    produced++;
                }
            });
        }
        for (int k = 0; k < 2; k++) {
            cs[k] = new Thread(() -> {
                for (int i = 0; i < items; i++) {
                    int v;
                    try { v = q.take(); } catch (InterruptedException e) { return; }
                    synchronized (counts) { counts.merge(v, 1, Integer::sum); }
                }
            });
        }
        for (Thread t : ps) t.start();
        for (Thread t : cs) t.start();
        for (Thread t : ps) t.join();
        for (Thread t : cs) t.join();
        System.out.println(counts.size() + " " + produced);
    }
}
