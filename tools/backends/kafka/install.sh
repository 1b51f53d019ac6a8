#!/usr/bin/env bash
# Installs Apache Kafka (a real broker, run by Steward's tests and `npm start` in KRaft mode) as the
# jars of org.apache.kafka:kafka_2.13 and its runtime dependencies, fetched from Maven Central with
# `mvn dependency:copy-dependencies` into a directory cached outside the repository:
#
#   ${STEWARD_CACHE:-~/.cache/steward}/kafka-<version>/lib/*.jar
#
# <version> is the kafka.version property in pom.xml. The entry is reused when its stamp (the hash
# of pom.xml and of the java and mvn versions) matches, so a warm run takes well under a second. A
# cold run takes tens of seconds and prints progress. A failed step names itself and its log file
# and exits non-zero. Concurrent runs (two suites at once) serialise on a lock. Maven's local
# repository is ${STEWARD_CACHE}/maven, so a fresh machine (CI) needs nothing but java and mvn.
#
# Usage: install.sh [--print-env]   (--print-env prints STEWARD_KAFKA_LIB=dir for eval)
# The JVM is $JAVA_HOME/bin/java when JAVA_HOME is set, else java on PATH; mvn is on PATH.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${STEWARD_CACHE:-$HOME/.cache/steward}"
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
print_env=false
[[ "${1:-}" == "--print-env" ]] && print_env=true
backend=kafka
# shellcheck source=../lib.sh
source "$here/../lib.sh"

pom="$here/pom.xml"
[[ -f "$pom" ]] || fail "missing $pom"
version="$(sed -n 's|.*<kafka.version>\([^<]*\)</kafka.version>.*|\1|p' "$pom")"
[[ -n "$version" ]] || fail "pom.xml sets no <kafka.version>"
command -v "$java" >/dev/null || fail "$java is not installed (need a JDK or JRE >= 17)"
command -v mvn >/dev/null || fail "mvn is not installed (need Apache Maven >= 3.6)"

entry="kafka-$version"
dest="$cache/$entry"
lib="$dest/lib"
java_version="$("$java" -version 2>&1)" || fail "$java does not run"
mvn_version="$(mvn -B -v 2>&1 | sed -n 1p)" || fail "mvn does not run"
stamp="$( { cat "$pom"; echo "$java_version"; echo "$mvn_version"; } | sha256sum | cut -d' ' -f1)"

done_env() {
  if $print_env; then echo "STEWARD_KAFKA_LIB=$lib"; fi
  exit 0
}

is_current() {
  [[ -f "$dest/.stamp" && "$(cat "$dest/.stamp")" == "$stamp" ]] &&
    compgen -G "$lib/kafka_2.13-$version.jar" >/dev/null
}

begin_install "$entry"
partial="$dest.partial"
discard_on_failure="$partial"

say "kafka: installing Apache Kafka $version into $dest (a cold install takes 10-60 s; log: $log)"
# Built beside its destination and moved into place at the end: a half-fetched lib directory is
# never mistaken for a complete one, and the stamp, written last, marks it complete. Maven runs on a
# copy of pom.xml there so that nothing (target/) is written into the repository.
rm -rf "$partial"
mkdir -p "$partial"
cp "$pom" "$partial/pom.xml"
step "mvn dependency:copy-dependencies (kafka_2.13 $version from Maven Central)" \
  mvn -q -B -f "$partial/pom.xml" "-Dmaven.repo.local=$cache/maven" \
  dependency:copy-dependencies -DincludeScope=runtime "-DoutputDirectory=$partial/lib"
step "check the broker's classes load (kafka.tools.StorageTool random-uuid)" \
  "$java" -cp "$partial/lib/*" kafka.tools.StorageTool random-uuid
rm -rf "$dest"
mv "$partial" "$dest"
finish_install "installed Apache Kafka $version ($(ls "$lib" | wc -l) jars) in $((SECONDS - start))s -> $lib"
