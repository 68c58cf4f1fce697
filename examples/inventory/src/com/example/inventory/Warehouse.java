package com.example.inventory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/** Runs pickers and a restocker concurrently over one stock. */
public class Warehouse {
    public static void main(String[] args) throws InterruptedException {
        Stock stock = new Stock();
        Zone dock = new Zone(0, 0, 10, 10);
        Point forklift = new Point(3, 4);

        List<Thread> pickers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Thread t = new Thread(() -> {
                stock.pick(1);
                stock.reserve();
            });
            pickers.add(t);
            t.start();
        }

        ExecutorService pool = Executors.newFixedThreadPool(2);
        pool.execute(() -> stock.restock(10));
        pool.submit(() -> forklift.moveTo(12, 12));
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.SECONDS);

        System.out.println("forklift at dock: " + dock.contains(forklift));
        for (Thread t : pickers) {
            t.join();
        }
        System.out.println("units=" + stock.units() + " reserved=" + stock.reserved());
    }
}
