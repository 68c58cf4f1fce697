import java.util.concurrent.ConcurrentHashMap;

/**
 * A thread-safe map calls back into the program during a call: `get`
 * runs `equals` on the key another thread put (jgroups' `UUID.equals` in
 * `ConcurrentHashMap.get`). `Key.id`, written by `main` before the put and
 * read by the consumer's `equals` inside a `get` that starts after the put
 * (the consumer waits for a plain flag, itself racy, which orders nothing),
 * is silent. The racy twin: `Value.late`, written by `main` after the put.
 */
public class KeyCallbacks {
    static final class Key {
        long id;
        Key(long id) { this.id = id; }
        @Override public int hashCode() { return 7; }
        @Override public boolean equals(Object o) {
            return o instanceof Key && ((Key) o).id == id;
        }
    }
    static final class Value {
        long late;
    }

    static final ConcurrentHashMap<Key, Value> MAP = new ConcurrentHashMap<>();
    static boolean done;

    public static void main(String[] args) throws Exception {
        Thread consumer = new Thread(() -> {
            Key wanted = new Key(42);
            while (!done) { Thread.onSpinWait(); }
            Value v = MAP.get(wanted);
            System.out.println("callbacks " + (v.late >= 0));
        }, "consumer");
        consumer.start();
        Value v = new Value();
        MAP.put(new Key(42), v);
        v.late = 1;
        done = true;
        consumer.join();
    }
}
