import java.util.concurrent.ConcurrentHashMap;

/**
 * A put that completes while a `get` on the same thread-safe map is
 * already running (jgroups' `UUID.equals` inside `ConcurrentHashMap.get`).
 * The consumer's `get` first runs `equals` on the key `main` put before
 * starting it, and waits there (plain flags: no ordering) until `main` has
 * put a second key in the same bin; the `get` then reaches that key
 * through the map's volatile read of the node and runs `equals` on it.
 * `Key.id`, written by `main` before the put, is silent: the callback
 * acquires the map where it runs. The racy twin: `Key.late`, written by
 * `main` after the put and read by the same `equals`.
 */
public class PutDuringGet {
    static final class Key {
        long id;
        long late;
        /** The consumer's key: its `equals` waits on the first stored key. */
        boolean probe;

        Key(long id) { this.id = id; }

        @Override public int hashCode() { return 7; }

        @Override public boolean equals(Object o) {
            if (!(o instanceof Key)) {
                return false;
            }
            Key stored = (Key) o;
            if (probe && stored.id == 1) {
                inGet = true;
                while (!putDone) { Thread.onSpinWait(); }
            }
            return stored.id == id && stored.late >= 0;
        }
    }

    static final ConcurrentHashMap<Key, String> MAP = new ConcurrentHashMap<>();
    static boolean inGet;
    static boolean putDone;

    public static void main(String[] args) throws Exception {
        MAP.put(new Key(1), "first");
        Thread consumer = new Thread(() -> {
            Key wanted = new Key(42);
            wanted.probe = true;
            System.out.println("reentry " + MAP.get(wanted));
        }, "consumer");
        consumer.start();
        while (!inGet) { Thread.onSpinWait(); }
        Key second = new Key(42);
        MAP.put(second, "second");
        second.late = 1;
        putDone = true;
        consumer.join();
    }
}
