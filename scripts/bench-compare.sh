#!/usr/bin/env bash
# lockstep beside FindBugs on the same jars, in one run: CPU (user+sys),
# wall and peak memory of `lockstep check --select all`, closed and
# `--open`, and of FindBugs (MT_CORRECTNESS, as scripts/findbugs-compare.sh
# runs it), then FindBugs' CPU divided by lockstep's. The issue-20 table.
#
#   scripts/bench-compare.sh [--write] [--runs N] [SET...]
#   SET: commons-pool log4j jfreechart jgroups h2 hsqldb guava java.base
#        (default: all; java.base is measured for lockstep only)
#
# lockstep's figures are the minimum CPU of N runs (default 3), its wall
# and memory those of that run; FindBugs runs once (it takes 10-70 s per
# jar). --write appends the table, with machine, load and date, to
# BENCHMARKS.md. FINDBUGS_DIR=DIR takes FindBugs' figures from an earlier
# `OUT=DIR scripts/findbugs-compare.sh` run instead of running it again
# (FindBugs takes 10-80 CPU-s per jar). Other work on the machine inflates wall times; CPU time
# and memory are what to compare. Needs a release build (built here),
# /usr/bin/time, findbugs and the Debian jars (scripts/install-corpora.sh).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
write=0
runs=3
sets=()
while (( $# )); do
  case $1 in
    --write) write=1 ;;
    --runs) shift; runs=$1 ;;
    *) sets+=("$1") ;;
  esac
  shift
done
(( ${#sets[@]} )) || sets=(commons-pool log4j jfreechart jgroups h2 hsqldb guava java.base)
cargo build --release --quiet -p lockstep --manifest-path "$root/Cargo.toml" || exit 2
bin="$root/target/release/lockstep"
share=/usr/share/java
jdk17=/usr/lib/jvm/java-17-openjdk-amd64
out=${OUT:-/tmp/bench-compare}
mkdir -p "$out"

# The application jars and their class path, as lockstep arguments.
lockstep_inputs() {
  case $1 in
    commons-pool) echo "$share/commons-pool.jar" ;;
    log4j) echo "$share/log4j-1.2.jar" ;;
    jfreechart) echo "$share/jfreechart.jar -cp $share/jcommon.jar" ;;
    jgroups) echo "$share/jgroups.jar -cp $share/log4j-1.2.jar" ;;
    h2) echo "$share/h2.jar" ;;
    hsqldb) echo "$share/hsqldb.jar" ;;
    guava) echo "$share/guava.jar" ;;
    java.base) echo "$jdk17/jmods/java.base.jmod --no-jdk" ;;
    *) echo "unknown set: $1" >&2; return 1 ;;
  esac
}

# One lockstep run: prints "cpu wall rss_mib exit".
lockstep_once() {
  local tf=$out/time.txt
  # shellcheck disable=SC2046
  /usr/bin/time -f "%U %S %e %M" -o "$tf" "$bin" check $(lockstep_inputs "$1") "${@:2}" \
    --select all -q --format json -o "$out/$1.json" >/dev/null 2>"$out/$1.err"
  local rc=$?
  tail -n 1 "$tf" | awk -v rc="$rc" '{ printf "%.2f %.2f %d %d\n", $1 + $2, $3, $4 / 1024, rc }'
}

# The best of N lockstep runs by CPU: prints "cpu wall rss_mib exit".
lockstep_best() {
  local best="" i line
  for ((i = 0; i < runs; i++)); do
    line=$(lockstep_once "$@")
    if [[ -z $best ]] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
      best=$line
    fi
  done
  echo "$best"
}

# FindBugs on one set: prints "cpu wall rss_mib" (or "- - -").
findbugs_once() {
  local set=$1
  # FindBugs on java.base takes about five minutes (291 s CPU when last
  # measured): not part of every run.
  if [[ $set == java.base ]]; then echo "- - -"; return; fi
  local dir=${FINDBUGS_DIR:-$out/findbugs}
  if [[ -z ${FINDBUGS_DIR:-} ]]; then
    OUT=$dir "$root/scripts/findbugs-compare.sh" "$set" >"$out/$set.findbugs.log" 2>&1
  fi
  local tf=$dir/$set-default.time
  [[ -s $tf ]] || { echo "- - -"; return; }
  local cpu wall rss
  cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$tf")
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tf")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tf")
  echo "$cpu $wall $((rss / 1024))"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b <= 0) print "-"; else printf "%.1f×", a / b }'; }

header="| set | lockstep CPU s (closed) | wall s | MiB | lockstep CPU s (\`--open\`) | wall s | MiB | FindBugs CPU s | wall | MiB | FindBugs ÷ lockstep (closed / open) |"
rule="| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
table=$(
  echo "$header"
  echo "$rule"
  for s in "${sets[@]}"; do
    lockstep_inputs "$s" >/dev/null || continue
    read -r c_cpu c_wall c_rss c_rc < <(lockstep_best "$s")
    read -r o_cpu o_wall o_rss o_rc < <(lockstep_best "$s" --open)
    read -r f_cpu f_wall f_rss < <(findbugs_once "$s")
    note=""
    (( c_rc > 1 || o_rc > 1 )) && note=" (lockstep exit $c_rc/$o_rc, see $out/$s.err)"
    echo "| $s$note | $c_cpu | $c_wall | $c_rss | $o_cpu | $o_wall | $o_rss | $f_cpu | $f_wall | $f_rss | $(ratio "$f_cpu" "$c_cpu") / $(ratio "$f_cpu" "$o_cpu") |"
  done
)
machine="$(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg) at the end, $(date -u +%Y-%m-%d), commit $(git -C "$root" rev-parse --short HEAD)"
echo "machine: $machine"
echo "$table"
if (( write )); then
  {
    echo
    echo "## lockstep beside FindBugs, every rule ($(date -u +%Y-%m-%d))"
    echo
    echo "\`scripts/bench-compare.sh --write --runs $runs ${sets[*]}\`; $machine."
    echo "lockstep: \`check --select all\`, minimum CPU of $runs runs; FindBugs 3.1 as"
    echo "\`scripts/findbugs-compare.sh\` runs it (MT_CORRECTNESS, one run)."
    echo
    echo "$table"
  } >>"$root/BENCHMARKS.md"
fi
