/** Runs a body in two threads and waits for both (the harness the programs share). */
final class Workers {
    private Workers() {}

    static void twice(Runnable body) throws InterruptedException {
        Thread[] ts = {new Thread(body), new Thread(body)};
        for (Thread t : ts) {
            t.start();
        }
        for (Thread t : ts) {
            t.join();
        }
    }
}
