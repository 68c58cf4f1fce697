import java.util.concurrent.ConcurrentHashMap;

/**
 * A thread-safe map publishes the value a `computeIfAbsent` function made
 * only after the function returned: the release before the call is too
 * early for it, the function's return releases the map. `Value.made`,
 * written by the value's constructor inside the function and read by the
 * consumer after a `get` that starts after the call, is silent (the
 * consumer waits for a plain flag, itself racy, which orders nothing).
 * The racy twin: `Value.late`, written by `main` after the call.
 */
public class ComputedValues {
    static final class Value {
        long made;
        long late;

        Value(long made) { this.made = made; }
    }

    static final ConcurrentHashMap<String, Value> MAP = new ConcurrentHashMap<>();
    static boolean computed;

    public static void main(String[] args) throws Exception {
        Thread consumer = new Thread(() -> {
            while (!computed) { Thread.onSpinWait(); }
            Value v = MAP.get("k");
            System.out.println("computed " + v.made + " " + (v.late >= 0));
        }, "consumer");
        consumer.start();
        Value v = MAP.computeIfAbsent("k", k -> new Value(42));
        v.late = 1;
        computed = true;
        consumer.join();
    }
}
