#!/usr/bin/env bash
# Proves the local-path provisioner against a real control plane: etcd + kube-apiserver (RBAC) +
# kube-controller-manager (the PV binder and protection controllers) on free loopback ports in a
# temp dir, the provisioner running as its own RBAC-limited user. Needs the control-plane cache
# (bash tools/control-plane/build.sh), go and openssl. Prints PASS/FAIL lines; exits 1 on failure.
#
#   bash tools/node-tier/provisioner/test.sh      (KEEP=1 keeps the temp dir)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# the control plane's binaries at the pinned versions (npm test exports them; else asked of build.sh)
if [[ -z "${STEWARD_ETCD_BIN:-}" || -z "${STEWARD_KUBE_APISERVER_BIN:-}" ]]; then
  eval "$(bash "$here/../../control-plane/build.sh" --print-env 2>/dev/null)"
fi
etcd_bin=$STEWARD_ETCD_BIN
kbin=$(dirname "$STEWARD_KUBE_APISERVER_BIN")
for f in "$etcd_bin" "$kbin/kube-apiserver" "$kbin/kube-controller-manager" "$kbin/kubectl"; do
  [[ -x $f ]] || { echo "FAIL missing $f (run bash tools/control-plane/build.sh)"; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/steward-provisioner-test.XXXXXX")
base=$tmp/volumes
node=steward-node
base2=$tmp/volumes-b
node2=steward-node-b
ns=provisioner-test
pids=()
failures=0

stop_pid() { # pid: SIGTERM, up to 10 s, then SIGKILL
  kill -TERM "$1" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
cleanup() {
  local rc=$? log
  if ((rc != 0)); then
    for log in provisioner kube-controller-manager kube-apiserver; do
      if [[ -f $tmp/$log.log ]]; then echo "--- tail of $log.log"; tail -n 15 "$tmp/$log.log"; fi
    done
  fi
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do stop_pid "${pids[i]}"; done
  if [[ ${KEEP:-} == 1 ]]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
check() { # description, then a command that must succeed
  local what=$1; shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}
die() { fail "$*"; exit 1; }
wait_for() { # seconds, description, command
  local limit=$1 what=$2 deadline=$((SECONDS + $1)); shift 2
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || die "$what (within ${limit} s)"
    sleep 0.2
  done
}
free_port() { # below the ephemeral range, not listening
  local p
  while :; do
    p=$((20000 + RANDOM % 12000))
    [[ -z $(ss -Hltn "sport = :$p") ]] && { echo "$p"; return; }
  done
}
k() { "$kbin/kubectl" --kubeconfig="$tmp/admin.kubeconfig" "$@"; }
jp() { k get "$1" -n "$ns" -o "jsonpath=$2"; } # object, jsonpath

# --- build the provisioner (in the background while the control plane starts)
(cd "$here" && CGO_ENABLED=0 go build -trimpath -o "$tmp/provisioner" .) >"$tmp/build.log" 2>&1 &
build_pid=$!

# --- certificates
ossl() { openssl "$@" >>"$tmp/openssl.log" 2>&1; }
ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
ossl req -x509 "${ec[@]}" -keyout "$tmp/ca.key" -out "$tmp/ca.crt" -days 1 -subj /CN=steward-test-ca \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
leaf() { # name, subject, extendedKeyUsage, [subjectAltName]
  printf '%s\n' basicConstraints=critical,CA:FALSE keyUsage=critical,digitalSignature,keyEncipherment \
    "extendedKeyUsage=$3" ${4:+"subjectAltName=$4"} >"$tmp/$1.ext"
  ossl req "${ec[@]}" -keyout "$tmp/$1.key" -out "$tmp/$1.csr" -subj "$2"
  ossl x509 -req -in "$tmp/$1.csr" -CA "$tmp/ca.crt" -CAkey "$tmp/ca.key" -CAcreateserial \
    -out "$tmp/$1.crt" -days 1 -extfile "$tmp/$1.ext"
}
leaf apiserver /CN=kube-apiserver serverAuth IP:127.0.0.1,DNS:localhost
leaf admin /O=system:masters/CN=steward-admin clientAuth
leaf provisioner /CN=steward:local-path-provisioner clientAuth
ossl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$tmp/sa.key"

# --- etcd + kube-apiserver
etcd_port=$(free_port) peer_port=$(free_port) api_port=$(free_port)
"$etcd_bin" --name=steward --data-dir="$tmp/etcd" \
  --listen-client-urls="http://127.0.0.1:$etcd_port" --advertise-client-urls="http://127.0.0.1:$etcd_port" \
  --listen-peer-urls="http://127.0.0.1:$peer_port" --initial-advertise-peer-urls="http://127.0.0.1:$peer_port" \
  --initial-cluster="steward=http://127.0.0.1:$peer_port" --unsafe-no-fsync=true --log-level=warn \
  >"$tmp/etcd.log" 2>&1 &
pids+=($!)
wait_for 60 "etcd healthy" curl -sf "http://127.0.0.1:$etcd_port/health"

server=https://127.0.0.1:$api_port
"$kbin/kube-apiserver" --etcd-servers="http://127.0.0.1:$etcd_port" --cert-dir="$tmp/apiserver-certs" \
  --tls-cert-file="$tmp/apiserver.crt" --tls-private-key-file="$tmp/apiserver.key" \
  --client-ca-file="$tmp/ca.crt" --secure-port="$api_port" --bind-address=127.0.0.1 \
  --advertise-address=127.0.0.1 --service-cluster-ip-range=10.0.0.0/24 \
  --disable-admission-plugins=ServiceAccount --authorization-mode=RBAC \
  --service-account-issuer="$server/" --service-account-key-file="$tmp/sa.key" \
  --service-account-signing-key-file="$tmp/sa.key" --v=1 >"$tmp/kube-apiserver.log" 2>&1 &
pids+=($!)
wait_for 180 "kube-apiserver ready" curl -sf --cacert "$tmp/ca.crt" --cert "$tmp/admin.crt" \
  --key "$tmp/admin.key" "$server/readyz"
pass "control plane up ($server)"

kubeconfig() { # file, user
  local kc=(--kubeconfig="$1")
  "$kbin/kubectl" config set-cluster steward "${kc[@]}" --server="$server" \
    --certificate-authority="$tmp/ca.crt" --embed-certs >/dev/null
  "$kbin/kubectl" config set-credentials "$2" "${kc[@]}" --client-certificate="$tmp/$2.crt" \
    --client-key="$tmp/$2.key" --embed-certs >/dev/null
  "$kbin/kubectl" config set-context steward "${kc[@]}" --cluster=steward --user="$2" >/dev/null
  "$kbin/kubectl" config use-context steward "${kc[@]}" >/dev/null
}
kubeconfig "$tmp/admin.kubeconfig" admin
kubeconfig "$tmp/provisioner.kubeconfig" provisioner

"$kbin/kube-controller-manager" --kubeconfig="$tmp/admin.kubeconfig" --leader-elect=false --secure-port=0 \
  --controllers=persistentvolume-binder-controller,persistentvolume-protection-controller,persistentvolumeclaim-protection-controller,garbage-collector-controller,namespace-controller \
  --pvclaimbinder-sync-period=2s --v=1 >"$tmp/kube-controller-manager.log" 2>&1 &
pids+=($!)

# --- the provisioner, as its own user with rbac.yaml's permissions
k apply -f "$here/rbac.yaml" >/dev/null
k create namespace "$ns" >/dev/null
build_start=$SECONDS
wait "$build_pid" || { cat "$tmp/build.log"; die "go build"; }
pass "provisioner built (waited $((SECONDS - build_start)) s for the build after the control plane)"
healthz_port=$(free_port)
# two nodes of one machine (the multi-node tier's form); $node is the first, serving Immediate classes
"$tmp/provisioner" --kubeconfig="$tmp/provisioner.kubeconfig" --node "$node=$base" --node "$node2=$base2" \
  --healthz-bind="127.0.0.1:$healthz_port" >"$tmp/provisioner.log" 2>&1 &
prov_pid=$!
pids+=("$prov_pid")
wait_for 60 "provisioner healthz" curl -sf "http://127.0.0.1:$healthz_port/healthz"
pass "provisioner healthy"

k apply -f - >/dev/null <<EOF
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: local-path
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: steward.dev/local-path
volumeBindingMode: Immediate
reclaimPolicy: Delete
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local-path-wffc}
provisioner: steward.dev/local-path
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local-path-retain}
provisioner: steward.dev/local-path
reclaimPolicy: Retain
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local-path-grow}
provisioner: steward.dev/local-path
allowVolumeExpansion: true
EOF

