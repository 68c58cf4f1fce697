#!/usr/bin/env bash
# Runs `--select deadlock` on the programs of the deadlock population
# (docs/deadlock-sample.md) and prints the number of findings per program.
# Needs the Debian packages of scripts/install-corpora.sh.
# usage: scripts/deadlock-population.sh [BIN] [OUTDIR]
set -uo pipefail
BIN=${1:-target/release/lockstep}
OUT=${2:-target/deadlock-population}
J=/usr/share/java
mkdir -p "$OUT"
run() {
  local name=$1
  shift
  "$BIN" check "$@" --select deadlock --format json -o "$OUT/$name.json" 2>"$OUT/$name.err"
  local rc=$?
  # 0: no findings, 1: findings; anything else is a failed run.
  if [ "$rc" -gt 1 ]; then
    echo "$name: lockstep failed (exit $rc), see $OUT/$name.err" >&2
  fi
}
TC=$(ls $J/tomcat9-*.jar | grep -v -- '-[0-9]' | grep -v -e catalina.jar -e coyote.jar -e util.jar | paste -sd:)
# The earlier eleven runs.
run hsqldb $J/hsqldb.jar
run h2 $J/h2.jar
run jgroups $J/jgroups.jar
run log4j $J/log4j-1.2.jar --open
run pool $J/commons-pool.jar --open
run tomcat $J/tomcat9-catalina.jar $J/tomcat9-coyote.jar $J/tomcat9-util.jar --open -cp "$TC"
run velocity $J/velocity.jar --open -cp $J/commons-lang.jar:$J/commons-collections3.jar
run config $J/commons-configuration.jar --open -cp $J/commons-lang.jar:$J/commons-logging.jar
run findbugs $J/findbugs.jar --open -cp $J/bcel.jar:$J/asm-all.jar
run c3p0 $J/c3p0.jar --open
run dbcp $J/commons-dbcp.jar --open -cp $J/commons-pool.jar
# The twelve libraries added in session 24.
run derby $J/derby.jar --open
run derbyclient $J/derbyclient.jar --open
run logback $J/logback-core.jar $J/logback-classic.jar --open -cp $J/slf4j-api.jar
run log4j2 $J/log4j-core.jar --open -cp $J/log4j-api.jar
run pool2 $J/commons-pool2.jar --open
run dbcp2 $J/commons-dbcp2.jar --open -cp $J/commons-pool2.jar:$J/commons-logging.jar
run hikaricp $J/HikariCP.jar --open -cp $J/slf4j-api.jar
run ehcache $J/ehcache-core.jar --open -cp $J/slf4j-api.jar
run jsch $J/jsch.jar --open
run mariadb $J/mariadb-java-client.jar --open
run postgresql $J/postgresql.jar --open
run jtds $J/jtds.jar --open
# jetty 9.4's server (issue 17 lists it; added in session 29 with 0
# findings, so the population's figures did not change).
run jetty $J/jetty9-server.jar --open \
  -cp $J/jetty9-util.jar:$J/jetty9-http.jar:$J/jetty9-io.jar:$J/jetty9-jmx.jar:$J/servlet-api.jar
run activemq $J/activemq-client.jar $J/activemq-broker.jar --open \
  -cp "$(ls $J/geronimo-jms*.jar $J/slf4j-api.jar $J/hawtbuf*.jar 2>/dev/null | grep -v -- '-[0-9]' | paste -sd:)"
# The rest of the real programs the project is measured on (the Debian
# packages of scripts/install-corpora.sh), added in session 30 with 0
# findings each, so the population's figures did not change.
run guava $J/guava.jar --open
run netty $J/netty-common.jar $J/netty-buffer.jar $J/netty-transport.jar \
  $J/netty-handler.jar $J/netty-codec.jar $J/netty-codec-http.jar --open
run xalan $J/xalan2.jar --open -cp $J/serializer.jar
run jfreechart $J/jfreechart.jar --open -cp $J/jcommon.jar
run tuxguitar /usr/share/tuxguitar/lib/*.jar
# Twelve more libraries, chosen in session 39 before any of them was run
# (docs/deadlock-sample.md, "Session 39"): every concurrent Debian
# library already on the project's machines that the population lacked
# (pools, cluster messaging, service discovery, NIO, a database driver,
# an ORM, a security framework, an application context, network clients,
# a dependency resolver). Their findings count whatever they are.
run tomcat-jdbc $J/tomcat9-jdbc.jar --open -cp $J/tomcat9-juli.jar
run tomcat-tribes $J/tomcat9-tribes.jar --open -cp "$TC:$J/tomcat9-util.jar"
run catalina-ha $J/tomcat9-catalina-ha.jar --open \
  -cp "$TC:$J/tomcat9-catalina.jar:$J/tomcat9-coyote.jar:$J/tomcat9-util.jar"
run jmdns $J/jmdns.jar --open -cp $J/slf4j-api.jar
run httpcore-nio $J/httpcore-nio.jar $J/httpcore.jar --open
run mongodb $J/mongodb-driver-core.jar $J/bson.jar --open -cp $J/slf4j-api.jar
run hibernate $J/hibernate3.jar --open \
  -cp $J/antlr.jar:$J/commons-collections3.jar:$J/dom4j.jar:$J/geronimo-jpa_2.0_spec.jar:$J/geronimo-jta-1.2-spec.jar:$J/hibernate-commons-annotations.jar:$J/slf4j-api.jar:$J/cglib.jar
run shiro $J/shiro-core.jar --open -cp $J/commons-beanutils.jar:$J/slf4j-api.jar
run spring-context $J/spring3-context.jar --open \
  -cp $J/spring3-core.jar:$J/spring3-beans.jar:$J/spring3-aop.jar:$J/spring3-expression.jar:$J/commons-logging.jar
run commons-net $J/commons-net.jar --open
run jcifs $J/jcifs.jar --open
run maven-resolver $J/maven-resolver-impl.jar --open \
  -cp $J/maven-resolver-api.jar:$J/maven-resolver-spi.jar:$J/maven-resolver-util.jar:$J/commons-lang3.jar:$J/slf4j-api.jar
total=0
for f in "$OUT"/*.json; do
  n=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for x in d['findings'] if x['rule']=='deadlock'))" "$f")
  echo "$(basename "$f" .json) $n"
  total=$((total + n))
done
echo "total $total"
