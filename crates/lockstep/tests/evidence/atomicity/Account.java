/**
 * `withdraw` reads the balance under the lock, lets go and writes it under
 * the lock again, in two threads: the run shows it not atomic (observed).
 * `deposit` has the same shape but runs once, in `main`, before the
 * threads start: it runs as a transaction with no violation (reached).
 * `Unused.bump` is the same again, in a program the run never starts (not
 * reached).
 */
public class Account {
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

    public void deposit(int amount) {
        int b = balance();
        set(b + amount);
    }

    public static void main(String[] args) throws Exception {
        Account account = new Account();
        account.deposit(5);
        Runnable body = () -> {
            for (int k = 0; k < 50; k++) {
                account.withdraw(1);
            }
        };
        Thread a = new Thread(body);
        Thread b = new Thread(body);
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println(account.balance());
    }
}
