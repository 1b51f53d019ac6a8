#!/usr/bin/env bash
# Pins a controller chart to a released image before `helm package` (.github/workflows/release.yml):
# Chart.yaml's version and appVersion become <version>; values.yaml's image block gets
# repository <repository>, tag <version> and digest <digest>, so the chart pulls the image by
# digest (steward-common renders repository@digest when image.digest is set). Then checks that
# `helm template` renders exactly that reference and nothing else for the controller container.
# Edits the chart in place: run it on a checkout made for packaging.
#
# Usage: pin-chart.sh <chart dir> <version> <repository> <sha256:digest>
#   helm: $STEWARD_HELM_BIN, else helm on PATH.
set -euo pipefail
(($# == 4)) || { echo "usage: pin-chart.sh <chart dir> <version> <repository> <sha256:digest>" >&2; exit 2; }
chart="$1" version="$2" repository="$3" digest="$4"
fail() { echo "pin-chart: $*" >&2; exit 1; }
[[ -f "$chart/Chart.yaml" && -f "$chart/values.yaml" ]] || fail "$chart is not a chart (no Chart.yaml and values.yaml)"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || fail "version $version is not semver (x.y.z[-pre])"
[[ "$digest" =~ ^sha256:[a-f0-9]{64}$ ]] || fail "digest $digest is not sha256:<64 hex>"
[[ "$repository" =~ ^[a-z0-9][a-z0-9.:/_-]*$ && "$repository" != *@* ]] || fail "repository $repository is not an image repository"
helm="${STEWARD_HELM_BIN:-$(command -v helm || true)}"
[[ -n "$helm" && -x "$helm" ]] || fail "helm not found (set STEWARD_HELM_BIN or put helm on PATH)"

# replace <file> <awk program>: rewrites the file through awk, failing when nothing changed.
rewrite() {
  local file="$1" program="$2" out
  out="$(awk -v version="$version" -v repository="$repository" -v digest="$digest" "$program" "$file")"
  [[ "$out" != "$(cat "$file")" ]] || fail "nothing to pin in $file (was it pinned already, or is its layout new?)"
  printf '%s\n' "$out" >"$file"
}

rewrite "$chart/Chart.yaml" '
  /^version:/ { print "version: " version; n++; next }
  /^appVersion:/ { print "appVersion: \x27" version "\x27"; n++; next }
  { print }
  END { if (n != 2) exit 1 }'

# Only the top-level image block: from "image:" to the next top-level key.
# shellcheck disable=SC2016 # $0 is awk's, not the shell's
rewrite "$chart/values.yaml" '
  /^[^ #]/ { in_image = ($0 == "image:") }
  in_image && /^  repository:/ { print "  repository: " repository; n++; next }
  in_image && /^  tag:/ { print "  tag: \x27" version "\x27"; n++; next }
  in_image && /^  digest:/ { print "  digest: \x27" digest "\x27"; n++; next }
  { print }
  END { if (n != 3) exit 1 }'

name="$(awk '/^name:/ { print $2; exit }' "$chart/Chart.yaml")"
want="$repository@$digest"
rendered="$("$helm" template pin-check "$chart" --namespace pin-check)" || fail "helm template $chart failed"
mapfile -t images < <(awk '/^ *image: / { gsub(/"/, "", $2); print $2 }' <<<"$rendered" | sort -u)
[[ "${images[*]}" == "$want" ]] || fail "$name renders image(s) '${images[*]}', expected exactly $want"
grep -q "^version: $version\$" "$chart/Chart.yaml" || fail "Chart.yaml version is not $version"
echo "pin-chart: $name $version -> $want"
