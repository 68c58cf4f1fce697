import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.RecursiveTask;

/**
 * Fork/join: data written before `ForkJoinPool.invoke`/`submit` is read by
 * the tasks, results written by a task are read after its `join`, `get`,
 * `invoke` or `invokeAll` (two tasks, an array, a collection). The racy
 * twin: `late` is written by main after `submit` and by the task, before
 * the join.
 */
public class ForkJoins {
    static int[] data;
    static int[] filled;
    static long late;

    static final class Sum extends RecursiveTask<Long> {
        final int lo;
        final int hi;
        long partial;

        Sum(int lo, int hi) {
            this.lo = lo;
            this.hi = hi;
        }

        @Override
        protected Long compute() {
            if (hi - lo <= 500) {
                long s = 0;
                for (int i = lo; i < hi; i++) {
                    s += data[i];
                }
                partial = s;
                return s;
            }
            int mid = (lo + hi) >>> 1;
            Sum left = new Sum(lo, mid);
            Sum right = new Sum(mid, hi);
            left.fork();
            long r = right.compute();
            long l = left.join();
            partial = left.partial + right.partial;
            return l + r;
        }
    }

    static final class Fill extends RecursiveAction {
        final int lo;
        final int hi;

        Fill(int lo, int hi) {
            this.lo = lo;
            this.hi = hi;
        }

        @Override
        protected void compute() {
            int n = hi - lo;
            if (n <= 500) {
                for (int i = lo; i < hi; i++) {
                    filled[i] = i;
                }
            } else if (n % 3 == 0) {
                int a = lo + n / 3;
                int b = lo + 2 * n / 3;
                invokeAll(new Fill(lo, a), new Fill(a, b), new Fill(b, hi));
            } else {
                int mid = (lo + hi) >>> 1;
                invokeAll(new Fill(lo, mid), new Fill(mid, hi));
            }
        }
    }

    static final class Box { long v; }

    public static void main(String[] args) throws Exception {
        data = new int[6000];
        for (int i = 0; i < data.length; i++) {
            data[i] = 1;
        }
        ForkJoinPool pool = new ForkJoinPool(4);
        Sum sum = new Sum(0, data.length);
        long total = pool.invoke(sum);

        filled = new int[6000];
        pool.invoke(new Fill(0, filled.length));

        Box box = new Box();
        box.v = 1;
        ForkJoinTask<Long> t = pool.submit(new RecursiveTask<Long>() {
            @Override
            protected Long compute() {
                box.v++;
                return box.v;
            }
        });
        long got = t.get();

        List<Sum> parts = List.of(new Sum(0, 2000), new Sum(2000, 4000), new Sum(4000, 6000));
        ForkJoinTask.invokeAll(parts);
        long parted = 0;
        for (Sum s : parts) {
            parted += s.partial;
        }

        ForkJoinTask<Void> racy = pool.submit(new RecursiveAction() {
            @Override
            protected void compute() {
                late = late + 1;
            }
        });
        late = late + 1;
        racy.join();
        pool.shutdown();
        System.out.println("forkjoin " + total + " " + sum.partial + " " + filled[5999] + " "
                + got + " " + box.v + " " + parted);
    }
}
