import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * `ExecutorService.invokeAll(Collection<Callable>)`: each task sees what
 * main wrote before the call, and main sees what each task wrote once the
 * call returned (before and without `Future.get`). The racy twin: `late`,
 * written by both tasks before they meet at a barrier (which keeps them in
 * two threads).
 */
public class InvokeAll {
    static final class Cell { long in; long out; }
    static long late;

    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        CyclicBarrier meet = new CyclicBarrier(2);
        List<Cell> cells = new ArrayList<>();
        List<Callable<Long>> tasks = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Cell c = new Cell();
            c.in = 20 + i;
            cells.add(c);
            tasks.add(() -> {
                late = late + 1;
                meet.await();
                c.out = c.in * 2;
                return c.out;
            });
        }
        List<Future<Long>> done = pool.invokeAll(tasks);
        long sum = 0;
        for (Cell c : cells) {
            sum += c.out;
        }
        long got = 0;
        for (Future<Long> f : done) {
            got += f.get();
        }
        pool.shutdown();
        System.out.println("invokeAll " + sum + " " + got);
    }
}
