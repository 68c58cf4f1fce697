#!/usr/bin/env bash
# Generated program shapes for the scaling benchmark (issue 20 point 6):
# each shape is one Java program with a thread started from `main` that
# runs the same code as `main`, so every rule has work to do, and whose
# size grows along one dimension only. Each generated method writes a
# field of its own (N fields, N races: the report grows linearly), except
# `samefield`, whose N writes of one field make N*N racing pairs (the
# pair search's worst case). Compiled with javac into OUT/<shape>/classes
# (sources in OUT/<shape>/src).
#
#   chain-N      methods m0 -> m1 -> ... -> m{N-1}
#   fanout-N     one method calling N methods
#   hier-N       a class hierarchy N levels deep, every level overriding run()
#   huge-N       one method of N statements, every 100th one writes a field
#                (20,000 fits the JVM's 64 KiB code limit; much more does not)
#   samefield-N  one method calling N methods that all write the same field
#   project-N    N small classes in a chain, each with a map, a list, a lock,
#                `String.format` and a `toString`, run by main, a thread and
#                three executor tasks (a small project's use of the JDK)
#
# Usage: scripts/gen-shapes.sh OUT [SHAPE-N ...]
# Default shapes: chain-1500 chain-3000 chain-6000 fanout-3000 hier-500
# huge-20000 samefield-1000 project-50.
set -euo pipefail
out=${1:?usage: gen-shapes.sh OUT [SHAPE-N ...]}
shift
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] || shapes=(chain-1500 chain-3000 chain-6000 fanout-3000 hier-500 huge-20000 samefield-1000 project-50)

# The shared part: main and a thread it starts run the same method.
prologue() {
  cat <<EOF
public class Shape {
    static int shared;
    int counter;
    public static void main(String[] args) throws Exception {
        Shape s = new Shape();
        Thread t = new Thread(() -> s.$1);
        t.start();
        s.$1;
        System.out.println(shared + s.counter);
    }
EOF
}

# One instance field per generated method.
fields() {
  for ((i = 0; i < $1; i++)); do echo "    int c$i;"; done
}

chain() {
  local n=$1
  prologue "m0(1)"
  fields "$n"
  for ((i = 0; i < n - 1; i++)); do
    echo "    void m$i(int x) { c$i = x; m$((i + 1))(x + 1); }"
  done
  echo "    void m$((n - 1))(int x) { shared = x; }"
  echo "}"
}

# `fan()` calling f0 ... f{N-1}, each with BODY (I: the method's index).
fan_methods() {
  local n=$1 body=$2
  echo "    void fan() {"
  for ((i = 0; i < n; i++)); do echo "        f$i();"; done
  echo "    }"
  for ((i = 0; i < n; i++)); do echo "    void f$i() { ${body//I/$i} }"; done
  echo "}"
}

fanout() {
  prologue "fan()"
  fields "$1"
  fan_methods "$1" "cI = I;"
}

hier() {
  local n=$1
  prologue "level().run()"
  echo "    Runnable level() { return new L$((n - 1))(this); }"
  echo "}"
  echo "class L0 implements Runnable {"
  echo "    static int c;"
  echo "    final Shape s;"
  echo "    L0(Shape s) { this.s = s; }"
  echo "    public void run() { c = 0; }"
  echo "}"
  for ((i = 1; i < n; i++)); do
    echo "class L$i extends L$((i - 1)) {"
    echo "    static int c;"
    echo "    L$i(Shape s) { super(s); }"
    echo "    public void run() { c = $i; super.run(); }"
    echo "}"
  done
}

huge() {
  local n=$1
  prologue "big()"
  fields $((n / 100 + 1))
  echo "    void big() {"
  echo "        int x = 0;"
  for ((i = 0; i < n; i++)); do
    if ((i % 100 == 0)); then echo "        c$((i / 100)) = x;"; else echo "        x++;"; fi
  done
  echo "        shared = x;"
  echo "    }"
  echo "}"
}

samefield() {
  prologue "fan()"
  fan_methods "$1" "shared = I;"
}

project() {
  local n=$1
  cat <<EOF
import java.util.*;
import java.util.concurrent.*;

public class Shape {
    public static void main(String[] args) throws Exception {
        C0 first = new C0();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        for (int i = 0; i < 3; i++) {
            final int id = i;
            pool.submit(() -> first.step(id));
        }
        Thread t = new Thread(() -> first.step(-1));
        t.start();
        first.step(0);
        t.join();
        pool.shutdown();
        System.out.println(first);
    }
}
EOF
  for ((i = 0; i < n; i++)); do
    echo "class C$i {"
    if ((i + 1 < n)); then echo "    static final C$((i + 1)) NEXT = new C$((i + 1))();"; fi
    cat <<EOF
    private final Map<String, Integer> counts = new HashMap<>();
    private final List<String> log = new ArrayList<>();
    private final Object lock = new Object();
    private int hits;
    synchronized void record(String key) { counts.merge(key, 1, Integer::sum); }
    void step(int x) {
        hits++;
        String key = String.format("c$i-%d", x);
        record(key);
        synchronized (lock) { log.add(key.toUpperCase()); }
EOF
    if ((i + 1 < n)); then echo "        NEXT.step(x + 1);"; fi
    echo "    }"
    echo "    public String toString() { return \"C$i \" + hits + \" \" + counts.size(); }"
    echo "}"
  done
}

for spec in "${shapes[@]}"; do
  kind=${spec%-*}
  n=${spec##*-}
  case "$kind" in chain | fanout | hier | huge | samefield | project) ;; *) echo "unknown shape: $spec" >&2; exit 2 ;; esac
  [[ "$n" =~ ^[0-9]+$ ]] && ((n > 0)) || { echo "bad size in $spec" >&2; exit 2; }
  dir="$out/$spec"
  rm -rf "$dir"
  mkdir -p "$dir/src" "$dir/classes"
  "$kind" "$n" > "$dir/src/Shape.java"
  # Deep hierarchies and long chains need a bigger javac stack.
  javac -J-Xss64m -d "$dir/classes" "$dir/src/Shape.java"
  echo "$dir/classes"
done
