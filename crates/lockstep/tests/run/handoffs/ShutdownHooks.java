import java.util.concurrent.CountDownLatch;

/**
 * A shutdown hook reads what a worker (ended, never joined) and main
 * (after registering the hook) wrote: the hook thread starts after both
 * ended, or after `System.exit` when the argument is "exit". The racy
 * twin: `late`, written by a daemon thread that is still running when the
 * hook reads it.
 */
public class ShutdownHooks {
    static Object session;
    static int config;
    static long late;

    public static void main(String[] args) throws Exception {
        Thread worker = new Thread(() -> { session = new Object(); }, "worker");
        worker.start();
        CountDownLatch ticking = new CountDownLatch(1);
        Thread daemon = new Thread(() -> {
            while (true) {
                late = late + 1;
                ticking.countDown();
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "daemon");
        daemon.setDaemon(true);
        daemon.start();
        ticking.await();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                Thread.sleep(30);
            } catch (InterruptedException e) {
                return;
            }
            boolean had = session != null;
            session = null;
            System.out.println("hook " + had + " " + config + " " + (late > 0));
        }, "hook"));
        config = 7;
        while (worker.isAlive()) {
            Thread.onSpinWait();
        }
        System.out.println("main done");
        if (args.length > 0 && args[0].equals("exit")) {
            System.exit(0);
        }
    }
}
