/** A race, then System.exit from a worker thread while another thread still runs. */
public class Exit {
    static long shared;

    public static void main(String[] args) throws Exception {
        Thread spinner = new Thread(() -> { while (true) { shared++; } });
        spinner.setDaemon(true);
        spinner.start();
        Thread.sleep(200);
        shared = 7;
        new Thread(() -> System.exit(3)).start();
        Thread.sleep(10_000);
    }
}
