import java.util.Timer;
import java.util.TimerTask;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Tasks handed to a java.util.Timer see what was written before
 * `schedule`: a direct TimerTask subclass, a periodic task whose class
 * extends an application subclass of TimerTask, and (for comparison) a
 * lambda on a ScheduledExecutorService. The racy twin: `late` is written
 * by main after `schedule` and by the task, ordered by nothing.
 */
public class TimerTasks {
    static long payload;
    static long late;

    static final class Job extends TimerTask {
        final CountDownLatch done = new CountDownLatch(1);
        int[] data;
        long seen;

        @Override
        public void run() {
            seen = data[0] + payload;
            late = late + 1;
            done.countDown();
        }
    }

    abstract static class Base extends TimerTask {
        final CountDownLatch done = new CountDownLatch(1);
        long step;
    }

    static final class Periodic extends Base {
        int runs;
        long sum;

        @Override
        public void run() {
            runs++;
            sum += step;
            if (runs == 3) {
                cancel();
                done.countDown();
            }
        }
    }

    static final class Plain { long v; }

    public static void main(String[] args) throws Exception {
        Timer timer = new Timer("timer", true);
        Job job = new Job();
        job.data = new int[] {41};
        payload = 1;
        timer.schedule(job, 5);
        late = late + 1;
        job.done.await();

        Periodic p = new Periodic();
        p.step = 2;
        timer.scheduleAtFixedRate(p, 0, 1);
        p.done.await();

        ScheduledExecutorService ses = Executors.newSingleThreadScheduledExecutor();
        Plain x = new Plain();
        x.v = 5;
        ScheduledFuture<?> f = ses.schedule(() -> { x.v++; }, 1, TimeUnit.MILLISECONDS);
        f.get();
        ses.shutdown();
        timer.cancel();
        System.out.println("timer " + job.seen + " " + p.runs + " " + p.sum + " " + x.v);
    }
}
