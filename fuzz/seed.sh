#!/usr/bin/env bash
# Seeds fuzz/corpus/<target> for the fuzz targets named on the command line
# (default: all of them). The corpus is not committed.
#
#   parse_class, lower_class  ~50 java.base classes from the JDK 17 jmod, the
#                             javac-compiled parser and IR test fixtures, and
#                             the malformed-input regression files
#   jimage                    small synthetic runtime images (seed_jimage.py)
#                             and the first 64 KiB of the JDK's lib/modules
#   read_jar                  small jars/jmods made with the JDK's jar/jmod
#                             tools, plus a few odd zips (prefix, empty,
#                             duplicate entry, multi-release)
set -euo pipefail
cd "$(dirname "$0")"
JDK=${JDK:-/usr/lib/jvm/java-17-openjdk-amd64}
JMOD=${JMOD:-$JDK/jmods/java.base.jmod}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

seed_classes() {
    local OUT=$1
    mkdir -p "$OUT"
    # A jmod is a 4-byte header followed by a zip; Python's zipfile copes
    # with the prefix. Take a deterministic spread: small, large,
    # switch-heavy, lambda-heavy, records, annotations, module-info.
    python3 - "$JMOD" "$OUT" <<'PY'
import sys, zipfile, hashlib, os
jmod, out = sys.argv[1], sys.argv[2]
z = zipfile.ZipFile(jmod)
names = sorted(n for n in z.namelist() if n.endswith('.class'))
wanted = [
    'classes/module-info.class',
    'classes/java/lang/Object.class',
    'classes/java/lang/String.class',
    'classes/java/lang/Character.class',
    'classes/java/lang/Thread.class',
    'classes/java/lang/Record.class',
    'classes/java/lang/annotation/Retention.class',
    'classes/java/lang/invoke/MethodHandleImpl.class',
    'classes/java/util/HashMap.class',
    'classes/java/util/concurrent/ConcurrentHashMap.class',
    'classes/java/util/concurrent/locks/ReentrantLock.class',
    'classes/java/util/regex/Pattern.class',
    'classes/sun/invoke/util/Wrapper.class',
]
# Plus every 200th class, and the smallest few.
wanted += names[::200]
wanted += sorted(names, key=lambda n: z.getinfo(n).file_size)[:5]
seen = set()
for n in wanted:
    if n in seen or n not in names:
        continue
    seen.add(n)
    data = z.read(n)
    with open(os.path.join(out, 'jdk-' + hashlib.sha1(data).hexdigest()[:16]), 'wb') as f:
        f.write(data)
print(f'{len(seen)} classes from {jmod}')
PY

    if command -v javac >/dev/null; then
        # The javac fixtures used by the parser's tests...
        rm -rf "$tmp/classes"
        javac -g -nowarn --release 17 -d "$tmp/classes" ../crates/lockstep_classfile/tests/fixtures/fx/*.java
        local n=0 f
        for f in "$tmp"/classes/fx/*.class; do
            cp "$f" "$OUT/fixture-$(basename "$f" .class)"
            n=$((n + 1))
        done
        # ...and the IR's (monitors, access paths, lambdas, control flow).
        rm -rf "$tmp/irclasses"
        javac -g -nowarn --release 17 -d "$tmp/irclasses" ../crates/lockstep_ir/tests/fixtures/*.java
        for f in "$tmp"/irclasses/*.class; do
            cp "$f" "$OUT/ir-fixture-$(basename "$f" .class)"
            n=$((n + 1))
        done
        echo "$n fixture classes"
    fi

    # Regression inputs (crashers found earlier, hand-made malformed files).
    if compgen -G "../crates/lockstep_classfile/tests/malformed/*" >/dev/null; then
        cp ../crates/lockstep_classfile/tests/malformed/* "$OUT/"
    fi
    if compgen -G "../crates/lockstep_ir/tests/malformed/*" >/dev/null; then
        cp ../crates/lockstep_ir/tests/malformed/* "$OUT/"
    fi
}

seed_jimage() {
    local OUT=$1
    mkdir -p "$OUT"
    python3 seed_jimage.py "$OUT" "$JMOD"
    # A real image's first 64 KiB: a real header and the start of its
    # tables. On its own it is rejected as truncated (the index of JDK 17's
    # image is 1.49 MB), but it hands libFuzzer real location streams and
    # redirect values to splice into the synthetic seeds.
    if [ -f "$JDK/lib/modules" ]; then
        head -c 65536 "$JDK/lib/modules" >"$OUT/jdk-modules-64k"
    fi
    if compgen -G "../crates/lockstep_classpath/tests/malformed/jimage/*" >/dev/null; then
        cp ../crates/lockstep_classpath/tests/malformed/jimage/* "$OUT/"
    fi
}

seed_jars() {
    mkdir -p "$1"
    local OUT
    OUT=$(cd "$1" && pwd)
    local src=$tmp/jarsrc cls=$tmp/jarclasses
    rm -rf "$src" "$cls"
    mkdir -p "$src/p" "$src/q"
    cat >"$src/p/A.java" <<'JAVA'
package p;
public class A {
    private final Object lock = new Object();
    private int n;
    public void inc() { synchronized (lock) { n++; } }
    public synchronized int get() { return n; }
}
JAVA
    cat >"$src/q/B.java" <<'JAVA'
package q;
public class B implements Runnable {
    static volatile boolean done;
    public void run() { Runnable r = () -> done = true; r.run(); }
}
JAVA
    cat >"$src/module-info.java" <<'JAVA'
module m { exports p; exports q; }
JAVA
    javac -g -nowarn --release 17 -d "$cls" "$src"/module-info.java "$src"/p/A.java "$src"/q/B.java
    echo 'x' >"$cls/p/data.txt"
    (
        cd "$cls"
        jar --create --file "$OUT/jar-deflated" p/A.class q/B.class p/data.txt
        jar --create --no-compress --file "$OUT/jar-stored" p/A.class q/B.class
        jar --create --no-manifest --file "$OUT/jar-one-class" p/A.class
    )
    jmod create --class-path "$cls" "$tmp/m.jmod"
    cp "$tmp/m.jmod" "$OUT/jmod-m"
    # A "fully executable" jar: a launch script in front of the zip.
    { printf '#!/bin/sh\nexec java -jar "$0" "$@"\n'; cat "$OUT/jar-stored"; } >"$OUT/jar-with-prefix"
    # An empty zip: only the end-of-central-directory record.
    printf 'PK\005\006\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0' >"$OUT/zip-empty"
    # A duplicate entry (the reader keeps the first), and a multi-release
    # jar (META-INF/versions/** is skipped by the reader).
    python3 - "$cls" "$OUT" <<'PY'
import sys, zipfile, warnings
cls, out = sys.argv[1], sys.argv[2]
warnings.simplefilter('ignore')
with zipfile.ZipFile(f'{out}/zip-duplicate', 'w', zipfile.ZIP_DEFLATED) as z:
    z.write(f'{cls}/p/A.class', 'p/A.class')
    z.write(f'{cls}/q/B.class', 'p/A.class')
    z.writestr('dir/', b'')
with zipfile.ZipFile(f'{out}/jar-multirelease', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('META-INF/MANIFEST.MF', b'Manifest-Version: 1.0\r\nMulti-Release: true\r\n\r\n')
    z.write(f'{cls}/p/A.class', 'p/A.class')
    z.write(f'{cls}/q/B.class', 'META-INF/versions/11/q/B.class')
PY
    if compgen -G "../crates/lockstep_classpath/tests/malformed/jar/*" >/dev/null; then
        cp ../crates/lockstep_classpath/tests/malformed/jar/* "$OUT/"
    fi
}

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(parse_class lower_class jimage read_jar)
for t in "${targets[@]}"; do
    case $t in
        parse_class | lower_class) seed_classes "corpus/$t" ;;
        jimage) seed_jimage "corpus/$t" ;;
        read_jar) seed_jars "corpus/$t" ;;
        *) echo "unknown target $t" >&2; exit 2 ;;
    esac
    echo "corpus: $(ls "corpus/$t" | wc -l) files in fuzz/corpus/$t"
done
