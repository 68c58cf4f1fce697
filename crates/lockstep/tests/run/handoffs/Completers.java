import java.util.concurrent.CountedCompleter;
import java.util.concurrent.ForkJoinPool;

/**
 * A CountedCompleter tree: each leaf writes its slot and calls
 * `tryComplete()`; the root completes when every leaf has, so what the
 * leaves wrote is read after `invoke` returns although the root's own
 * `compute` ended long before. The racy twin: `late`, written by main
 * after handing the root over and by the first leaf, before the join.
 */
public class Completers {
    static long[] slots;
    static long late;

    static final class Leafy extends CountedCompleter<Void> {
        final int lo;
        final int hi;

        Leafy(CountedCompleter<?> parent, int lo, int hi) {
            super(parent);
            this.lo = lo;
            this.hi = hi;
        }

        @Override
        public void compute() {
            int l = lo;
            int h = hi;
            while (h - l > 1) {
                int mid = (l + h) >>> 1;
                addToPendingCount(1);
                new Leafy(this, mid, h).fork();
                h = mid;
            }
            slots[l] = l + 1;
            if (l == 0) {
                late = late + 1;
            }
            tryComplete();
        }
    }

    public static void main(String[] args) {
        slots = new long[64];
        ForkJoinPool pool = new ForkJoinPool(4);
        Leafy root = new Leafy(null, 0, slots.length);
        pool.execute(root);
        late = late + 1;
        root.join();
        long sum = 0;
        for (long s : slots) {
            sum += s;
        }
        pool.shutdown();
        System.out.println("completers " + sum);
    }
}
