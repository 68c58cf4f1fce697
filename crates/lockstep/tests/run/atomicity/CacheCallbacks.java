import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * CacheSafe with application code inside the one atomic call: the map
 * calls the key's `hashCode`/`equals` and the compute function, each of
 * which acquires (the function also releases) the map where it runs. Those
 * are the callbacks' edges, not more calls: still one atomic access.
 */
public class CacheCallbacks {
    static final class Key {
        final String name;
        Key(String name) { this.name = name; }
        @Override public int hashCode() { return name.hashCode(); }
        @Override public boolean equals(Object o) {
            return o instanceof Key && ((Key) o).name.equals(name);
        }
    }

    private final Map<Key, Integer> map = new ConcurrentHashMap<>();

    public int getOrAdd(String key) {
        return map.computeIfAbsent(new Key(key), k -> k.name.length());
    }

    public static void main(String[] args) throws Exception {
        CacheCallbacks cache = new CacheCallbacks();
        Workers.twice(() -> {
            for (int k = 0; k < 10; k++) {
                cache.getOrAdd("key" + k);
            }
        });
        System.out.println("done");
    }
}