pvc() { # name, [storageClassName], [volumeMode]
  k apply -n "$ns" -f - >/dev/null <<EOF
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: $1}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
  ${2:+storageClassName: $2}
  ${3:+volumeMode: $3}
EOF
}
bound() { [[ $(jp "pvc/$1" '{.status.phase}') == Bound ]]; }
gone() { ! k get "$@" >/dev/null 2>&1; }
has_event() { k get events -n "$ns" --field-selector "involvedObject.name=$1,reason=$2" -o name | grep -q .; }

# --- Immediate class (the default): bind, delete, re-create
pvc data
wait_for 60 "pvc data Bound" bound data
pass "pvc data (default class, Immediate) Bound"
uid1=$(jp pvc/data '{.metadata.uid}')
pv1=$(jp pvc/data '{.spec.volumeName}')
dir1=$(k get "pv/$pv1" -o 'jsonpath={.spec.hostPath.path}')
check "PV named pvc-<uid> ($pv1)" test "$pv1" == "pvc-$uid1"
check "directory $ns""_data_<uid> under base dir" test "$dir1" == "$base/${ns}_data_$uid1" -a -d "$dir1"
check "directory mode 0777" test "$(stat -c %a "$dir1")" == 777
check "PV spec (capacity, class, reclaim, access, claimRef, node affinity, provisioned-by)" test \
  "$(k get "pv/$pv1" -o 'jsonpath={.spec.capacity.storage} {.spec.storageClassName} {.spec.persistentVolumeReclaimPolicy} {.spec.accessModes} {.spec.claimRef.namespace}/{.spec.claimRef.name}/{.spec.claimRef.uid} {.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key}={.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values} {.metadata.annotations.pv\.kubernetes\.io/provisioned-by}')" \
  == "1Gi local-path Delete [\"ReadWriteOnce\"] $ns/data/$uid1 kubernetes.io/hostname=[\"$node\"] steward.dev/local-path"
