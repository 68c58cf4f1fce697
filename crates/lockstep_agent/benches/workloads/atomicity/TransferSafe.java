/** Correct twin of Transfer: one critical section. Usage: TransferSafe N */
public class TransferSafe {
    private final Object lock = new Object();
    private int a = 1_000_000;
    private int b = 1_000_000;

    public void transfer(int amount) {
        int fromA;
        int toB;
        synchronized (lock) {
            fromA = a;
            toB = b;
            a = fromA - amount;
            b = toB + amount;
        }
    }

    public int total() {
        synchronized (lock) {
            return a + b;
        }
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        TransferSafe bank = new TransferSafe();
        Workers.twice(() -> {
            for (int k = 0; k < n; k++) {
                bank.transfer(1);
            }
        });
        System.out.println(bank.total() == 2_000_000 ? "total kept" : "total changed");
    }
}
