package lsbench;

import java.io.File;
import java.io.IOException;
import org.apache.log4j.FileAppender;
import org.apache.log4j.Level;
import org.apache.log4j.Logger;
import org.apache.log4j.PatternLayout;

/**
 * Debian's log4j 1.2 with THREADS threads logging N messages each through
 * their own loggers (one category hierarchy, one shared FileAppender writing
 * to a temporary file), plus a DEBUG message per iteration that the level
 * filters out. A fixed, deterministic amount of work for the run-time
 * recording benchmark. Usage: Log4jThreads N
 */
public final class Log4jThreads {
    private static final int THREADS = 4;

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        File out = File.createTempFile("lsbench-log4j", ".log");
        out.deleteOnExit();
        Logger root = Logger.getRootLogger();
        root.removeAllAppenders();
        root.setLevel(Level.INFO);
        root.addAppender(new FileAppender(new PatternLayout("%d{ISO8601} [%t] %-5p %c - %m%n"), out.getPath(), false));
        Thread[] loggers = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            final int id = t;
            loggers[t] = new Thread(() -> log(id, n), "logger-" + t);
            loggers[t].start();
        }
        for (Thread t : loggers) {
            t.join();
        }
        Logger.getLogger("lsbench.done").info("done");
        org.apache.log4j.LogManager.shutdown();
        System.out.println("lines=" + countLines(out));
    }

    private static void log(int id, int n) {
        Logger log = Logger.getLogger("lsbench.worker" + id);
        for (int i = 0; i < n; i++) {
            log.info("message " + i + " from worker " + id);
            log.debug("filtered " + i);
        }
    }

    private static long countLines(File f) throws IOException {
        try (java.util.stream.Stream<String> lines = java.nio.file.Files.lines(f.toPath())) {
            return lines.count();
        }
    }
}
