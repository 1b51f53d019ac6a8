#!/usr/bin/env bash
# Builds tools/otel-collector — an OpenTelemetry Collector of exactly the components the project
# uses (otlp receiver, batch processor, prometheus, file and debug exporters; main.go), every module
# at the one collector release go.mod pins — and caches it outside the repository, next to the
# control plane:
#
#   ${STEWARD_CACHE:-~/.cache/steward}/otelcol-<hash>/bin/otel-collector
#
# keyed by the hash of the module (go.mod, go.sum, main.go: stamp_of in
# tools/control-plane/go-build.sh); libs/testing-backends' otelCollectorBinary() computes the same hash.
# Cold: a few minutes on 2 cores (the Prometheus exporter brings much of Prometheus); warm: well
# under a second. A failed build names its log file. Concurrent runs serialise on a lock per entry.
#
# go.sum was made with `go mod tidy -e`: the file exporter's own tests import a module the proxy
# does not serve at this release (extension/encoding/otlpencodingextension), which the build never
# needs.
#
# Usage: build.sh [--print-env]   (--print-env prints STEWARD_OTELCOL_BIN=path for eval)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cp_dir="$here/../control-plane"
cache="${STEWARD_CACHE:-$HOME/.cache/steward}"
print_env=false
[[ "${1:-}" == "--print-env" ]] && print_env=true
component=otel-collector
# shellcheck source=../control-plane/go-build.sh
source "$cp_dir/go-build.sh"

command -v go >/dev/null || fail "Go is not installed (need Go >= 1.26)"
release="$(awk '$1 == "go.opentelemetry.io/collector/otelcol" { print $2 }' "$here/go.mod")"
[[ -n "$release" ]] || fail "tools/otel-collector/go.mod does not require go.opentelemetry.io/collector/otelcol"

entry="otelcol-$(stamp_of "$here" | cut -c1-16)"
build_entry "OpenTelemetry Collector ${release}" "$here" "$entry" "-s -w" .
[[ -x "$cache/$entry/bin/otel-collector" ]] || fail "otel-collector binary missing from $cache/$entry/bin"

if $print_env; then
  echo "STEWARD_OTELCOL_BIN=$cache/$entry/bin/otel-collector"
fi
