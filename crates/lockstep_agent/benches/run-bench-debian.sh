#!/bin/sh
# Slowdown of recording against the plain run on real Debian software driven
# by the small workloads in workloads/debian/ (h2 with 4 JDBC clients, log4j
# 1.2 with 4 logging threads, jgroups with two loopback channels). Rounds are
# interleaved (each round runs every mode once) and the best of RUNS is kept.
# Modes: `plain` = java alone; `record` = the JVM with the agent writing its
# trace to a file (no checking); `run` = `lockstep run --format json -o ...
# --trace ...` (recording, both online checkers, report at exit). `record-inc`
# and `run-inc` restrict instrumentation with --include to the driver's
# package plus the library's. Not a test: a measurement for BENCHMARKS.md.
# With STATIC=1, mode `run-static` = `run` with `--static` on the driver's
# classes and the library jar, its guidance cache (a private directory)
# filled by one `cold` run first, timed apart; and MODES="plain run
# run-static" picks modes (default: all but run-static, plus it with STATIC=1).
# Usage: [KEEP=DIR] [AGENT=LIB.so] [STATIC=1] [MODES=...] run-bench-debian.sh LOCKSTEP_BINARY [RUNS] [h2|log4j|jgroups...]
# (AGENT: the agent library for `record`; default the newest in the cache.)
# (KEEP=DIR keeps the JSON reports of the last `run`, `run-inc` and `run-static` in DIR.)
set -eu
LOCKSTEP=${1:?usage: run-bench-debian.sh LOCKSTEP_BINARY [RUNS] [WORKLOAD...]}
RUNS=${2:-3}
shift
[ $# -gt 0 ] && shift
HERE=$(cd "$(dirname "$0")" && pwd)
J=/usr/share/java
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
javac -d "$WORK/cls" -cp "$J/h2.jar:$J/log4j-1.2.jar:$J/jgroups.jar" "$HERE"/workloads/debian/*.java
"$LOCKSTEP" run -q -o /dev/null -- java -cp "$WORK/cls" lsbench.H2Clients 0 >/dev/null 2>&1 || true
AGENT=${AGENT:-$(ls -t "${XDG_CACHE_HOME:-$HOME/.cache}"/lockstep/agent-*.so | head -1)}
DEFAULT_MODES="plain record record-inc run run-inc"
[ "${STATIC:-0}" = 1 ] && DEFAULT_MODES="$DEFAULT_MODES run-static"
MODES=${MODES:-$DEFAULT_MODES}
case " $MODES " in *" plain "*) ;; *) MODES="plain $MODES" ;; esac
if [ "${STATIC:-0}" = 1 ]; then
    export XDG_CACHE_HOME="$WORK/cache"
    unset LOCKSTEP_NO_CACHE
fi
on() { case " $MODES " in *" $1 "*) return 0 ;; esac; return 1; }
now() { date +%s.%N; }
best() { sort -n | head -1; }
# time_it LOG CMD...: seconds of wall clock; the command's stderr goes to LOG.
time_it() { log=$1; shift; s=$(now); "$@" >/dev/null 2>"$log" || true; e=$(now); echo "$e - $s" | bc; }
# name main size classpath include-patterns(comma-separated)
SPECS="h2 H2Clients 200 $J/h2.jar lsbench.*,org.h2.*
log4j Log4jThreads 10000 $J/log4j-1.2.jar lsbench.*,org.apache.log4j.*
jgroups JGroupsLoopback 1000 $J/jgroups.jar lsbench.*,org.jgroups.*"
[ $# -gt 0 ] && SPECS=$(echo "$SPECS" | grep -E "^($(echo "$@" | tr ' ' '|')) ")
echo "$SPECS" | while read -r NAME MAIN N CP INC; do
    CPA="$WORK/cls:$CP"
    JAVA="java -Djava.net.preferIPv4Stack=true -cp $CPA lsbench.$MAIN $N"
    INC_AGENT=$(echo "$INC" | tr ',' ':')
    STATIC_PATHS="$WORK/cls:$CP"
    if on run-static; then
        cold=$(time_it "$WORK/cold.err" "$LOCKSTEP" run --static "$STATIC_PATHS" --format json -o /dev/null -- $JAVA)
        echo "$NAME run-static cold (analysis computed and cached) ${cold}s: $(grep 'static guidance' "$WORK/cold.err" | tr '\n' ' ')"
    fi
    for i in $(seq "$RUNS"); do
        on plain && echo "plain $(time_it /dev/null $JAVA)"
        on record && echo "record $(time_it "$WORK/rec.err" java "-agentpath:$AGENT=trace=$WORK/rec.trace" -Djava.net.preferIPv4Stack=true -cp "$CPA" "lsbench.$MAIN" "$N")"
        on record-inc && echo "record-inc $(time_it "$WORK/reci.err" java "-agentpath:$AGENT=trace=$WORK/reci.trace,include=$INC_AGENT" -Djava.net.preferIPv4Stack=true -cp "$CPA" "lsbench.$MAIN" "$N")"
        on run && echo "run $(time_it "$WORK/run.err" "$LOCKSTEP" run --format json -o "$WORK/run.json" --trace "$WORK/run.trace" -- $JAVA)"
        on run-inc && echo "run-inc $(time_it "$WORK/runi.err" "$LOCKSTEP" run --include "$INC" --format json -o "$WORK/runi.json" --trace "$WORK/runi.trace" -- $JAVA)"
        on run-static && echo "run-static $(time_it "$WORK/runs.err" "$LOCKSTEP" run --static "$STATIC_PATHS" --format json -o "$WORK/runs.json" --trace "$WORK/runs.trace" -- $JAVA)"
    done >"$WORK/times"
    t() { grep "^$1 " "$WORK/times" | cut -d' ' -f2 | best; }
    plain=$(t plain)
    for mode in $MODES; do
        [ "$mode" = plain ] && continue
        secs=$(t "$mode")
        line="$NAME $MAIN $N $mode ${secs}s ($(echo "scale=1; $secs / $plain" | bc)x of plain ${plain}s)"
        case $mode in
        run | run-inc | run-static)
            f=$WORK/run; [ "$mode" = run-inc ] && f=$WORK/runi; [ "$mode" = run-static ] && f=$WORK/runs
            events=$(grep -oE 'recorded [0-9]+ events' "$f.err" | tail -1 | cut -d' ' -f2)
            bytes=$(stat -c %s "$f.trace")
            findings=$(grep -oE '[0-9]+ findings' "$f.err" | tail -1 | cut -d' ' -f1)
            per=$( [ -n "$events" ] && [ "$events" -gt 0 ] && echo "scale=2; $bytes / $events" | bc || echo "?")
            line="$line events=${events:-?} trace_bytes=$bytes bytes/event=$per findings=${findings:-?}"
            ;;
        esac
        echo "$line"
    done
    on run-static && grep 'static guidance' "$WORK/runs.err" | sed "s/^/$NAME run-static: /"
    on run || continue
    # Offline checker throughput over the saved trace of the last `run`
    # (decode, merge, both checkers; best of RUNS).
    events=$(grep -oE 'recorded [0-9]+ events' "$WORK/run.err" | tail -1 | cut -d' ' -f2)
    offline=$(for i in $(seq "$RUNS"); do time_it /dev/null "$LOCKSTEP" check-trace --format json -o /dev/null "$WORK/run.trace"; done | best)
    hb=$(for i in $(seq "$RUNS"); do time_it /dev/null "$LOCKSTEP" check-trace --checker happens-before --format json -o /dev/null "$WORK/run.trace"; done | best)
    echo "$NAME check-trace all ${offline}s ($(echo "$events / $offline / 1000000" | bc -l | cut -c1-5) M events/s) happens-before ${hb}s ($(echo "$events / $hb / 1000000" | bc -l | cut -c1-5) M events/s)"
    if [ -n "${KEEP:-}" ]; then
        cp "$WORK/run.json" "$KEEP/lsbench-$NAME.json"
        if [ -f "$WORK/runi.json" ]; then cp "$WORK/runi.json" "$KEEP/lsbench-$NAME-include.json"; fi
        if [ -f "$WORK/runs.json" ]; then cp "$WORK/runs.json" "$KEEP/lsbench-$NAME-static.json"; fi
    fi
done
