/** A second program, never run by the tests: its `bump` is not reached. */
public class Unused {
    private int count;

    public synchronized int get() {
        return count;
    }

    public synchronized void put(int value) {
        count = value;
    }

    public void bump() {
        put(get() + 1);
    }

    public static void main(String[] args) throws Exception {
        Unused u = new Unused();
        Runnable body = u::bump;
        Thread a = new Thread(body);
        Thread b = new Thread(body);
        a.start();
        b.start();
        a.join();
        b.join();
    }
}
