package com.example.app;

import java.util.Properties;
import org.apache.commons.lang3.concurrent.LazyInitializer;

/**
 * Settings loaded once, on first use. The super class comes from the
 * commons-lang3 dependency: lockstep reads it from the jar the class path
 * names, and says so if the jar is missing.
 */
public final class Settings extends LazyInitializer<Properties> {
    @Override
    protected Properties initialize() {
        Properties defaults = new Properties();
        defaults.setProperty("report.width", "12");
        return defaults;
    }
}
