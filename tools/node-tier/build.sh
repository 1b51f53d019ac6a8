#!/usr/bin/env bash
# Builds the node tier's binaries and caches them outside the repository, next to the control plane:
#
#   ${STEWARD_CACHE:-~/.cache/steward}/k8s-node-<version>/bin/{kubelet,kube-scheduler,kube-proxy}
#       from the control plane's wrapper module (tools/control-plane/kube: one Kubernetes version)
#   .../containerd-<version>/bin/{containerd,ctr,containerd-shim-runc-v2}   from containerd/ (Go module)
#   .../node-provisioner-<hash>/bin/provisioner    the project's dynamic local-volume provisioner
#   .../node-debs-<hash>/root/usr/{sbin/runc,lib/cni/*,sbin/nft}, bin/nft   Debian packages, unpacked
#   .../kube-network-policies-<version>-<hash>/bin/kube-network-policies   the multi-node tier's
#       NetworkPolicy agent: sigs.k8s.io/kube-network-policies from the Go proxy, patched by
#       network-policies/patch.sh (keyed by the version and the hash of network-policies/)
#
# Go entries are keyed by the hash of their module (go.mod, go.sum, our own sources); the Debian
# entry by the pinned package list in versions.env. Nothing is installed into the system. Cold: a
# few minutes after the control plane (the Go build cache is shared), warm: well under a second.
# A failed step names itself and its log file. Concurrent runs serialise on a lock per entry.
#
# Usage: build.sh [--print-env]   (--print-env prints STEWARD_*=path lines for eval)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cp_dir="$here/../control-plane"
# shellcheck source=versions.env
source "$here/versions.env"
# shellcheck source=../control-plane/versions.env
source "$cp_dir/versions.env"
cache="${STEWARD_CACHE:-$HOME/.cache/steward}"
print_env=false
[[ "${1:-}" == "--print-env" ]] && print_env=true
component=node-tier
# shellcheck source=../control-plane/go-build.sh
source "$cp_dir/go-build.sh"

command -v go >/dev/null || fail "Go is not installed (need Go >= 1.26.6 for containerd ${CONTAINERD_VERSION})"
grep -q "github.com/containerd/containerd/v2 ${CONTAINERD_VERSION}\( // indirect\)\?$" "$here/containerd/go.mod" ||
  fail "containerd/go.mod does not require containerd ${CONTAINERD_VERSION} (versions.env); run tools/node-tier/gen-modules.sh"
grep -q "k8s.io/kubernetes/cmd/kubelet$" "$cp_dir/kube/go.mod" ||
  fail "tools/control-plane/kube/go.mod has no kubelet tool; run tools/control-plane/gen-modules.sh"

build_entry "kubernetes ${K8S_VERSION} node (kubelet, kube-scheduler, kube-proxy)" "$cp_dir/kube" "k8s-node-${K8S_VERSION}" \
  "$(k8s_ldflags "$K8S_VERSION")" k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kube-proxy

cpkg=github.com/containerd/containerd/v2
build_entry "containerd ${CONTAINERD_VERSION}" "$here/containerd" "containerd-${CONTAINERD_VERSION}" \
  "-s -w -X ${cpkg}/version.Version=${CONTAINERD_VERSION} -X ${cpkg}/version.Package=${cpkg}" \
  -tags "no_btrfs no_devmapper no_zfs urfave_cli_no_docs" \
  "${cpkg}/cmd/containerd" "${cpkg}/cmd/ctr" "${cpkg}/cmd/containerd-shim-runc-v2"

provisioner_entry="node-provisioner-$(stamp_of "$here/provisioner" | cut -c1-16)"
build_entry "local-volume provisioner" "$here/provisioner" "$provisioner_entry" "-s -w" .

