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

component=control-plane
# shellcheck source=go-build.sh
source "$here/go-build.sh"

check_pins() {
  grep -q "k8s.io/kubernetes ${K8S_VERSION}\( // indirect\)\?$" "$here/kube/go.mod" ||
    fail "kube/go.mod does not require k8s.io/kubernetes ${K8S_VERSION} (versions.env); run tools/control-plane/gen-modules.sh"
  grep -q "go.etcd.io/etcd/server/v3 ${ETCD_VERSION}\( // indirect\)\?$" "$here/etcd/go.mod" ||
    fail "etcd/go.mod does not require etcd ${ETCD_VERSION} (versions.env); run tools/control-plane/gen-modules.sh"
  grep -q "helm.sh/helm/v4 ${HELM_VERSION}\( // indirect\)\?$" "$here/helm/go.mod" ||
    fail "helm/go.mod does not require helm ${HELM_VERSION} (versions.env); run tools/control-plane/gen-modules.sh"
}

check_pins
command -v go >/dev/null || fail "Go is not installed (need Go >= 1.26)"

helm_ldflags="-s -w -X helm.sh/helm/v4/internal/version.version=${HELM_VERSION}"

build_entry "etcd ${ETCD_VERSION}" "$here/etcd" "etcd-${ETCD_VERSION}" "-s -w" .
build_entry "helm ${HELM_VERSION}" "$here/helm" "helm-${HELM_VERSION}" "$helm_ldflags" helm.sh/helm/v4/cmd/helm
build_entry "kubernetes ${K8S_VERSION} (kube-apiserver, kube-controller-manager, kubectl)" "$here/kube" "k8s-${K8S_VERSION}" "$(k8s_ldflags "$K8S_VERSION")" \
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
