#!/usr/bin/env bash
# Runs Debian's FindBugs, restricted to the MT_CORRECTNESS category, on the
# real jars used for lockstep's data-race comparison
# (docs/findbugs-comparison.md) and prints, per jar set: wall time, CPU time
# (user+sys), peak RSS, MT warnings in total and per bug pattern. FindBugs
# runs with -low so the XML holds every priority; the counts are given as
# "medium+/all", medium+ being what FindBugs reports by default (priority
# 1-2) and all including the low-priority (3) warnings.
#
#   scripts/findbugs-compare.sh [JAR-SET...]     (default: all sets)
#   JAR-SET: commons-pool log4j jfreechart jgroups hsqldb h2 jetty9
#
# Environment:
#   OUT=/tmp/findbugs-compare   work dir (XML reports, logs, stripped jars)
#   EFFORT=default              FindBugs -effort: min | default | max
#   FB_HEAP_MB=4096             FindBugs -maxHeap (its wrapper defaults to 768)
#
# Per set it writes $OUT/<set>-<effort>.xml (FindBugs -xml:withMessages),
# .log (stdout+stderr), .time (/usr/bin/time -v) and .txt (one line per
# warning, tab-separated: pattern, priority, class, field or method, short
# and long message). The "load" column is the 1-minute load average after the
# run: other work on the machine inflates the wall time.
#
# FindBugs 3.1.0~preview2 runs on Java 17 here, and it cannot read the JDK
# itself: it looks for $JAVA_HOME/jrt-fs.jar (not lib/) and so finds no
# java/lang/Object, and its ASM visitors reject the NestHost / NestMembers /
# Record / PermittedSubclasses attributes of Java 11+ class files ("NestMember
# requires ASM7"). So the script builds a copy of the JDK's java.* (and a few
# jdk.*) classes from the jmods with those attributes dropped and passes it as
# auxclasspath, and likewise analyses stripped copies of application jars
# whose class files are newer than Java 8 (h2: 55, hsqldb: 61). Dropping the
# attributes only loses the nest-based private-access relation, which this
# FindBugs predates and never uses. The copies are cached in $OUT (delete
# them to rebuild). Needs: findbugs, python3, /usr/bin/time (see
# scripts/install-corpora.sh) and the jmods of openjdk-17-jdk-headless.
set -euo pipefail

OUT=${OUT:-/tmp/findbugs-compare}
EFFORT=${EFFORT:-default}
FB_HEAP_MB=${FB_HEAP_MB:-4096}
SHARE=/usr/share/java
JMODS=${JMODS:-/usr/lib/jvm/java-17-openjdk-amd64/jmods}
ALL_SETS=(commons-pool log4j jfreechart jgroups hsqldb h2 jetty9 guava)

# Application jars of a set.
app_jars() {
  case $1 in
    commons-pool) echo commons-pool.jar ;;
    log4j) echo log4j-1.2.jar ;;
    jfreechart) echo jfreechart.jar ;;
    jgroups) echo jgroups.jar ;;
    hsqldb) echo hsqldb.jar ;;
    h2) echo h2.jar ;;
    jetty9) echo jetty9-server.jar jetty9-util.jar jetty9-io.jar jetty9-http.jar ;;
    guava) echo guava.jar ;;
    *) echo "unknown jar set: $1" >&2; return 1 ;;
  esac
}

# Dependencies from /usr/share/java (those that are absent are skipped;
# FindBugs then reports them as missing classes, which is fine).
aux_jars() {
  case $1 in
    commons-pool) ;;
    log4j) echo mail.jar activation.jar geronimo-jms_1.1_spec.jar ;;
    jfreechart) echo jcommon.jar servlet-api.jar ;;
    jgroups) echo log4j-1.2.jar commons-logging.jar bsh.jar ;;
    hsqldb) echo servlet-api.jar hsqldbutil.jar ;;
    h2) echo slf4j-api.jar servlet-api.jar lucene-core.jar ;;
    jetty9) echo servlet-api.jar jetty9-jmx.jar jetty9-xml.jar \
                 jetty9-alpn-api.jar slf4j-api.jar ;;
    guava) echo jsr305.jar error_prone_annotations.jar ;;
  esac
}

