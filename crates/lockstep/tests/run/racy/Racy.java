/** Two threads increment one field without any ordering: a data race. */
public class Racy {
    static int count;
    static int[] cells = new int[4];

    public static void main(String[] args) throws Exception {
        Runnable work = () -> {
            for (int i = 0; i < 1000; i++) {
                count++;
                cells[i % 4]++;
            }
        };
        Thread a = new Thread(work, "adder-1");
        Thread b = new Thread(work, "adder-2");
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println("racy done");
    }
}
