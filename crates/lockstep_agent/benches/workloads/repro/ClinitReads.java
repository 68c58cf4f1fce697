public class ClinitReads {
    static final class Holder {
        static final Object X = new Object();
    }

    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        Thread[] ts = new Thread[4];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = new Thread(() -> {
                for (int k = 0; k < 1000; k++) {
                    sink = Holder.X;
                }
            }, "reader-" + i);
            ts[i].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        System.out.println(sink != null);
    }
}
