import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The correct twin of Cache: one atomic call does the check and the act. */
public class CacheSafe {
    private final Map<String, Integer> map = new ConcurrentHashMap<>();

    public int getOrAdd(String key) {
        return map.computeIfAbsent(key, String::length);
    }

    public static void main(String[] args) throws Exception {
        CacheSafe cache = new CacheSafe();
        Workers.twice(() -> {
            for (int k = 0; k < 10; k++) {
                cache.getOrAdd("key" + k);
            }
        });
        System.out.println("done");
    }
}
