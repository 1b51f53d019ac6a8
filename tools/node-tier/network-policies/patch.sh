#!/usr/bin/env bash
# Applies the node tier's changes to a writable copy of sigs.k8s.io/kube-network-policies v0.8.0
# (tools/node-tier/build.sh runs it; nothing of upstream is kept in this repository):
#   1. every `queue,` verdict in the ruleset becomes `xtQueue(queue),` (xt_queue.go: the xtables
#      NFQUEUE target, for kernels without nft_queue);
#   2. the client config comes from rest_config.go (a client certificate, not a service account);
# --disable-nri is left as upstream has it (parsed, never passed on): v0.8.0 with NRI disabled
# dereferences its nil NRI plugin for every packet from an address that is not a pod's and panics;
# with NRI "enabled" and no NRI socket it logs "nri plugin exited" once and looks up an empty map.
# Each edit checks that it changed what it expects, so a new upstream version fails loudly.
set -euo pipefail
src="$1" here="$(cd "$(dirname "$0")" && pwd)"
np="$src/pkg/networkpolicy/controller.go" main="$src/cmd/main.go"
cp "$here/xt_queue.go" "$src/pkg/networkpolicy/steward_xt_queue.go"
cp "$here/rest_config.go" "$src/cmd/steward_rest_config.go"
sed -i 's/^\([[:space:]]*\)queue,$/\1xtQueue(queue),/' "$np"
n=$(grep -c 'xtQueue(queue),$' "$np")
[[ "$n" == 10 ]] || { echo "patch.sh: expected 10 queue verdicts in $np, found $n" >&2; exit 1; }
if grep -q "^[[:space:]]*queue,$" "$np"; then echo "patch.sh: a queue verdict is left in $np" >&2; exit 1; fi
sed -i 's/config, err := rest.InClusterConfig()/config, err := restConfig()/' "$main"
grep -q 'config, err := restConfig()' "$main" || { echo "patch.sh: no InClusterConfig call in $main" >&2; exit 1; }
sed -i '/^[[:space:]]*"k8s.io\/client-go\/rest"$/d' "$main" # now used by rest_config.go only
gofmt -w "$main" "$np"
