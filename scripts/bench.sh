#!/usr/bin/env bash
# The benchmark: front end (read, parse, lower, validate) on the JDK's
# java.base and on real jars from Debian, then the whole `lockstep check`
# with per-phase times and peak memory. Figures go to BENCHMARKS.md.
# Needs: a release build (built here), /usr/bin/time, and the Debian jars
# (scripts/install-corpora.sh installs them).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet -p lockstep --manifest-path "$root/Cargo.toml" || exit 2
bin="$root/target/release/lockstep"
jdk17=/usr/lib/jvm/java-17-openjdk-amd64
echo "# machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)"
run() { echo; echo "\$ lockstep $*"; /usr/bin/time -f "wall %e s, peak RSS %M KB" "$bin" "$@"; }
run debug lower --validate "$jdk17/jmods/java.base.jmod"
for jdk in /usr/lib/jvm/temurin-25-jdk-amd64; do
  [ -f "$jdk/lib/modules" ] && run debug lower "$jdk/lib/modules"
done
for jar in /usr/share/java/jfreechart.jar /usr/share/java/log4j-1.2.jar /usr/share/java/commons-pool.jar \
           /usr/share/java/h2.jar /usr/share/tuxguitar/lib/tuxguitar-lib.jar; do
  [ -f "$jar" ] || { echo "(missing $jar)"; continue; }
  run debug lower "$jar"
  run check --stats -q "$jar" > /dev/null
done
# The race and atomicity rules: points-to, the race facts, and the
# atomicity inference (`atomicity time:` line of --stats).
for spec in "/usr/share/java/commons-pool.jar --open" /usr/share/java/jgroups.jar /usr/share/java/h2.jar; do
  set -- $spec
  [ -f "$1" ] || { echo "(missing $1)"; continue; }
  run check --stats -q --select data-race,non-atomic-method "$@" > /dev/null
done
# Program shapes (issue 20 point 6): cost must follow the size of the
# program along each dimension (scripts/gen-shapes.sh), all rules on.
shapes=$(mktemp -d)
trap 'rm -rf "$shapes"' EXIT
if "$root/scripts/gen-shapes.sh" "$shapes" > /dev/null; then
  for dir in "$shapes"/*/classes; do
    run check --stats -q --select all "$dir" > /dev/null
  done
else
  echo "(shapes not generated: javac failed)"
fi
