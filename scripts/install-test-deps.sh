#!/usr/bin/env bash
# Installs the Debian packages the test suite needs beyond Rust and javac:
# Maven and the plugins the README's Maven recipe runs, so the recipe is
# tested offline against Debian's repository (/usr/share/maven-repo)
# (crates/lockstep/tests/cli/maven.rs). Idempotent: does nothing (and
# needs no network) when every package is already installed. Needs root,
# or sudo.
set -euo pipefail

packages=(
    maven
    libmaven-resources-plugin-java
    libmaven-compiler-plugin-java
    libmaven-jar-plugin-java
    libmaven-dependency-plugin-java
    # Debian's plexus-compiler POM imports org.junit:junit-bom, which only
    # junit5 installs; without it maven-compiler-plugin cannot be resolved.
    junit5
    # The example project's dependency.
    libcommons-lang3-java
)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "install-test-deps: all ${#packages[@]} packages already installed"
    exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
    as_root=(sudo)
fi
echo "install-test-deps: installing ${missing[*]}"
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
