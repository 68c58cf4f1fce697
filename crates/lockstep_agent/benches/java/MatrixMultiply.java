import java.util.*;
import java.util.concurrent.*;

/** Array-heavy: rows of a matrix product computed by an executor. */
public class MatrixMultiply {
    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args.length > 0 ? args[0] : "160");
        double[][] a = new double[n][n], b = new double[n][n], c = new double[n][n];
        for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) { a[i][j] = i + j; b[i][j] = i - j; }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<?>> fs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final int row = i;
            fs.add(pool.submit(() -> {
                double[] ar = a[row], cr = c[row];
                for (int j = 0; j < n; j++) {
                    double s = 0;
                    for (int k = 0; k < n; k++) s += ar[k] * b[k][j];
                    cr[j] = s;
                }
            }));
        }
        for (Future<?> f : fs) f.get();
        pool.shutdown();
        double sum = 0;
        for (double[] r : c) for (double v : r) sum += v;
        System.out.println(sum);
    }
}
