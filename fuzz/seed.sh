#!/usr/bin/env bash
# Seeds fuzz/corpus/parse_class with ~50 real class files: a spread of
# java.base classes from the JDK 17 jmod, the javac-compiled test fixtures,
# and the malformed-input regression files. The corpus is not committed.
set -euo pipefail
cd "$(dirname "$0")"
JMOD=${JMOD:-/usr/lib/jvm/java-17-openjdk-amd64/jmods/java.base.jmod}
OUT=corpus/parse_class
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A jmod is a 4-byte header followed by a zip; Python's zipfile copes with
# the prefix. Take a deterministic spread: small, large, switch-heavy,
# lambda-heavy, records, annotations, module-info.
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

# The javac fixtures used by the tests.
if command -v javac >/dev/null; then
    javac -g -nowarn --release 17 -d "$tmp/classes" ../crates/lockstep_classfile/tests/fixtures/fx/*.java
    n=0
    for f in "$tmp"/classes/fx/*.class; do
        cp "$f" "$OUT/fixture-$(basename "$f" .class)"
        n=$((n + 1))
    done
    echo "$n fixture classes"
fi

# Regression inputs (crashers found earlier, hand-made malformed files).
if compgen -G "../crates/lockstep_classfile/tests/malformed/*" >/dev/null; then
    cp ../crates/lockstep_classfile/tests/malformed/* "$OUT/"
fi
echo "corpus: $(ls "$OUT" | wc -l) files in fuzz/$OUT"
