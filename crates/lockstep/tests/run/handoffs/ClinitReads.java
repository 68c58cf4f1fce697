/**
 * Four threads read a static final of a nested class whose <clinit> one
 * of them runs: class initialization orders the write before every read.
 * The racy twin: `hits` is incremented by all four without a lock.
 */
public class ClinitReads {
    static final class Holder {
        static final Object X = new Object();
        static final int[] TABLE = {1, 2, 3};
    }

    static volatile Object sink;
    static int hits;

    public static void main(String[] args) throws Exception {
        Thread[] ts = new Thread[4];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = new Thread(() -> {
                for (int k = 0; k < 200; k++) {
                    sink = Holder.X;
                    sink = Holder.TABLE[k % 3];
                }
                hits++;
            }, "reader-" + i);
            ts[i].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        System.out.println("clinit " + (sink != null));
    }
}
