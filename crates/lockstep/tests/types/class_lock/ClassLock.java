// Type discovery of a class-literal guard: `Counter.hits` and
// `Counter.last` are only ever accessed inside `synchronized (Counter.class)`
// blocks (no static synchronized method names the class object), by two
// workers at once: guarded_by Counter.class.
class Counter {
    static int hits;
    int last;

    static void hit(Counter c, int n) {
        synchronized (Counter.class) {
            hits++;
            c.last = n;
        }
    }

    static int hits(Counter c) {
        synchronized (Counter.class) {
            return hits + (c.last >= 0 ? 0 : 1);
        }
    }
}

public class ClassLock {
    public static void main(String[] args) throws Exception {
        Counter c = new Counter();
        Runnable work = () -> {
            for (int i = 0; i < 100; i++) {
                Counter.hit(c, i);
            }
        };
        Thread a = new Thread(work);
        Thread b = new Thread(work);
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println("class-lock " + Counter.hits(c));
    }
}
