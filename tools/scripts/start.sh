#!/usr/bin/env bash
# `npm start`: installs what is missing (npm dependencies, the Go-built control plane), then runs the
# local platform in the foreground until Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/scripts/ensure-node-deps.sh
bash tools/control-plane/build.sh
eval "$(bash tools/control-plane/build.sh --print-env 2>/dev/null)"
export STEWARD_ETCD_BIN STEWARD_KUBE_APISERVER_BIN STEWARD_KUBE_CONTROLLER_MANAGER_BIN STEWARD_KUBECTL_BIN STEWARD_HELM_BIN
bash tools/backends/moto/install.sh
eval "$(bash tools/backends/moto/install.sh --print-env 2>/dev/null)"
export STEWARD_MOTO_SERVER_BIN
bash tools/backends/kafka/install.sh
eval "$(bash tools/backends/kafka/install.sh --print-env 2>/dev/null)"
export STEWARD_KAFKA_LIB
exec node --import tsx tools/scripts/start-platform.ts "$@"
