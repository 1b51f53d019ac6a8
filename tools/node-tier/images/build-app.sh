#!/usr/bin/env bash
# Builds a controller's container image from the real apps/Dockerfile with Debian's buildah (no
# daemon, no registry), on the node tier's own Node.js base (build.sh's node-24), as an OCI image
# archive that `ctr -n k8s.io images import` takes, cached outside the repository:
#
#   ${STEWARD_CACHE:-~/.cache/steward}/images/app-<app>-<hash12>/
#     image.oci.tar  the archive, reference <IMAGE_REPOSITORY>/<app>:<hash12> (versions.env:
#                    ghcr.io/steward-dev, the repository the charts' image.repository names)
#     ref, image.env the reference; IMAGE_REF, IMAGE_ARCHIVE, IMAGE_HASH, IMAGE_UID/GID (65532)
#
# Cache key (hash): APP, IMAGE_REPOSITORY, apps/Dockerfile, the build context (every file git knows of, tracked or
# untracked-but-not-ignored, as it is in the working tree, less what .dockerignore excludes; see
# context.py), the node base's own hash, and this script, lib.sh, context.py and oci.py. buildah
# builds from a staged copy of exactly that context. A warm run hashes (well under a second; plus
# build.sh's check of the base); a cold one takes minutes (npm ci twice) and reports progress every
# 30 s; a failed step names itself and its log; concurrent runs for one app serialise on a lock.
#
# buildah (bookworm's, installed with apt when missing) keeps its storage in
# ${cache}/images/.buildah/<driver> (driver: $STEWARD_BUILDAH_DRIVER, default overlay; vfs works
# too, slower) and its temporary files, so also the Dockerfile's npm cache mount, in
# .buildah/tmp. The base comes from its OCI archive into that storage (--pull=never: nothing is
# pulled from a registry). RUN steps have the host's network (npm ci reaches the npm registry) and
# trust the host's CA bundle ($STEWARD_BUILD_CA_FILE, default /etc/ssl/certs/ca-certificates.crt,
# mounted for the RUN steps only). RUN isolation ($STEWARD_BUILDAH_ISOLATION): "oci" (default)
# with runc from $STEWARD_RUNC_BIN, else from `tools/node-tier/build.sh --print-env` (Debian's
# runc, unpacked, not installed); "chroot" needs no OCI runtime. Layers are stored gzip-compressed
# (what buildah push writes), the base's included.

# After building, the image is run (buildah run, as 65532, without the configuration it needs):
# `node main.js` must load the whole bundle and stop with the app's own configuration error
# (exit code 2, "<app>: ..."), not a Node crash or a missing module.
#
# Usage: build-app.sh <app> [--print-env]   apps: the directories of apps/ with a package.json
#   --print-env  prints only STEWARD_APP_IMAGE_<APP>=<ref>|<archive> on stdout (APP upper-case, -
#                as _), messages on stderr.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
cache="${STEWARD_CACHE:-$HOME/.cache/steward}"
images="$cache/images"
print_env=false
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=versions.env
source "$here/versions.env"
[[ -n "${IMAGE_REPOSITORY:-}" ]] || fail "IMAGE_REPOSITORY is not set in $here/versions.env"

app=""
for arg in "$@"; do
  case "$arg" in
    --print-env) print_env=true ;;
    -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    -*) fail "unknown option $arg (usage: build-app.sh <app> [--print-env])" ;;
    *) [[ -z "$app" ]] || fail "one app at a time (got $app and $arg)"; app="$arg" ;;
  esac
done
apps="$(cd "$repo/apps" && for d in */package.json; do printf '%s ' "${d%/package.json}"; done)"
[[ -n "$app" ]] || fail "usage: build-app.sh <app> [--print-env]   (apps: $apps)"
[[ -f "$repo/apps/$app/package.json" ]] || fail "no app $app in $repo/apps (apps: $apps)"

[[ $(id -u) == 0 ]] || fail "building app images needs root (buildah with its storage under $images)"
dockerfile="$repo/apps/Dockerfile"
var="STEWARD_APP_IMAGE_$(tr 'a-z-' 'A-Z_' <<<"$app")"
done_env() {
  if $print_env; then echo "$var=$(cat "$entry/ref")|$entry/image.oci.tar"; fi
  exit 0
}

