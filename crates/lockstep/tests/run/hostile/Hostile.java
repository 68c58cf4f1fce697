import java.io.*;
import java.util.*;

/** A racy class loaded by a custom class loader, then an OutOfMemoryError that ends the program. */
public class Hostile {
    static class IsolatingLoader extends ClassLoader {
        IsolatingLoader() { super(Hostile.class.getClassLoader()); }
        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.equals("Plugin")) return super.loadClass(name, resolve);
            try (InputStream in = getParent().getResourceAsStream("Plugin.class")) {
                byte[] b = in.readAllBytes();
                return defineClass(name, b, 0, b.length);
            } catch (IOException e) {
                throw new ClassNotFoundException(name, e);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Class<?> plugin = new IsolatingLoader().loadClass("Plugin");
        if (plugin.getClassLoader() == Hostile.class.getClassLoader()) throw new AssertionError("not isolated");
        Runnable r = (Runnable) plugin.getDeclaredConstructor().newInstance();
        Thread a = new Thread(r), b = new Thread(r);
        a.start(); b.start(); a.join(); b.join();
        System.out.println("plugin ran");
        List<long[]> hog = new ArrayList<>();
        while (true) hog.add(new long[1 << 20]);
    }
}