# ---- kube-network-policies: upstream's module, our patch files applied to a copy, then built ----------
knp_entry="kube-network-policies-${KUBE_NETWORK_POLICIES_VERSION}-$(cat "$here"/network-policies/* | sha256sum | cut -c1-16)"
knp="$cache/$knp_entry"
build_knp() {
  local tmp="$cache/.$knp_entry.tmp.$$" log="$cache/logs/$knp_entry.log" start=$SECONDS dir
  rm -rf "$tmp" && mkdir -p "$tmp/bin"
  say "$component: building kube-network-policies ${KUBE_NETWORK_POLICIES_VERSION} (patched; log: $log)"
  if ! (
    set -e
    dir=$(go mod download -json "sigs.k8s.io/kube-network-policies@${KUBE_NETWORK_POLICIES_VERSION}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
    [[ -d "$dir" ]] || { echo "go mod download gave no module directory" >&2; exit 1; }
    cp -r "$dir" "$tmp/src" && chmod -R u+w "$tmp/src"
    bash "$here/network-policies/patch.sh" "$tmp/src"
    cd "$tmp/src" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/bin/kube-network-policies" ./cmd
  ) >"$log" 2>&1; then
    rm -rf "$tmp"
    tail -n 20 "$log" >&2 || true
    fail "step 'kube-network-policies' failed after $((SECONDS - start))s; full log: $log"
  fi
  rm -rf "$tmp/src"
  echo "$knp_entry" >"$tmp/.stamp"
  rm -rf "$knp" && mv "$tmp" "$knp"
  say "$component: built kube-network-policies in $((SECONDS - start))s -> $knp/bin"
}
if [[ ! -f "$knp/.stamp" ]]; then
  mkdir -p "$cache/logs"
  exec 7>"$cache/.$knp_entry.lock"
  flock 7
  [[ -f "$knp/.stamp" ]] || build_knp
  exec 7>&-
else
  say "$component: kube-network-policies cached at $knp"
fi

# ---- Debian packages: downloaded at the pinned versions and unpacked, never installed ---------------
debs_entry="node-debs-$(echo "$DEBIAN_PACKAGES" | sha256sum | cut -c1-16)"
debs="$cache/$debs_entry"
fetch_debs() {
  local tmp="$cache/.$debs_entry.tmp.$$" log="$cache/logs/$debs_entry.log" pkg
  rm -rf "$tmp" && mkdir -p "$tmp/debs" "$tmp/root" "$tmp/bin"
  say "$component: fetching Debian packages (log: $log)"
  # shellcheck disable=SC2086 # the list is word-split on purpose
  if ! (cd "$tmp/debs" && apt-get download $DEBIAN_PACKAGES) >"$log" 2>&1; then
    # the package lists may be missing or old on a fresh machine: refresh once, then try again
    apt-get update >>"$log" 2>&1 || true
    # shellcheck disable=SC2086
    if ! (cd "$tmp/debs" && apt-get download $DEBIAN_PACKAGES) >>"$log" 2>&1; then
      for pkg in $DEBIAN_PACKAGES; do
        if ! apt-cache show "$pkg" >/dev/null 2>&1; then
          say "$component: Debian does not serve ${pkg} (pinned in tools/node-tier/versions.env); it serves: $(apt-cache madison "${pkg%%=*}" 2>/dev/null | awk '{print $3}' | paste -sd' ')"
        fi
      done
      rm -rf "$tmp"
      fail "step 'Debian packages' failed; full log: $log"
    fi
  fi
  for f in "$tmp"/debs/*.deb; do dpkg-deb -x "$f" "$tmp/root"; done
  # kube-proxy runs `nft` from PATH: a wrapper that finds the unpacked libraries
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$debs/root/usr/lib/x86_64-linux-gnu" "$debs/root/usr/sbin/nft" >"$tmp/bin/nft"
  chmod +x "$tmp/bin/nft"
  rm -rf "$tmp/debs"
  echo "$DEBIAN_PACKAGES" >"$tmp/.stamp"
  rm -rf "$debs" && mv "$tmp" "$debs"
  "$debs/bin/nft" --version >>"$log" 2>&1 || fail "the unpacked nft does not run; log: $log"
  say "$component: Debian packages unpacked -> $debs/root"
}
if [[ ! -f "$debs/.stamp" ]]; then
  mkdir -p "$cache/logs"
  exec 8>"$cache/.$debs_entry.lock"
  flock 8
  [[ -f "$debs/.stamp" ]] || fetch_debs
  exec 8>&-
else
  say "$component: Debian packages cached at $debs"
fi

if $print_env; then
  node="$cache/k8s-node-${K8S_VERSION}/bin" ctrd="$cache/containerd-${CONTAINERD_VERSION}/bin"
  echo "STEWARD_KUBELET_BIN=$node/kubelet"
  echo "STEWARD_KUBE_SCHEDULER_BIN=$node/kube-scheduler"
  echo "STEWARD_KUBE_PROXY_BIN=$node/kube-proxy"
  echo "STEWARD_CONTAINERD_BIN=$ctrd/containerd"
  echo "STEWARD_CTR_BIN=$ctrd/ctr"
  echo "STEWARD_CONTAINERD_SHIM_BIN=$ctrd/containerd-shim-runc-v2"
  echo "STEWARD_PROVISIONER_BIN=$cache/$provisioner_entry/bin/provisioner"
  echo "STEWARD_RUNC_BIN=$debs/root/usr/sbin/runc"
  echo "STEWARD_CNI_BIN_DIR=$debs/root/usr/lib/cni"
  echo "STEWARD_NFT_BIN=$debs/bin/nft"
  echo "STEWARD_KUBE_NETWORK_POLICIES_BIN=$knp/bin/kube-network-policies"
fi
