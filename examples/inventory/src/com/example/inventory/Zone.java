package com.example.inventory;

/** A rectangular zone of the warehouse. */
public class Zone {
    private final int minX, minY, maxX, maxY;

    public Zone(int minX, int minY, int maxX, int maxY) {
        this.minX = minX;
        this.minY = minY;
        this.maxX = maxX;
        this.maxY = maxY;
    }

    /**
     * Meant to be atomic, but `p` is locked twice (once per getter): another
     * thread may move `p` between the two reads, so the zone can report a
     * position `p` never had.
     */
    public synchronized boolean contains(Point p) {
        int px = p.getX();
        int py = p.getY();
        return px >= minX && px <= maxX && py >= minY && py <= maxY;
    }

    /** The fix: hold `p` across both reads. */
    public synchronized boolean containsAtomically(Point p) {
        synchronized (p) {
            return p.getX() >= minX && p.getX() <= maxX && p.getY() >= minY && p.getY() <= maxY;
        }
    }
}
