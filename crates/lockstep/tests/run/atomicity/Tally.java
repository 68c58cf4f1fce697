/**
 * Two package-private increments that let go of the lock half-way: only the
 * one annotated {@code @Atomic} is a transaction (the default heuristic
 * takes public or synchronized methods of shared classes).
 */
public class Tally {
    private int count;

    synchronized int get() {
        return count;
    }

    synchronized void put(int value) {
        count = value;
    }

    @Atomic
    void bumpAnnotated() {
        put(get() + 1);
    }

    void bumpPlain() {
        put(get() + 1);
    }

    public static void main(String[] args) throws Exception {
        Tally tally = new Tally();
        Workers.twice(() -> {
            for (int k = 0; k < 5; k++) {
                tally.bumpAnnotated();
                tally.bumpPlain();
            }
        });
        System.out.println("done");
    }
}
