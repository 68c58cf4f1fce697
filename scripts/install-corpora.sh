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
# The twelve libraries added to the deadlock population in session 39
# (docs/deadlock-sample.md, "Session 39"; scripts/deadlock-population.sh).
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
  libjmdns-java libhttpcore-java libmongodb-java libhibernate3-java \
  libshiro-java libspring-context-java libcommons-net-java libjcifs-java \
  libmaven-resolver-java libcommons-lang3-java libantlr-java libdom4j-java \
  libgeronimo-jpa-2.0-spec-java libgeronimo-jta-1.2-spec-java \
  libhibernate-commons-annotations-java libcglib-java
