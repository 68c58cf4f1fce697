import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Thread-safe JDK collections used from several threads, declared by their
 * own type and by an interface, are not raced through their methods, and
 * publish what is put into them. The racy twin: a HashMap (behind `Map`)
 * written by two threads.
 */
public class SafeCollections {
    static final class Plain { long v; }
    static final ConcurrentHashMap<String, Plain> CHM = new ConcurrentHashMap<>();
    static final Map<String, Plain> VIA_MAP = new ConcurrentHashMap<>();
    static final List<Integer> SYNC_LIST = java.util.Collections.synchronizedList(new ArrayList<>());
    static final CopyOnWriteArrayList<Integer> COW = new CopyOnWriteArrayList<>();
    static final Map<Integer, Integer> RACY = new HashMap<>();

    public static void main(String[] args) throws Exception {
        Thread reader = new Thread(() -> {
            Plain a;
            while ((a = CHM.get("k")) == null) { Thread.onSpinWait(); }
            Plain b;
            while ((b = VIA_MAP.get("k")) == null) { Thread.onSpinWait(); }
            a.v = a.v + 1;
            b.v = b.v + 1;
            System.out.println("collections " + a.v + " " + b.v);
        }, "reader");
        Thread[] adders = new Thread[2];
        for (int i = 0; i < adders.length; i++) {
            final int base = i * 1000;
            adders[i] = new Thread(() -> {
                for (int k = 0; k < 50; k++) {
                    SYNC_LIST.add(base + k);
                    COW.add(base + k);
                    VIA_MAP.put("x" + (base + k), new Plain());
                    RACY.put(base + k, k);
                }
            }, "adder-" + i);
        }
        reader.start();
        for (Thread t : adders) { t.start(); }
        Plain a = new Plain();
        a.v = 1;
        CHM.put("k", a);
        Plain b = new Plain();
        b.v = 2;
        VIA_MAP.put("k", b);
        reader.join();
        for (Thread t : adders) { t.join(); }
        System.out.println("sizes " + SYNC_LIST.size() + " " + COW.size());
    }
}
