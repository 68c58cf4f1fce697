// Type discovery fixture: each field has one protection discipline in the
// run; `Account.reset` (unlocked) runs only when asked for ("reset").
public class Types {
    /** Always under synchronized(this): guarded_by this. */
    static class Counter {
        int count;
        void inc() { synchronized (this) { count++; } }
        synchronized int get() { return count; }
    }

    /** A static field under its class's lock: guarded_by Types$Registry.class. */
    static class Registry {
        static int total;
        static synchronized void add(int n) { total += n; }
        static synchronized int total() { return total; }
    }

    /** Written only in the constructor, read by the workers: readonly. */
    static class Config {
        String name;
        Config(String name) { this.name = name; }
        String name() { return name; }
    }

    /** Each worker has its own: thisThread. */
    static class Scratch {
        int uses;
    }

    /** Under its own monitor in one thread, its class's in another: no guard. */
    static class Mixed {
        int value;
        synchronized void viaThis() { value++; }
        static synchronized void viaClass(Mixed m) { m.value++; }
    }

    /** Under synchronized(this) in the run, but reset() writes without it. */
    static class Account {
        int balance;
        synchronized void deposit(int n) { balance += n; }
        synchronized int balance() { return balance; }
        void reset() { balance = 0; }
    }

    static final Counter counter = new Counter();
    static final Config config = new Config("cfg");
    static final Mixed mixed = new Mixed();
    static final Account account = new Account();

    public static void main(String[] args) throws Exception {
        boolean reset = args.length > 0 && args[0].equals("reset");
        mixed.viaThis();
        Thread a = new Thread(() -> work(reset, true));
        a.start();
        a.join();
        Thread b = new Thread(() -> work(reset, false));
        b.start();
        b.join();
        System.out.println("types " + counter.get() + " " + Registry.total() + " " + account.balance());
    }

    static void work(boolean reset, boolean first) {
        Scratch s = new Scratch();
        for (int k = 0; k < 50; k++) {
            counter.inc();
            Registry.add(1);
            s.uses++;
            if (config.name().isEmpty()) {
                return;
            }
            if (first) {
                mixed.viaThis();
            } else {
                Mixed.viaClass(mixed);
            }
            account.deposit(1);
        }
        if (reset) {
            account.reset();
        }
    }
}