wait_for 30 "ProvisioningSucceeded event" has_event data ProvisioningSucceeded
pass "ProvisioningSucceeded event on the PVC"

echo hello >"$dir1/file"
mkdir -p "$tmp/outside" && echo keep >"$tmp/outside/sentinel"
ln -s "$tmp/outside" "$dir1/link" # removal must not follow it
k delete pvc data -n "$ns" --wait=false >/dev/null
wait_for 60 "PV $pv1 deleted" gone "pv/$pv1"
pass "PV deleted after its PVC"
check "directory removed" test ! -e "$dir1"
check "symlink target outside base dir untouched" test -f "$tmp/outside/sentinel"

wait_for 60 "old pvc data gone" gone "pvc/data" -n "$ns"
pvc data
wait_for 60 "re-created pvc data Bound" bound data
pv2=$(jp pvc/data '{.spec.volumeName}')
dir2=$(k get "pv/$pv2" -o 'jsonpath={.spec.hostPath.path}')
check "re-created PVC Bound to a new PV ($pv2)" test -n "$pv2" -a "$pv2" != "$pv1"
check "new directory exists and is empty" test -d "$dir2" -a -z "$(ls -A "$dir2")"

# --- WaitForFirstConsumer: nothing until the scheduler (here: we) picks the node
pvc late local-path-wffc
sleep 3
check "WFFC pvc stays Pending without selected-node" test "$(jp pvc/late '{.status.phase}')" == Pending \
  -a -z "$(jp pvc/late '{.spec.volumeName}')" -a -z "$(find "$base" -maxdepth 1 -name '*_late_*')"
k annotate pvc/late -n "$ns" "volume.kubernetes.io/selected-node=$node" >/dev/null
wait_for 60 "WFFC pvc late Bound" bound late
pass "WFFC pvc Bound after selected-node"
check "WFFC directory exists" test -d "$base/${ns}_late_$(jp pvc/late '{.metadata.uid}')"

