#!/usr/bin/env bash
# `npm test`: everything Steward's tests need, installed and started from a fresh machine, then every
# test — lint, typecheck and build of every project, then unit, integration (real etcd +
# kube-apiserver + kube-controller-manager) and e2e suites — and one summary line at the end.
set -uo pipefail
cd "$(dirname "$0")/../.."
start=$SECONDS
status=0

step() { echo; echo "==> $*"; }

step "npm dependencies"
bash tools/scripts/ensure-node-deps.sh || exit 1

step "control-plane binaries (Go-built: etcd, kube-apiserver, kube-controller-manager, kubectl, helm)"
bash tools/control-plane/build.sh || exit 1
eval "$(bash tools/control-plane/build.sh --print-env 2>/dev/null)"
export STEWARD_ETCD_BIN STEWARD_KUBE_APISERVER_BIN STEWARD_KUBE_CONTROLLER_MANAGER_BIN STEWARD_KUBECTL_BIN STEWARD_HELM_BIN

step "backends: moto (the AWS RDS API) in a venv"
bash tools/backends/moto/install.sh || exit 1
eval "$(bash tools/backends/moto/install.sh --print-env 2>/dev/null)"
export STEWARD_MOTO_SERVER_BIN

step "backends: Apache Kafka (jars from Maven Central)"
bash tools/backends/kafka/install.sh || exit 1
eval "$(bash tools/backends/kafka/install.sh --print-env 2>/dev/null)"
export STEWARD_KAFKA_LIB

rm -rf reports/vitest

step "format, lint, typecheck, build"
npx prettier --check . --log-level warn || status=1
npx tsx tools/scripts/generate-crds.ts --check || status=1
npx nx run-many -t lint typecheck build --outputStyle=stream || status=1

step "tests: unit, integration and e2e, every project"
npx nx run-many -t test --outputStyle=stream || status=1

step "summary ($((SECONDS - start)) s)"
npx tsx tools/scripts/summarize-tests.ts reports/vitest || status=1
exit $status
