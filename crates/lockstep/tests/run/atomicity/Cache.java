import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Check-then-act on a thread-safe map: each call is atomic, the pair is not (two threads may both miss and both put). */
public class Cache {
    private final Map<String, Integer> map = new ConcurrentHashMap<>();

    public int getOrAdd(String key) {
        Integer v = map.get(key);
        if (v == null) {
            v = key.length();
            map.put(key, v);
        }
        return v;
    }

    public static void main(String[] args) throws Exception {
        Cache cache = new Cache();
        Thread[] ts = new Thread[2];
        for (int i = 0; i < ts.length; i++) {
            int first = i * 5;
            // Overlapping keys: each thread adds some, so each does the check and the act.
            ts[i] = new Thread(() -> {
                for (int k = first; k < first + 10; k++) {
                    cache.getOrAdd("key" + k);
                }
            });
            ts[i].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        System.out.println("done");
    }
}
