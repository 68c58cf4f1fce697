#!/usr/bin/env bash
# Installs the real Java programs from Debian used by the benchmarks and
# the measurements in BENCHMARKS.md and docs/ (not needed by the tests).
set -euo pipefail
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
  libjfreechart-java liblog4j1.2-java libcommons-pool-java tuxguitar \
  libjgroups-java libh2-java libjetty9-java findbugs libhsqldb-java time \
  libtomcat9-java libxalan2-java libguava-java libnetty-java