mkdir -p "$OUT"
FILTER=$OUT/mt-filter.xml
cat >"$FILTER" <<'EOF'
<FindBugsFilter><Match><Bug category="MT_CORRECTNESS"/></Match></FindBugsFilter>
EOF

# Shared Python helpers: class-file attribute stripping and report summary.
PYLIB=$OUT/fbcompare.py
cat >"$PYLIB" <<'EOF'
import collections, os, struct, sys, zipfile
import xml.etree.ElementTree as ET

DROP = {b"NestHost", b"NestMembers", b"Record", b"PermittedSubclasses"}
CP_SIZE = {3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4,
           15: 3, 16: 2, 17: 4, 18: 4, 19: 2, 20: 2}

def strip_class(b):
    """Class-file bytes without the class-level attributes in DROP."""
    count, utf8, i, k = struct.unpack_from(">H", b, 8)[0], {}, 1, 10
    while i < count:                                   # constant pool
        tag = b[k]
        if tag == 1:
            n = struct.unpack_from(">H", b, k + 1)[0]
            utf8[i] = b[k + 3:k + 3 + n]
            k += 3 + n
        else:
            k += 1 + CP_SIZE[tag]
        i += 2 if tag in (5, 6) else 1
    k += 6                                             # access, this, super
    k += 2 + 2 * struct.unpack_from(">H", b, k)[0]     # interfaces
    for _ in range(2):                                 # fields, methods
        n = struct.unpack_from(">H", b, k)[0]
        k += 2
        for _ in range(n):
            attrs = struct.unpack_from(">H", b, k + 6)[0]
            k += 8
            for _ in range(attrs):
                k += 6 + struct.unpack_from(">I", b, k + 2)[0]
    n, start = struct.unpack_from(">H", b, k)[0], k
    k, kept = k + 2, []
    for _ in range(n):                                 # class attributes
        name, length = struct.unpack_from(">HI", b, k)
        if utf8[name] not in DROP:
            kept.append(b[k:k + 6 + length])
        k += 6 + length
    return b[:start] + struct.pack(">H", len(kept)) + b"".join(kept)

def max_major(jar):
    with zipfile.ZipFile(jar) as z:
        return max((struct.unpack(">H", z.open(n).read(8)[6:8])[0]
                    for n in z.namelist() if n.endswith(".class")), default=0)

def strip_jars(out, *inputs):
    """Writes the stripped .class entries of the jars/jmods to out."""
    tmp = out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as w:
        for src in inputs:
            with zipfile.ZipFile(src) as z:            # jmods: 4-byte header
                for n in z.namelist():
                    name = n[len("classes/"):] if src.endswith(".jmod") else n
                    if (not name.endswith(".class") or name.startswith("META-INF/")
                            or name.endswith("module-info.class")
                            or (src.endswith(".jmod") and not n.startswith("classes/"))):
                        continue
                    w.writestr(name, strip_class(z.read(n)))
    os.replace(tmp, out)

def summary(xml, txt):
    """Prints 'shown all missing errors PATTERN=shown/all...' (shown: the
    high and medium priority warnings FindBugs reports by default, all: with
    -low); writes one line per warning to txt."""
    root = ET.parse(xml).getroot()
    bugs = [b for b in root.iter("BugInstance") if b.get("category") == "MT_CORRECTNESS"]
    shown = [b for b in bugs if int(b.get("priority")) <= 2]
    counts = collections.Counter(b.get("type") for b in bugs)
    counts_shown = collections.Counter(b.get("type") for b in shown)
    with open(txt, "w") as f:
        for b in sorted(bugs, key=lambda b: (b.get("priority"), b.get("type"),
                                            b.find("Class").get("classname"))):
            field = b.find("Field")
            where = (field.get("name") if field is not None
                     else (b.find("Method").get("name") + "()" if b.find("Method") is not None else "-"))
            msg = (b.findtext("ShortMessage") or "").strip()
            long_msg = (b.findtext("LongMessage") or "").strip()
            f.write("\t".join([b.get("type"), "p%s" % b.get("priority"),
                               b.find("Class").get("classname"), where, msg, long_msg]) + "\n")
    errors = root.find("Errors")
    missing = errors.get("missingClasses", "0") if errors is not None else "?"
    nerr = errors.get("errors", "0") if errors is not None else "?"
    print(len(shown), len(bugs), missing, nerr,
          " ".join("%s=%d/%d" % (t, counts_shown[t], n)
                   for t, n in sorted(counts.items(), key=lambda kv: (-counts_shown[kv[0]], -kv[1], kv[0]))))

