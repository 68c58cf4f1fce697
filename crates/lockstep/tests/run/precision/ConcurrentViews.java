import java.util.Enumeration;
import java.util.Hashtable;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Objects put into thread-safe maps by `main` are reached by a consumer
 * thread (started before the puts) only through views and iterators: a
 * `ConcurrentSkipListMap`'s `headMap(..).entrySet().iterator()` (a view of
 * a view, as jgroups' timer does), a `ConcurrentHashMap`'s `values()` and
 * `keySet()` in for-each loops, and a `Hashtable`'s `elements()`. Their
 * constructor-written plain fields are silent. The racy twin: `Item.late`,
 * written by `main` after the put and read by the consumer, unordered.
 */
public class ConcurrentViews {
    static final int N = 50;

    static final class Item {
        long v;
        long late;
        Item(long v) { this.v = v; }
    }

    static final ConcurrentSkipListMap<Long, Item> SKIP = new ConcurrentSkipListMap<>();
    static final ConcurrentHashMap<Long, Item> HASH = new ConcurrentHashMap<>();
    static final Hashtable<Long, Item> TABLE = new Hashtable<>();

    public static void main(String[] args) throws Exception {
        Thread consumer = new Thread(ConcurrentViews::consume, "consumer");
        consumer.start();
        for (long i = 0; i < N; i++) {
            SKIP.put(i, new Item(i));
            HASH.put(i, new Item(i));
            TABLE.put(i, new Item(i));
        }
        for (Item it : SKIP.values()) {
            it.late = 1;
        }
        consumer.join();
    }

    static void consume() {
        long sum = 0;
        int seen = 0;
        while (seen < N) {
            seen = 0;
            sum = 0;
            Iterator<Map.Entry<Long, Item>> it =
                SKIP.headMap(Long.MAX_VALUE, true).entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<Long, Item> e = it.next();
                sum += e.getValue().v;
                seen++;
            }
        }
        long hashSum = 0;
        seen = 0;
        while (seen < N) {
            seen = 0;
            hashSum = 0;
            for (Item item : HASH.values()) {
                hashSum += item.v;
                seen++;
            }
        }
        long keys = 0;
        for (Long k : HASH.keySet()) {
            keys += HASH.get(k).v;
        }
        long tableSum = 0;
        seen = 0;
        while (seen < N) {
            seen = 0;
            tableSum = 0;
            for (Enumeration<Item> e = TABLE.elements(); e.hasMoreElements();) {
                tableSum += e.nextElement().v;
                seen++;
            }
        }
        long late = 0;
        for (Item item : SKIP.values()) {
            late += item.late;
        }
        System.out.println("views " + sum + " " + hashSum + " " + keys + " " + tableSum
            + " " + (late >= 0));
    }
}
