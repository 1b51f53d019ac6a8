#!/usr/bin/env bash
# Builds the control-plane binaries Steward's tests run against — etcd, kube-apiserver,
# kube-controller-manager, kubectl and helm — from Go modules at the versions in versions.env, and
# caches them outside the repository:
#
#   ${STEWARD_CACHE:-~/.cache/steward}/k8s-<version>/bin/{kube-apiserver,kube-controller-manager,kubectl}
#   ${STEWARD_CACHE:-~/.cache/steward}/etcd-<version>/bin/etcd
#   ${STEWARD_CACHE:-~/.cache/steward}/helm-<version>/bin/helm
#
# A cache entry is reused when its stamp (the hash of the wrapper module's go.mod and go.sum)
# matches, so a warm run takes well under a second. A cold run takes 10-20 minutes on 2 cores and
# prints progress every 30 s. A failed step names itself and its log file and exits non-zero.
# Concurrent runs (two suites at once) serialise on a lock per cache entry.
#
# Usage: build.sh [--print-env]   (--print-env prints STEWARD_*_BIN=path lines for eval)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=versions.env
source "$here/versions.env"
cache="${STEWARD_CACHE:-$HOME/.cache/steward}"
print_env=false
[[ "${1:-}" == "--print-env" ]] && print_env=true

say() { if $print_env; then echo "$*" >&2; else echo "$*"; fi; }

fail() { say "control-plane: $*"; exit 1; }

check_pins() {
  grep -q "k8s.io/kubernetes ${K8S_VERSION}\( // indirect\)\?$" "$here/kube/go.mod" ||
    fail "kube/go.mod does not require k8s.io/kubernetes ${K8S_VERSION} (versions.env); run tools/control-plane/gen-modules.sh"
  grep -q "go.etcd.io/etcd/server/v3 ${ETCD_VERSION}\( // indirect\)\?$" "$here/etcd/go.mod" ||
    fail "etcd/go.mod does not require etcd ${ETCD_VERSION} (versions.env); run tools/control-plane/gen-modules.sh"
  grep -q "helm.sh/helm/v4 ${HELM_VERSION}\( // indirect\)\?$" "$here/helm/go.mod" ||
    fail "helm/go.mod does not require helm ${HELM_VERSION} (versions.env); run tools/control-plane/gen-modules.sh"
}

stamp_of() { cat "$here/$1/go.mod" "$here/$1/go.sum" | sha256sum | cut -d' ' -f1; }

# build_entry <step name> <module dir> <cache entry> <ldflags> <packages...>
build_entry() {
  local step="$1" mod="$2" entry="$3" ldflags="$4"; shift 4
  local dest="$cache/$entry" stamp; stamp="$(stamp_of "$mod")"
  mkdir -p "$cache/logs"
  if [[ -f "$dest/.stamp" && "$(cat "$dest/.stamp")" == "$stamp" ]]; then
    say "control-plane: $step cached at $dest"
    return
  fi
  exec 9>"$cache/.$entry.lock"
  flock 9
  if [[ -f "$dest/.stamp" && "$(cat "$dest/.stamp")" == "$stamp" ]]; then
    say "control-plane: $step cached at $dest (built by a concurrent run)"
    exec 9>&-
    return
  fi
  local log="$cache/logs/$entry.log" tmp="$cache/.$entry.tmp.$$" start=$SECONDS
  rm -rf "$tmp" && mkdir -p "$tmp/bin"
  say "control-plane: building $step (cold builds take minutes; log: $log)"
  (
    cd "$here/$mod"
    CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$tmp/bin/" "$@"
  ) >"$log" 2>&1 &
  local pid=$! next_report=$((start + 30))
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if (( SECONDS >= next_report )); then
      say "control-plane: still building $step... $((SECONDS - start))s"
      next_report=$((SECONDS + 30))
    fi
  done
  if ! wait "$pid"; then
    rm -rf "$tmp"
    tail -n 20 "$log" >&2 || true
    fail "step '$step' failed after $((SECONDS - start))s; full log: $log"
  fi
  echo "$stamp" >"$tmp/.stamp"
  rm -rf "$dest" && mv "$tmp" "$dest"
  say "control-plane: built $step in $((SECONDS - start))s -> $dest/bin"
  exec 9>&-
}

check_pins
command -v go >/dev/null || fail "Go is not installed (need Go >= 1.26)"

k8s_minor="${K8S_VERSION#v1.}"; k8s_minor="${k8s_minor%%.*}"
vpkg=k8s.io/component-base/version
k8s_ldflags="-s -w -X ${vpkg}.gitVersion=${K8S_VERSION} -X ${vpkg}.gitMajor=1 -X ${vpkg}.gitMinor=${k8s_minor} -X ${vpkg}.gitTreeState=clean -X ${vpkg}.buildDate=1970-01-01T00:00:00Z"
helm_ldflags="-s -w -X helm.sh/helm/v4/internal/version.version=${HELM_VERSION}"

build_entry "etcd ${ETCD_VERSION}" etcd "etcd-${ETCD_VERSION}" "-s -w" .
build_entry "helm ${HELM_VERSION}" helm "helm-${HELM_VERSION}" "$helm_ldflags" helm.sh/helm/v4/cmd/helm
build_entry "kubernetes ${K8S_VERSION} (kube-apiserver, kube-controller-manager, kubectl)" kube "k8s-${K8S_VERSION}" "$k8s_ldflags" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kubectl

# the etcd wrapper's binary is named after its module directory
[[ -x "$cache/etcd-${ETCD_VERSION}/bin/etcd" ]] || fail "etcd binary missing from $cache/etcd-${ETCD_VERSION}/bin"

if $print_env; then
  echo "STEWARD_ETCD_BIN=$cache/etcd-${ETCD_VERSION}/bin/etcd"
  echo "STEWARD_KUBE_APISERVER_BIN=$cache/k8s-${K8S_VERSION}/bin/kube-apiserver"
  echo "STEWARD_KUBE_CONTROLLER_MANAGER_BIN=$cache/k8s-${K8S_VERSION}/bin/kube-controller-manager"
  echo "STEWARD_KUBECTL_BIN=$cache/k8s-${K8S_VERSION}/bin/kubectl"
  echo "STEWARD_HELM_BIN=$cache/helm-${HELM_VERSION}/bin/helm"
fi
