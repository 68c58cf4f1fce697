#!/usr/bin/env bash
# Compile the bundled example (examples/inventory) with javac and run
# `lockstep check` on its classes. Extra arguments go to `lockstep check`,
# e.g. `scripts/run-example.sh --format json`. Without `--select`, every rule
# family runs (the opt-in ones too), so the example shows what lockstep finds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/target/example-classes/inventory"
rm -rf "$out" && mkdir -p "$out"
javac -g -d "$out" $(find "$root/examples/inventory/src" -name '*.java' | sort)
cargo build --release --quiet -p lockstep --manifest-path "$root/Cargo.toml"
select=(--select reacquired-lock,stale-value,data-race,non-atomic-method)
for a in "$@"; do
  case "$a" in --select|--select=*) select=() ;; esac
done
status=0
"$root/target/release/lockstep" check "${select[@]}" "$@" "$out" || status=$?
# Exit code 1 means "findings were reported", which is the point of the example.
if [ "$status" -eq 1 ]; then exit 0; fi
exit "$status"
