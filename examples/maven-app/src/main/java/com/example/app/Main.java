package com.example.app;

/** Counts from two threads while a third reports. */
public final class Main {
    public static void main(String[] args) throws Exception {
        Counter counter = new Counter();
        Report report = new Report();
        Thread hits = new Thread(() -> {
            for (int i = 0; i < 1000; i++) {
                counter.hit();
            }
        });
        Thread misses = new Thread(() -> {
            for (int i = 0; i < 1000; i++) {
                counter.miss();
            }
        });
        hits.start();
        misses.start();
        System.out.println(report.ratio(counter));
        System.out.println(new Settings().get().getProperty("report.width"));
        hits.join();
        misses.join();
    }
}