# the node base: built (or found) by build.sh; its hash is part of ours
base_line="$(bash "$here/build.sh" --print-env node-24)" || fail "building the node base (build.sh node-24) failed"
base_ref="${base_line#*=}" && base_ref="${base_ref%%|*}"
base_archive="${base_line#*|}"
base_hash="$(sed -n 's/^IMAGE_HASH=//p' "$(dirname "$base_archive")/image.env")"
[[ -n "$base_hash" ]] || fail "no IMAGE_HASH in $(dirname "$base_archive")/image.env"

command -v git >/dev/null || fail "git is missing (the build context is the files git knows of)"
context_hash="$(python3 "$here/context.py" hash --root "$repo")" || fail "hashing the build context failed"
hash="$({
  echo "app=$app base=$base_hash context=$context_hash repository=$IMAGE_REPOSITORY"
  (cd "$repo" && sha256sum apps/Dockerfile)
  (cd "$here" && sha256sum build-app.sh lib.sh context.py oci.py)
} | sha256_text)"
entry="$images/app-$app-$(short "$hash")"
ref="$IMAGE_REPOSITORY/$app:$(short "$hash")"
cached() { [[ -f "$entry/.complete" && -f "$entry/image.oci.tar" && -f "$entry/ref" ]]; }
if cached; then
  say "images: $app cached at $entry"
  done_env
fi
lock_entry "app-$app"
if cached; then
  say "images: $app cached at $entry (built by a concurrent run)"
  done_env
fi
begin_entry "$app" "$cache/logs/image-app-$app.log"
new_scratch "$entry"

need_host_package buildah buildah
isolation="${STEWARD_BUILDAH_ISOLATION:-oci}"
driver="${STEWARD_BUILDAH_DRIVER:-overlay}"
runtime_args=()
case "$isolation" in
  oci)
    runc="${STEWARD_RUNC_BIN:-}"
    if [[ -z "$runc" && -f "$here/../build.sh" ]]; then
      say "images: finding runc (tools/node-tier/build.sh --print-env)"
      runc="$(bash "$here/../build.sh" --print-env | sed -n 's/^STEWARD_RUNC_BIN=//p')" ||
        fail "tools/node-tier/build.sh --print-env failed; set STEWARD_RUNC_BIN or STEWARD_BUILDAH_ISOLATION=chroot"
    fi
    [[ -n "$runc" && -x "$runc" ]] ||
      fail "no runc for buildah (STEWARD_RUNC_BIN='$runc'); set STEWARD_RUNC_BIN or STEWARD_BUILDAH_ISOLATION=chroot"
    runtime_args=(--isolation oci --runtime "$runc")
    smoke_network=none
    ;;
  chroot) runtime_args=(--isolation chroot) smoke_network=host ;;  # chroot isolation has no netns
  *) fail "STEWARD_BUILDAH_ISOLATION must be oci or chroot, not $isolation" ;;
esac

store="$images/.buildah"
mkdir -p "$store/$driver" "$store/runroot-$driver" "$store/tmp"
policy="$store/policy.json"
# Only local transports (oci-archive:, containers-storage:) are ever used: nothing to verify.
echo '{"default": [{"type": "insecureAcceptAnything"}]}' >"$policy"
# shellcheck disable=SC2317,SC2329 # also run by the EXIT trap
bah() {
  TMPDIR="$store/tmp" buildah --root "$store/$driver" --runroot "$store/runroot-$driver" --storage-driver "$driver" "$@"
}

# shellcheck disable=SC2317,SC2329 # load_base and smoke_run run through step
# load_base: the node base into buildah's storage under its reference, unless the image there is
# already this archive's (same image ID, i.e. config digest).
load_base() {
  local want have id
  want="$(python3 - "$base_archive" <<'PY'
import json, sys, tarfile
with tarfile.open(sys.argv[1]) as t:
    index = json.load(t.extractfile('index.json'))
    digest = index['manifests'][0]['digest'].split(':')[1]
    manifest = json.load(t.extractfile('blobs/sha256/' + digest))
    print(manifest['config']['digest'].split(':')[1])
PY
)"
  have="$(bah inspect --type image --format '{{.FromImageID}}' "$base_ref" 2>/dev/null || true)"
  if [[ "$have" == "$want" ]]; then
    echo "$base_ref is already in buildah's storage (image $want)"
    return
  fi
  id="$(bah pull --signature-policy "$policy" --quiet "oci-archive:$base_archive")"
  bah tag "$id" "$base_ref"
  # the previous base, now untagged, and anything else no image refers to
  bah rmi --prune >/dev/null 2>&1 || true
}

