package com.example.app;

import org.apache.commons.lang3.StringUtils;

/** Formats a counter. */
public final class Report {
    /**
     * The bug lockstep reports (reacquired-lock): `hits()` and `misses()`
     * each lock the counter, so another thread can count between the two
     * calls and the ratio mixes two moments. Holding `synchronized (c)`
     * around both reads would make it one snapshot.
     */
    public synchronized String ratio(Counter c) {
        int hits = c.hits();
        int misses = c.misses();
        return StringUtils.leftPad(hits + "/" + (hits + misses), 12);
    }
}
