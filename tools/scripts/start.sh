#!/usr/bin/env bash
# `npm start`: installs what is missing (npm dependencies, the Go-built control plane and node tier,
# the images, the backends), then runs the local platform in the foreground until Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/../.."
cache="${STEWARD_CACHE:-$HOME/.cache/steward}"
if [[ ! -d "$cache/k8s-node-$(sed -n 's/^K8S_VERSION=//p' tools/control-plane/versions.env)" ]]; then
  cat <<'MSG'
steward: first run on this machine. Everything is built from the package registries and cached in
~/.cache/steward: the control plane and the node (kubelet, containerd: Go builds, about 15-20
minutes on 2 cores), the images (Debian packages, a few minutes) and the controllers' images
(apps/Dockerfile, a few minutes). Later runs start in about a minute.
MSG
fi
bash tools/scripts/ensure-node-deps.sh
bash tools/control-plane/build.sh
eval "$(bash tools/control-plane/build.sh --print-env 2>/dev/null)"
export STEWARD_ETCD_BIN STEWARD_KUBE_APISERVER_BIN STEWARD_KUBE_CONTROLLER_MANAGER_BIN STEWARD_KUBECTL_BIN STEWARD_HELM_BIN
bash tools/node-tier/build.sh
eval "$(bash tools/node-tier/build.sh --print-env 2>/dev/null)"
export STEWARD_KUBELET_BIN STEWARD_KUBE_SCHEDULER_BIN STEWARD_KUBE_PROXY_BIN STEWARD_CONTAINERD_BIN STEWARD_CTR_BIN \
  STEWARD_CONTAINERD_SHIM_BIN STEWARD_PROVISIONER_BIN STEWARD_RUNC_BIN STEWARD_CNI_BIN_DIR STEWARD_NFT_BIN
bash tools/node-tier/images/build.sh pause node-24
bash tools/backends/moto/install.sh
eval "$(bash tools/backends/moto/install.sh --print-env 2>/dev/null)"
export STEWARD_MOTO_SERVER_BIN
bash tools/backends/kafka/install.sh
eval "$(bash tools/backends/kafka/install.sh --print-env 2>/dev/null)"
export STEWARD_KAFKA_LIB
exec node --import tsx tools/scripts/start-platform.ts "$@"
