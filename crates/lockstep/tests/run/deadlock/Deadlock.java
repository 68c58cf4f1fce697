/** Two threads take two locks in opposite orders and hang forever. */
public class Deadlock {
    static final Object first = new Object();
    static final Object second = new Object();
    static int unguarded;

    public static void main(String[] args) throws Exception {
        Thread a = new Thread(() -> {
            unguarded++;
            synchronized (first) { pause(); synchronized (second) { System.out.println("a"); } }
        }, "takes-first");
        Thread b = new Thread(() -> {
            unguarded++;
            synchronized (second) { pause(); synchronized (first) { System.out.println("b"); } }
        }, "takes-second");
        a.start();
        b.start();
        a.join();
        b.join();
    }

    static void pause() {
        try { Thread.sleep(300); } catch (InterruptedException e) { throw new RuntimeException(e); }
    }
}
