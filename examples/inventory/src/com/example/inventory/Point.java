package com.example.inventory;

/** A mutable location on the warehouse floor. Guarded by its own monitor. */
public class Point {
    private int x;
    private int y;

    public Point(int x, int y) {
        this.x = x;
        this.y = y;
    }

    public synchronized int getX() { return x; }

    public synchronized int getY() { return y; }

    public synchronized void moveTo(int nx, int ny) {
        x = nx;
        y = ny;
    }
}
