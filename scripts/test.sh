#!/usr/bin/env bash
# The test command of README.md: installs what the tests need beyond the
# machine's preinstalled tools (Debian's Maven plugins for the Maven recipe
# test; nothing when already installed), then runs the whole test suite.
# Extra arguments go to `cargo test`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-test-deps.sh"
cd "$root"
exec cargo test --workspace "$@"