if __name__ == "__main__":
    result = globals()[sys.argv[1]](*sys.argv[2:])
    if result is not None:
        print(result)
EOF
py() { python3 "$PYLIB" "$@"; }

# Stripped JDK classes (built once).
JDK_JAR=$OUT/jdk17-stripped.jar
if [[ ! -s $JDK_JAR ]]; then
  [[ -e $JMODS/java.base.jmod ]] || { echo "no $JMODS/java.base.jmod (set JMODS)" >&2; exit 1; }
  echo "building $JDK_JAR from $JMODS ..." >&2
  py strip_jars "$JDK_JAR" "$JMODS"/java.*.jmod "$JMODS"/jdk.unsupported.jmod \
    "$JMODS"/jdk.management.jmod "$JMODS"/jdk.net.jmod "$JMODS"/jdk.httpserver.jmod
fi

# A jar as FindBugs should see it: itself, or a stripped copy if newer than Java 8.
readable_jar() {
  local jar=$SHARE/$1 major
  major=$(py max_major "$jar")
  [[ $major =~ ^[0-9]+$ ]] || { echo "cannot read class files of $jar" >&2; return 1; }
  if (( major <= 52 )); then echo "$jar"; return; fi
  local copy=$OUT/stripped/${1%.jar}.jar
  if [[ ! -s $copy || $copy -ot $jar ]]; then
    mkdir -p "$OUT/stripped"
    py strip_jars "$copy" "$(readlink -f "$jar")"
  fi
  echo "$copy"
}

run_set() {
  local set=$1 base=$OUT/$1-$EFFORT jars=() aux=$JDK_JAR j rc
  for j in $(app_jars "$set"); do jars+=("$(readable_jar "$j")"); done
  for j in $(aux_jars "$set"); do
    if [[ -e $SHARE/$j ]]; then aux+=:$(readable_jar "$j"); fi
  done
  rm -f "$base.xml"
  set +e
  /usr/bin/time -v -o "$base.time" findbugs -textui -maxHeap "$FB_HEAP_MB" -low \
    -property java.awt.headless=true -effort:"$EFFORT" -include "$FILTER" \
    -auxclasspath "$aux" -xml:withMessages -output "$base.xml" "${jars[@]}" \
    >"$base.log" 2>&1
  rc=$?
  set -e
  if [[ ! -s $base.xml ]]; then
    printf '%-13s FAILED (exit %s), see %s\n' "$set" "$rc" "$base.log"
    return
  fi
  local wall cpu rss shown total missing errors patterns load
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$base.time")
  cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.1f", s }' "$base.time")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$base.time")
  read -r shown total missing errors patterns < <(py summary "$base.xml" "$base.txt")
  load=$(cut -d' ' -f1 /proc/loadavg)
  printf '%-13s %8s %7s %7d MiB %4d/%-4d %7s %6s %5s  %s\n' "$set" "$wall" "$cpu" $((rss / 1024)) \
    "$shown" "$total" "$missing" "$errors" "$load" "${patterns:--}"
}

sets=("$@")
(( ${#sets[@]} )) || sets=("${ALL_SETS[@]}")
for s in "${sets[@]}"; do app_jars "$s" >/dev/null; done   # unknown set: exit
echo "FindBugs $(findbugs -version 2>/dev/null | tail -1), effort $EFFORT, heap ${FB_HEAP_MB}m, $(nproc) cores, out $OUT"
printf '%-13s %8s %7s %11s %9s %7s %6s %5s  %s\n' set wall cpu-s peak-RSS MT missing errors load "per pattern (medium+/all)"
for s in "${sets[@]}"; do run_set "$s"; done
