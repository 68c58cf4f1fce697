// `lockstep run --static`: `hits` races (two workers, no lock), `total` is
// always written under `lock`, and each worker's `Box` never leaves its
// thread. The static analysis proves the last two race-free: their access
// instructions get no probe, while `hits` is still recorded and reported.
public class Guided {
    static final class Box {
        int v;
    }

    private final Object lock = new Object();
    private int hits;
    private int total;

    void work(int n) {
        Box box = new Box();
        for (int i = 0; i < n; i++) {
            hits++;
            synchronized (lock) {
                total += i;
            }
            box.v += i;
        }
        if (box.v == 42) {
            System.out.println("unlikely");
        }
    }

    public static void main(String[] args) throws Exception {
        Guided g = new Guided();
        Thread a = new Thread(() -> g.work(2000), "worker-1");
        Thread b = new Thread(() -> g.work(2000), "worker-2");
        a.start();
        b.start();
        a.join();
        b.join();
        synchronized (g.lock) {
            System.out.println(g.total > 0);
        }
    }
}
