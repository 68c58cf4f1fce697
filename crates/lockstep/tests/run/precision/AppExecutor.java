import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Tasks handed to an application subclass of `ThreadPoolExecutor` (as
 * jgroups' `ThreadManagerThreadPoolExecutor`) are ordered after the
 * submit: `Item.v`, written by `main` after the pool's worker started, is
 * silent. The racy twin: `Item.late`, written by `main` after the submit.
 * An application class with an `execute(Runnable)` that is no executor
 * gets its own `Runnable` back, unwrapped.
 */
public class AppExecutor {
    static final class Pool extends ThreadPoolExecutor {
        Pool() { super(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>()); }
    }
    static final class NotAnExecutor {
        Runnable kept;
        void execute(Runnable r) { kept = r; }
    }
    static final class Item {
        long v;
        long late;
    }
    static long result;

    public static void main(String[] args) throws Exception {
        Pool pool = new Pool();
        CountDownLatch started = new CountDownLatch(1);
        pool.execute(started::countDown);
        started.await();
        Item item = new Item();
        item.v = 41;
        Future<?> f = pool.submit(() -> { result = item.v + item.late; });
        item.late = 1;
        f.get();
        long seen = result;
        NotAnExecutor n = new NotAnExecutor();
        Runnable r = () -> { };
        n.execute(r);
        pool.shutdown();
        pool.awaitTermination(10, TimeUnit.SECONDS);
        System.out.println("app executor " + (n.kept == r) + " " + (seen >= 41));
    }
}
