package com.example.inventory;

/** Stock levels shared by the picking and restocking threads. */
public class Stock {
    private final Object lock = new Object();
    private int units;
    private int reserved;

    /** Lost update: the count is read under the lock, changed outside it, and written back. */
    public void restock(int delivered) {
        int current;
        synchronized (lock) {
            current = units;
        }
        current = current + delivered;
        synchronized (lock) {
            units = current;
        }
    }

    /** Correct: the whole read-modify-write holds the lock. */
    public void pick(int n) {
        synchronized (lock) {
            units = units - n;
        }
    }

    /** Unsynchronized counter updated from several threads. */
    public void reserve() {
        reserved++;
    }

    public int reserved() {
        return reserved;
    }

    public int units() {
        synchronized (lock) {
            return units;
        }
    }
}