# npm ci in the RUN steps trusts what the host trusts: the host's CA bundle (which holds any local
# or proxy CA the host added) is bind-mounted for the RUN steps only and named by the Dockerfile's
# NODE_EXTRA_CA_CERTS build argument; neither reaches the image.
ca_args=()
host_ca="${STEWARD_BUILD_CA_FILE:-/etc/ssl/certs/ca-certificates.crt}"
if [[ -r "$host_ca" ]]; then
  ca_args=(--volume "$host_ca:/run/steward-build-ca.crt:ro" --build-arg NODE_EXTRA_CA_CERTS=/run/steward-build-ca.crt)
fi

step "load the node base $base_ref into buildah's storage" load_base
step "stage the build context" python3 "$here/context.py" stage --root "$repo" --out "$tmp/context"
step "buildah build (apps/Dockerfile, APP=$app, NODE_IMAGE=$base_ref)" bah build \
  --signature-policy "$policy" --pull=never --network host "${runtime_args[@]}" \
  --layers=false --format oci --timestamp 0 --identity-label=false "${ca_args[@]}" \
  --label "org.opencontainers.image.title=steward/$app" --label "org.opencontainers.image.version=$(short "$hash")" \
  --label "io.steward.image.name=app-$app" --label "io.steward.image.hash=$hash" \
  --label io.steward.image.uid=65532 --label io.steward.image.gid=65532 \
  -f "$dockerfile" --build-arg "APP=$app" --build-arg "NODE_IMAGE=$base_ref" \
  -t "$ref" "$tmp/context"
rm -rf "$tmp/context"
# from here on the image is in buildah's storage: it goes when the script exits, whatever happens
# (the archive is the product; the storage keeps only the base and the npm cache)
trap 'bah rmi "$ref" >/dev/null 2>&1 || true; discard_scratch' EXIT

# shellcheck disable=SC2317,SC2329
# smoke_run: the image's entrypoint without its configuration must stop at the app's own config
# check: exit code 2 and "<app>: " on stderr, after Node has loaded every module of the bundle.
smoke_run() {
  local ctr status=0 out
  ctr="$(bah from --pull=never --signature-policy "$policy" --quiet "$ref")"
  out="$(bah run "${runtime_args[@]}" --network "$smoke_network" --user 65532:65532 "$ctr" -- node main.js 2>&1)" || status=$?
  bah rm "$ctr" >/dev/null
  echo "node main.js (no configuration) exited with status $status:"
  echo "$out"
  [[ "$status" == 2 && "$out" == "$app: "* ]]
}
step "smoke check: node main.js stops at its configuration error" smoke_run
step "export the image" bah push --signature-policy "$policy" --format oci \
  "$ref" "oci:$tmp/layout:$ref"
step "pack the OCI archive" python3 "$here/oci.py" retag "$tmp/layout" --ref "$ref" --out "$tmp/image.oci.tar"
rm -rf "$tmp/layout"
step "verify the OCI archive" python3 "$here/oci.py" verify "$tmp/image.oci.tar" --ref "$ref"

echo "$ref" >"$tmp/ref"
{
  echo "IMAGE_REF=$ref"
  echo "IMAGE_ARCHIVE=$entry/image.oci.tar"
  echo "IMAGE_HASH=$hash"
  echo "IMAGE_UID=65532"
  echo "IMAGE_GID=65532"
} >"$tmp/image.env"
echo "$hash" >"$tmp/.complete"
rm -rf "$entry"
mv "$tmp" "$entry"
discard_on_failure=""  # lib.sh's step reads it
for old in "$images/app-$app"-*; do
  [[ "$old" != "$entry" && -f "$old/.complete" ]] && rm -rf "$old"
done
say "images: built $app in $((SECONDS - entry_start))s: $ref, $(du -m "$entry/image.oci.tar" | cut -f1) MB -> $entry/image.oci.tar"
unlock_entry
done_env
