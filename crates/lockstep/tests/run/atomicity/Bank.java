/** A withdrawal that reads the balance under the account's lock, lets go, and writes it under the lock again: a lost update (not atomic). */
public class Bank {
    private int balance = 1000;

    public synchronized int balance() {
        return balance;
    }

    public synchronized void set(int value) {
        balance = value;
    }

    public void withdraw(int amount) {
        int b = balance();
        set(b - amount);
    }

    public static void main(String[] args) throws Exception {
        Bank bank = new Bank();
        Workers.twice(() -> {
            for (int k = 0; k < 20; k++) {
                bank.withdraw(1);
            }
        });
        System.out.println("done");
    }
}
