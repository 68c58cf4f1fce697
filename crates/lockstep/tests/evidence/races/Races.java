// Three static races, three fates in a run of `java Races`:
// `observed` is bumped by two threads the run leaves unordered (observed),
// `ordered` is written then read after a volatile flag the run follows
// (reached: ordered in the run), `unreached` races only in code the run
// never calls (not reached).
public class Races {
    static int observed;
    static int ordered;
    static int unreached;
    static volatile boolean published;

    public static void main(String[] args) throws Exception {
        Thread a = new Thread(Races::bump);
        Thread b = new Thread(Races::bump);
        a.start();
        b.start();
        a.join();
        b.join();
        Thread writer = new Thread(Races::publish);
        Thread reader = new Thread(Races::consume);
        writer.start();
        reader.start();
        writer.join();
        reader.join();
        if (args.length > 0) {
            new Thread(Races::touch).start();
            new Thread(Races::touch).start();
        }
        System.out.println("races done");
    }

    static void bump() {
        observed++;
    }

    static void publish() {
        ordered = 42;
        published = true;
    }

    static void consume() {
        while (!published) {
            Thread.onSpinWait();
        }
        if (ordered != 42) {
            throw new IllegalStateException("not published");
        }
    }

    static void touch() {
        unreached++;
    }
}
