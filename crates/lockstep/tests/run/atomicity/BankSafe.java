/** The correct twin of Bank: the whole withdrawal holds the account's lock. */
public class BankSafe {
    private int balance = 1000;

    public synchronized int balance() {
        return balance;
    }

    public synchronized void set(int value) {
        balance = value;
    }

    public synchronized void withdraw(int amount) {
        int b = balance();
        set(b - amount);
    }

    public static void main(String[] args) throws Exception {
        BankSafe bank = new BankSafe();
        Workers.twice(() -> {
            for (int k = 0; k < 20; k++) {
                bank.withdraw(1);
            }
        });
        System.out.println("done " + bank.balance());
    }
}
