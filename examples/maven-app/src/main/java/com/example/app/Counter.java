package com.example.app;

/** Hit and miss counts; every accessor locks the counter. */
public final class Counter {
    private int hits;
    private int misses;

    public synchronized void hit() {
        hits++;
    }

    public synchronized void miss() {
        misses++;
    }

    public synchronized int hits() {
        return hits;
    }

    public synchronized int misses() {
        return misses;
    }
}
