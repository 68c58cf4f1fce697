/** Loaded by Hostile's own class loader; races on its static counter. */
public class Plugin implements Runnable {
    static int hits;

    public void run() {
        for (int i = 0; i < 1000; i++) hits++;
    }
}
