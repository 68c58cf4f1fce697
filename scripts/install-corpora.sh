#!/usr/bin/env bash
# Installs the real Java programs from Debian used by the benchmarks and
# the measurements in BENCHMARKS.md and docs/ (not needed by the tests).
set -euo pipefail
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
  libjfreechart-java liblog4j1.2-java libcommons-pool-java tuxguitar \
  libjgroups-java libh2-java libjetty9-java findbugs libhsqldb-java time \
  libtomcat9-java libxalan2-java libguava-java libnetty-java
# The deadlock population (docs/deadlock-sample.md, scripts/check-known-findings.py).
# commons-configuration's manifest Class-Path names commons-beanutils and
# commons-digester: without them the classes that need them are left out
# and deadlock #39 is not reported (session 23, "Locks no other thread can
# hold"), so they are installed with it.
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
  libcommons-configuration-java libcommons-lang-java libcommons-logging-java \
  libcommons-beanutils-java libcommons-digester-java \
  libcommons-collections3-java velocity libc3p0-java libcommons-dbcp-java
# The twelve libraries added to the deadlock population in session 24
# (docs/deadlock-sample.md, "Twelve more programs"; scripts/deadlock-population.sh).
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
  libderby-java liblogback-java liblog4j2-java libcommons-pool2-java \
  libcommons-dbcp2-java libhikaricp-java libehcache-java libjsch-java \
  libmariadb-java libpostgresql-jdbc-java libactivemq-java libjtds-java libslf4j-java
