package lsbench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Debian's h2 (in-memory database) driven by concurrent JDBC clients: THREADS
 * threads, each with its own connection, each doing OPS rounds of insert,
 * update of a row another client may touch, and an aggregate select. A fixed,
 * deterministic amount of work for the run-time recording benchmark.
 * Usage: H2Clients OPS
 */
public final class H2Clients {
    private static final int THREADS = 4;
    private static final String URL = "jdbc:h2:mem:bench;DB_CLOSE_DELAY=-1";

    public static void main(String[] args) throws Exception {
        int ops = Integer.parseInt(args[0]);
        try (Connection c = DriverManager.getConnection(URL, "sa", "");
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE item(id INT PRIMARY KEY, owner INT, val BIGINT)");
            s.execute("CREATE TABLE counter(id INT PRIMARY KEY, n BIGINT)");
            for (int i = 0; i < 16; i++) {
                s.execute("INSERT INTO counter VALUES(" + i + ", 0)");
            }
        }
        Thread[] clients = new Thread[THREADS];
        long[] sums = new long[THREADS];
        for (int t = 0; t < THREADS; t++) {
            final int id = t;
            clients[t] = new Thread(() -> sums[id] = client(id, ops), "client-" + t);
            clients[t].start();
        }
        for (Thread t : clients) {
            t.join();
        }
        try (Connection c = DriverManager.getConnection(URL, "sa", "");
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT COUNT(*), SUM(n) FROM item, counter WHERE item.id = 0")) {
            r.next();
            long checksum = 0;
            for (long x : sums) {
                checksum += x;
            }
            System.out.println("rows-joined=" + r.getLong(1) + " counter-sum=" + r.getLong(2) + " checksum=" + checksum);
        }
    }

    private static long client(int id, int ops) {
        try (Connection c = DriverManager.getConnection(URL, "sa", "");
                PreparedStatement ins = c.prepareStatement("INSERT INTO item VALUES(?, ?, ?)");
                PreparedStatement upd = c.prepareStatement("UPDATE counter SET n = n + 1 WHERE id = ?");
                PreparedStatement sel = c.prepareStatement("SELECT COUNT(*), SUM(val) FROM item WHERE owner = ?")) {
            long sum = 0;
            for (int i = 0; i < ops; i++) {
                ins.setInt(1, id * ops + i);
                ins.setInt(2, id);
                ins.setLong(3, i);
                ins.executeUpdate();
                upd.setInt(1, i % 16);
                upd.executeUpdate();
                if (i % 10 == 0) {
                    sel.setInt(1, id);
                    try (ResultSet r = sel.executeQuery()) {
                        r.next();
                        sum += r.getLong(1);
                    }
                }
            }
            return sum;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