# --- a second node: its claims get directories under its own base dir and PVs pinned to it
pvc other local-path-wffc
k annotate pvc/other -n "$ns" "volume.kubernetes.io/selected-node=$node2" >/dev/null
wait_for 60 "WFFC pvc other Bound" bound other
pv4=$(jp pvc/other '{.spec.volumeName}')
dir4=$(k get "pv/$pv4" -o 'jsonpath={.spec.hostPath.path}')
check "second node: directory under its base dir, PV pinned to it" test \
  "$dir4" == "$base2/${ns}_other_$(jp pvc/other '{.metadata.uid}')" -a -d "$dir4" -a \
  "$(k get "pv/$pv4" -o 'jsonpath={.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}')" == "$node2"
pvc stray local-path-wffc
k annotate pvc/stray -n "$ns" "volume.kubernetes.io/selected-node=not-served" >/dev/null
sleep 2
check "a node it does not serve: claim left Pending" test "$(jp pvc/stray '{.status.phase}')" == Pending \
  -a -z "$(find "$base" "$base2" -maxdepth 1 -name '*_stray_*')"
k delete pvc other stray -n "$ns" >/dev/null
wait_for 60 "second node's directory removed" test ! -e "$dir4"
pass "second node's Released PV deleted with its directory"

# --- Retain: PV and directory stay after the PVC goes
pvc kept local-path-retain
wait_for 60 "retain pvc Bound" bound kept
pv3=$(jp pvc/kept '{.spec.volumeName}')
dir3=$(k get "pv/$pv3" -o 'jsonpath={.spec.hostPath.path}')
k delete pvc kept -n "$ns" >/dev/null
wait_for 60 "retained PV Released" test "$(k get "pv/$pv3" -o 'jsonpath={.status.phase}')" == Released
sleep 2
check "Retain: PV stays Released and directory stays" test \
  "$(k get "pv/$pv3" -o 'jsonpath={.status.phase}')" == Released -a -d "$dir3"

# --- a class created after its claim; a claim the provisioner cannot serve
pvc early local-path-later
sleep 1
k apply -f - >/dev/null <<EOF
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local-path-later}
provisioner: steward.dev/local-path
EOF
wait_for 60 "pvc early Bound once its class exists" bound early
pass "pvc created before its StorageClass Bound once the class exists"
pvc raw local-path Block
wait_for 30 "ProvisioningFailed event for a Block PVC" has_event raw ProvisioningFailed
check "Block PVC: ProvisioningFailed event, stays Pending" test "$(jp pvc/raw '{.status.phase}')" == Pending

# --- growth: refused on a class without allowVolumeExpansion; carried out on one with it
grow() { k patch "pvc/$1" -n "$ns" --type=merge -p "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"$2\"}}}}"; }
check "growth refused by the API server on a class without expansion" \
  test -z "$(grow data 2Gi 2>/dev/null)"
pvc big local-path-grow
wait_for 60 "pvc big Bound" bound big
pv4=$(jp pvc/big '{.spec.volumeName}')
grow big 3Gi >/dev/null
wait_for 60 "pvc big capacity 3Gi" test "$(jp pvc/big '{.status.capacity.storage}')" == 3Gi
pass "growth on an expandable class: claim capacity 3Gi"
check "grown: PV capacity 3Gi, claim allocatedResources 3Gi" test \
  "$(k get "pv/$pv4" -o 'jsonpath={.spec.capacity.storage}') $(jp pvc/big '{.status.allocatedResources.storage}')" == "3Gi 3Gi"
wait_for 30 "VolumeResizeSuccessful event" has_event big VolumeResizeSuccessful
pass "VolumeResizeSuccessful event on the PVC"

# --- figures and shutdown
echo "INFO provisioner RSS: $(awk '/VmRSS/ {print $2, $3}' "/proc/$prov_pid/status")"
kill -TERM "$prov_pid"
stopped=$SECONDS
rc=0
wait "$prov_pid" || rc=$?
rest=(); for p in "${pids[@]}"; do [[ $p == "$prov_pid" ]] || rest+=("$p"); done; pids=("${rest[@]}")
check "provisioner exits 0 on SIGTERM (rc=$rc, $((SECONDS - stopped)) s)" test "$rc" -eq 0 -a $((SECONDS - stopped)) -le 5

if ((failures > 0)); then echo "FAIL $failures check(s) failed"; exit 1; fi
echo "PASS all"
