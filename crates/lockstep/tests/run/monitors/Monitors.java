// `lockstep run --static`: monitors the race and deadlock checkers do not
// need. `Counter.inc` locks the counter around its one access, proven
// race-free (lock-protected; main reads `n` after joining), and nothing it
// reads steers anything: its monitor events are left out. `Flag` hands
// `data` from the producer to the consumer: `get` returns what it read, so
// the consumer can tell which section came first and the lock orders the
// hand-off; the flag's monitor stays recorded (in `set` too: a lock is
// recorded at every site or at none). `hits` races (no lock at all).
public class Monitors {
    static final class Counter {
        long n;

        synchronized void inc() {
            n++;
        }
    }

    static final class Flag {
        private boolean ready;

        synchronized void set() {
            ready = true;
        }

        synchronized boolean get() {
            return ready;
        }
    }

    int hits;
    int data;

    public static void main(String[] args) throws Exception {
        Monitors m = new Monitors();
        Counter c = new Counter();
        Flag flag = new Flag();
        Runnable count = () -> {
            for (int i = 0; i < 1000; i++) {
                c.inc();
                m.hits++;
            }
        };
        Thread a = new Thread(count, "counter-1");
        Thread b = new Thread(count, "counter-2");
        Thread producer = new Thread(() -> {
            m.data = 42;
            flag.set();
        }, "producer");
        Thread consumer = new Thread(() -> {
            while (!flag.get()) {
                Thread.onSpinWait();
            }
            System.out.println("data " + m.data);
        }, "consumer");
        a.start();
        b.start();
        consumer.start();
        producer.start();
        a.join();
        b.join();
        producer.join();
        consumer.join();
        System.out.println("count " + c.n);
    }
}
