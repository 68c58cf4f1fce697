#!/bin/sh
# Where the time of a guided run goes (issue 18): per program, wall and CPU
# seconds (best of RUNS) of
#   jvm      the plain JVM;
#   agent0   the JVM with lockstep's agent loaded but no class instrumented
#            (`include=` a package that does not exist): library load,
#            runtime classes, the class-load hook on every class;
#   record   the agent instrumenting the application and writing the trace
#            to a file (class rewriting and per-event cost, no checker);
#   recordg  the same with the static guidance of a warm cache;
#   run      `lockstep run` (CLI start, FIFO, online checkers, report);
#   rung     `lockstep run --static`, warm cache.
# The differences give the agent's start (agent0 - jvm), the rewriting and
# events (record - agent0), the checker (run - record) and what guidance
# saves on each. Not a test: a measurement for BENCHMARKS.md.
# Usage: [ONLY="W1 W2"] run-breakdown.sh LOCKSTEP_BINARY [RUNS] [N]
set -eu
LOCKSTEP=${1:?usage: run-breakdown.sh LOCKSTEP_BINARY [RUNS] [N]}
RUNS=${2:-3}
N=${3:-5000}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/atomicity" "$WORK/synthetic" "$WORK/hello" "$WORK/cache"
export XDG_CACHE_HOME="$WORK/cache"
unset LOCKSTEP_NO_CACHE
javac -d "$WORK/atomicity" "$HERE"/workloads/atomicity/*.java
javac -d "$WORK/synthetic" "$HERE"/java/*.java
cat > "$WORK/Hello.java" <<'JAVA'
public class Hello {
    public static void main(String[] args) {
        System.out.println("hello " + args.length);
    }
}
JAVA
javac -d "$WORK/hello" "$WORK/Hello.java"
# Unpack this binary's agent into the private cache.
"$LOCKSTEP" run -q -o /dev/null -- java -cp "$WORK/hello" Hello >/dev/null 2>&1 || true
AGENT=$(ls -t "$WORK/cache"/lockstep/agent-*.so | head -1)
time_it() { /usr/bin/time -f "%e %U %S" -o "$WORK/time" "$@" >/dev/null 2>"$WORK/err" || true; tail -1 "$WORK/time" | awk '{printf "%.2f/%.2f\n", $1, $2 + $3}'; }
best() { sort -t/ -n -k1 | head -1; }
for spec in ${ONLY:-"hello Hello 0" "atomicity Transfer $N" "atomicity TransferSafe $N" "atomicity LazyInit $N" "atomicity LazyInitSafe $N" "atomicity VectorCopySafe $N" "synthetic LockedCounter 2000000" "synthetic MatrixMultiply 120" "synthetic ProducerConsumer 300000"}; do
    set -- $spec
    DIR=$WORK/$1; W=$2; ARG=$3
    # Warm the guidance cache and keep the guidance file for `recordg`.
    "$LOCKSTEP" run -o /dev/null --static "$DIR" --trace "$WORK/g.trace" -- java -cp "$DIR" "$W" "$ARG" >/dev/null 2>"$WORK/guide.err" || true
    G=$(ls -t "$WORK/cache"/lockstep/guidance/*.txt | head -1)
    tail -n +2 "$G" > "$WORK/guidance.txt"
    jvm=$(for i in $(seq "$RUNS"); do time_it java -cp "$DIR" "$W" "$ARG"; done | best)
    agent0=$(for i in $(seq "$RUNS"); do time_it java "-agentpath:$AGENT=trace=$WORK/t0,include=no.such.pkg" -cp "$DIR" "$W" "$ARG"; done | best)
    record=$(for i in $(seq "$RUNS"); do time_it java "-agentpath:$AGENT=trace=$WORK/t1" -cp "$DIR" "$W" "$ARG"; done | best)
    recordg=$(for i in $(seq "$RUNS"); do time_it java "-agentpath:$AGENT=trace=$WORK/t2,static=$WORK/guidance.txt" -cp "$DIR" "$W" "$ARG"; done | best)
    run=$(for i in $(seq "$RUNS"); do time_it "$LOCKSTEP" run -o /dev/null -- java -cp "$DIR" "$W" "$ARG"; done | best)
    runev=$(sed -n 's/.*recorded \([0-9]*\) events.*/\1/p' "$WORK/err")
    runstatic=$(for i in $(seq "$RUNS"); do time_it "$LOCKSTEP" run -o /dev/null --static "$DIR" -- java -cp "$DIR" "$W" "$ARG"; done | best)
    gev=$(sed -n 's/.*recorded \([0-9]*\) events.*/\1/p' "$WORK/err")
    mon=$(sed -n 's/.*static guidance: \([0-9]*\) methods lock only.*/\1/p' "$WORK/err")
    echo "$W $ARG jvm=$jvm agent0=$agent0 record=$record recordg=$recordg run=$run rung=$runstatic events=${runev:-?}->${gev:-?} monitor-methods-elided=${mon:-?}"
done
