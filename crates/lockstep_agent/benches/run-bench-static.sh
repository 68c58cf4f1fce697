#!/bin/sh
# Static guidance (`lockstep run --static`, paper 004 §9 Table 3) on the
# workloads of workloads/atomicity/ and the synthetic java/ ones: per
# program, the wall seconds of the plain run and of `lockstep run` without
# and with `--static` (the static analysis counted in), with the race
# checkers only and with the on-line reduction (Table 3's "Online" and
# "OptOnl"), best of RUNS; the events recorded and the findings (rule and
# place) of each way, which must be the same; and the static analysis
# alone (`check --select data-race`), what `--static` adds before the run. Not a test: a measurement
# for BENCHMARKS.md. The guidance cache is a private directory: `cold` is the
# first guided run (the analysis computed and stored), the guided times are
# then best of RUNS with the cache warm (what repeated runs of a program pay).
# Usage: [ONLY="W1 W2"] run-bench-static.sh LOCKSTEP_BINARY [RUNS] [N]
set -eu
LOCKSTEP=${1:?usage: run-bench-static.sh LOCKSTEP_BINARY [RUNS] [N]}
RUNS=${2:-3}
N=${3:-20000}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/atomicity" "$WORK/synthetic"
export XDG_CACHE_HOME="$WORK/cache"
unset LOCKSTEP_NO_CACHE
javac -d "$WORK/atomicity" "$HERE"/workloads/atomicity/*.java
javac -d "$WORK/synthetic" "$HERE"/java/*.java
time_it() { /usr/bin/time -f "%e" -o "$WORK/time" "$@" >/dev/null 2>"$WORK/err" || true; tail -1 "$WORK/time"; }
best() { sort -n | head -1; }
ratio() { echo "scale=1; $1 / $2" | bc; }
# findings JSON -> "rule:Class.method:line" lines, sorted
subjects() { python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["findings"]:
    print("%s:%s.%s:%s" % (f["rule"], f["class"], f["method"], f["line"]))
' "$1" | sort | uniq | tr '\n' ' '; }
events() { sed -n 's/.*recorded \([0-9]*\) events.*/\1/p' "$1"; }
for spec in ${ONLY:-"atomicity Transfer $N" "atomicity TransferSafe $N" "atomicity LazyInit $N" "atomicity LazyInitSafe $N" "atomicity VectorCopySafe $N" "synthetic LockedCounter 2000000" "synthetic MatrixMultiply 120" "synthetic ProducerConsumer 300000"}; do
    set -- $spec
    DIR=$WORK/$1; W=$2; ARG=$3
    plain=$(for i in $(seq "$RUNS"); do time_it java -cp "$DIR" "$W" "$ARG"; done | best)
    # The static analysis alone (what --static adds before the program starts).
    analysis=$(for i in $(seq "$RUNS"); do time_it "$LOCKSTEP" check -q --select data-race "$DIR"; done | best)
    line="$W $ARG plain=${plain}s analysis=${analysis}s"
    for mode in races online; do
        atom=""
        [ "$mode" = online ] && atom="--atomicity reduction-online"
        for guided in no yes; do
            st=""
            cold=""
            if [ "$guided" = yes ]; then
                st="--static $DIR"
                # The first run fills the cache (the analysis is timed in it).
                cold=$(time_it "$LOCKSTEP" run --format json -o /dev/null $atom $st -- java -cp "$DIR" "$W" "$ARG")
                cold=",cold=${cold}s"
            fi
            t=$(for i in $(seq "$RUNS"); do time_it "$LOCKSTEP" run --format json -o "$WORK/$W.$mode.$guided.json" $atom $st -- java -cp "$DIR" "$W" "$ARG"; done | best)
            ev=$(events "$WORK/err")
            line="$line $mode/static=$guided=${t}s($(ratio "$t" "$plain")x,${ev}ev$cold)"
            if [ "$guided" = yes ]; then
                g=$(sed -n 's/.*static guidance: \([0-9]* of [0-9]*\).*/\1/p' "$WORK/err")
                g="$g,$(sed -n 's/.*static guidance: \([0-9]*\) methods proven atomic.*/\1 atomic methods/p' "$WORK/err")"
                grep -q "from the cache" "$WORK/err" || g="$g,CACHE-NOT-USED"
                a=$(subjects "$WORK/$W.$mode.no.json"); b=$(subjects "$WORK/$W.$mode.yes.json")
                if [ "$a" = "$b" ]; then same=same; else same="DIFFERENT: [$a] vs [$b]"; fi
                line="$line skipped=$g findings:$same"
            fi
        done
    done
    echo "$line"
    echo "  findings: $(subjects "$WORK/$W.online.yes.json")"
done
