#!/usr/bin/env bash
# Builds the container images the node tier runs, without a registry or a daemon, each as an OCI
# image archive (one uncompressed layer) that `ctr -n k8s.io images import` takes, cached outside
# the repository by the hash of its inputs:
#
#   ${STEWARD_CACHE:-~/.cache/steward}/images/<image>-<hash12>/
#     image.oci.tar   the archive      ref         its image reference, one line
#     image.env       IMAGE_REF, IMAGE_ARCHIVE, IMAGE_HASH, IMAGE_UID, IMAGE_GID (the uid/gid the
#                     image runs as; also its config's User and its io.steward.image.* labels)
#     packages.txt    the Debian packages inside (name version), for audits
#
# Images (default: all), named as they are published (versions.env's IMAGE_REPOSITORY, R below:
# ghcr.io/steward-dev; .github/workflows/release.yml pushes these same archives there), except the
# two that never leave this machine (LOCAL_IMAGE_REPOSITORY, L: localhost/steward):
#   pause        L/pause:<hash12>       the pod sandbox, a static Go program (../pause/)
#   node-24      L/node:<version>       bookworm minbase + ca-certificates + Node.js LTS and npm
#                                       (from the npm registry); apps' base
#   redis-7.0    R/redis:<version>      bookworm redis-server + redis-tools
#   redis-8.0    R/redis:<version>      trixie redis-server + redis-tools
#   valkey-8.1   R/valkey:<version>     trixie valkey-server + valkey-tools
#   postgres-15  R/postgres:<version>   bookworm postgresql-15 + client
#   postgres-17  R/postgres:<version>   trixie postgresql-17 + client
# The Debian ones are `mmdebstrap --variant=minbase --mode=root` rootfs trimmed by rootfs.sh; the
# servers run as a fixed non-root uid:gid (versions.env), keep their data in /data (postgres:
# PGDATA=/data/pgdata, sockets in /run/postgresql) and work with a read-only root filesystem given
# writable /data, /tmp (and /run/postgresql): smoke.sh checks exactly that before packing.
#
# Cache key (hash) of an image: its reference, its pins in versions.env and the files that shape it (this script,
# lib.sh, rootfs.sh, oci.py; postgres-entrypoint.sh; for pause its sources and `go env GOVERSION`).
# A warm run only hashes and takes well under a second; a cold one takes 10-90 s an image (mirror
# and CPU permitting), says "building X (log: ...)" and "still building X... Ns" every 30 s. A
# failed step names itself and its log and exits non-zero. Concurrent runs serialise on a lock per
# image. A pinned Debian version no longer served fails naming the package, the pin and what is
# served now. A new entry replaces the image's older entries.
#
# Usage: build.sh [--print-env] [image...]
#   --print-env  prints only STEWARD_IMAGE_<IMAGE>=<ref>|<archive> lines on stdout (IMAGE upper-
#                case, - and . as _: STEWARD_IMAGE_REDIS_7_0), messages on stderr; builds first.
# Needs: root (mmdebstrap --mode=root, chroot, namespaces), python3, npm (node-24), go (pause);
# installs mmdebstrap from Debian when missing. Debian mirrors: $STEWARD_DEBIAN_MIRROR,
# $STEWARD_DEBIAN_SECURITY_MIRROR (default deb.debian.org).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
pause_src="$(cd "$here/../pause" && pwd)"
# shellcheck source=versions.env
source "$here/versions.env"
[[ -n "${IMAGE_REPOSITORY:-}" && -n "${LOCAL_IMAGE_REPOSITORY:-}" ]] ||
  { echo "images: IMAGE_REPOSITORY and LOCAL_IMAGE_REPOSITORY must be set in $here/versions.env" >&2; exit 1; }
cache="${STEWARD_CACHE:-$HOME/.cache/steward}"
images="$cache/images"
print_env=false
# shellcheck source=lib.sh
source "$here/lib.sh"

all_images=(pause node-24 redis-7.0 redis-8.0 valkey-8.1 postgres-15 postgres-17)
selected=()
for arg in "$@"; do
  case "$arg" in
    --print-env) print_env=true ;;
    -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    -*) fail "unknown option $arg (usage: build.sh [--print-env] [image...])" ;;
    *)
      [[ " ${all_images[*]} " == *" $arg "* ]] || fail "unknown image $arg (images: ${all_images[*]})"
      selected+=("$arg")
      ;;
  esac
done
(( ${#selected[@]} )) || selected=("${all_images[@]}")

# var_prefix <image>: redis-7.0 -> REDIS_7_0 (its variables in versions.env)
var_prefix() { local v="${1^^}"; v="${v//-/_}"; printf '%s' "${v//./_}"; }
# pin <image> <suffix>: the value of <PREFIX>_<suffix> in versions.env (fails when unset)
pin() {
  local var
  var="$(var_prefix "$1")_$2"
  [[ -n "${!var:-}" ]] || fail "$var is not set in $here/versions.env"
  printf '%s' "${!var}"
}
kind_of() { printf '%s' "${1%%-*}"; }

# files_hash <dir> <file...>: one line per file (sha256 and name relative to dir)
files_hash() { (cd "$1" && shift && sha256sum -- "$@"); }

common_inputs() { files_hash "$here" build.sh lib.sh rootfs.sh oci.py; }

# record <image> <entry dir>: remembers the image's env line for --print-env.
env_lines=()
record() {
  local var ref
  var="STEWARD_IMAGE_$(var_prefix "$1")"
  ref="$(cat "$2/ref")"
  env_lines+=("$var=$ref|$2/image.oci.tar")
}

# cached <image> <entry>: is the entry complete for this hash?
cached() { [[ -f "$2/.complete" && -f "$2/image.oci.tar" && -f "$2/ref" ]]; }

# start_entry <image> <entry>: 0 = must build (lock held, $tmp ready), 1 = cached (recorded).
start_entry() {
  local image="$1" entry="$2"
  if cached "$image" "$entry"; then
    say "images: $image cached at $entry"
    record "$image" "$entry"
    return 1
  fi
  lock_entry "$image"
  if cached "$image" "$entry"; then
    say "images: $image cached at $entry (built by a concurrent run)"
    unlock_entry
    record "$image" "$entry"
    return 1
  fi
  new_scratch "$entry"
  begin_entry "$image" "$cache/logs/image-$image.log"
  return 0
}

# finish_entry <image> <entry> <hash> <ref> <uid> <gid>: writes the entry's metadata, moves it into
# place, drops the image's older entries, releases the lock.
finish_entry() {
  local image="$1" entry="$2" hash="$3" ref="$4" uid="$5" gid="$6" old
  echo "$ref" >"$tmp/ref"
  {
    echo "IMAGE_REF=$ref"
    echo "IMAGE_ARCHIVE=$entry/image.oci.tar"
    echo "IMAGE_HASH=$hash"
    echo "IMAGE_UID=$uid"
    echo "IMAGE_GID=$gid"
  } >"$tmp/image.env"
  echo "$hash" >"$tmp/.complete"
  rm -rf "$entry"
  mv "$tmp" "$entry"
  discard_on_failure=""
  for old in "$images/$image"-*; do
    [[ "$old" != "$entry" && -f "$old/.complete" ]] && rm -rf "$old"
  done
  say "images: built $image in $((SECONDS - entry_start))s: $ref, $(du -m "$entry/image.oci.tar" | cut -f1) MB -> $entry/image.oci.tar"
  unlock_entry
  record "$image" "$entry"
}

# pack <ref> <rootfs dir> <oci.py pack options...>: tars the rootfs into the entry's one layer and
# packs the archive; verifies it.
pack() {
  local ref="$1" rootfs="$2"; shift 2
  step "tar the root filesystem" tar --sort=name --numeric-owner --xattrs --xattrs-include='security.capability' \
    -C "$rootfs" -cf "$tmp/layer.tar" .
  step "pack the OCI archive" python3 "$here/oci.py" pack "$tmp/layer.tar" --ref "$ref" --out "$tmp/image.oci.tar" "$@"
  rm -f "$tmp/layer.tar"
  step "verify the OCI archive" python3 "$here/oci.py" verify "$tmp/image.oci.tar" --ref "$ref"
}

labels_for() { # <image> <hash> <uid> <gid> <version>
  printf -- '--label\0%s\0' "org.opencontainers.image.title=steward/$(kind_of "$1")" \
    "org.opencontainers.image.version=$5" "io.steward.image.name=$1" "io.steward.image.hash=$2" \
    "io.steward.image.uid=$3" "io.steward.image.gid=$4"
}

build_pause() {
  command -v go >/dev/null || fail "pause needs Go (go on PATH)"
  local goversion hash entry ref
  goversion="$(GOTOOLCHAIN=local go env GOVERSION)"
  hash="$({ common_inputs; files_hash "$pause_src" go.mod main.go; echo "go=$goversion repository=$LOCAL_IMAGE_REPOSITORY"; } | sha256_text)"
  entry="$images/pause-$(short "$hash")"
  ref="$LOCAL_IMAGE_REPOSITORY/pause:$(short "$hash")"
  start_entry pause "$entry" || return 0
  mkdir -p "$tmp/rootfs"
  step "go build (CGO off, static)" env -C "$pause_src" CGO_ENABLED=0 GOTOOLCHAIN=local \
    go build -trimpath -ldflags='-s -w -buildid=' -o "$tmp/rootfs/pause" .
  step "check: static, exits 0 on SIGTERM" check_pause "$tmp/rootfs/pause"
  # nobody (65534): the sandbox needs no privilege at all
  local args=()
  mapfile -d '' args < <(labels_for pause "$hash" 65534 65534 "$(short "$hash")")
  pack "$ref" "$tmp/rootfs" --entrypoint '["/pause"]' --user 65534:65534 "${args[@]}"
  rm -rf "$tmp/rootfs"
  finish_entry pause "$entry" "$hash" "$ref" 65534 65534
}

check_pause() {
  if ldd "$1" >/dev/null 2>&1; then echo "$1 is dynamically linked"; return 1; fi
  "$1" &
  local pid=$! status=0
  sleep 0.3
  kill -TERM "$pid"
  wait "$pid" || status=$?
  echo "pause exited with status $status on SIGTERM"
  (( status == 0 ))
}

# Debian images ---------------------------------------------------------------------------------

# image_config <image> <uid> <gid> <version>: sets image_user, image_env (K=V...), image_argv
# (entrypoint + cmd, JSON), config_args (oci.py options) for the kind.
image_config() {
  local image="$1" uid="$2" gid="$3" version="$4" kind major
  kind="$(kind_of "$image")"
  image_env=("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" "LANG=C.UTF-8")
  config_args=(--workdir /)
  case "$kind" in
    redis | valkey)
      image_user="$uid:$gid"
      local argv="[\"$kind-server\",\"--bind\",\"0.0.0.0\",\"--protected-mode\",\"no\",\"--dir\",\"/data\"]"
      image_argv="$argv"
      config_args=(--workdir /data --cmd "$argv" --expose 6379/tcp)
      ;;
    postgres)
      image_user="$uid:$gid"
      major="${image#postgres-}"
      image_env=("PATH=/usr/lib/postgresql/$major/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
        "LANG=C.UTF-8" "PGDATA=/data/pgdata")
      local entry='["/usr/local/bin/steward-postgres-entrypoint"]'
      local cmd='["-c","listen_addresses=*","-c","unix_socket_directories=/run/postgresql"]'
      image_argv="${entry%]},${cmd#[}"
      config_args=(--workdir /data --entrypoint "$entry" --cmd "$cmd" --expose 5432/tcp)
      ;;
    node)
      # root by default: apps/Dockerfile's build stages run npm ci; its final stage sets USER
      image_user=""
      image_env+=("NODE_VERSION=$version")
      image_argv='["node"]'
      config_args=(--cmd '["node"]')
      ;;
  esac
  local e
  for e in "${image_env[@]}"; do config_args+=(--env "$e"); done
  if [[ -n "$image_user" ]]; then config_args+=(--user "$image_user"); fi
}

# fetch_npm_tarball <package> <version> <integrity>: prints the path of the verified tarball,
# kept in $images/.dist (npm pack: the npm registry, through npm's own cache and config).
fetch_npm_tarball() {
  local pkg="$1" version="$2" integrity="$3" dist="$images/.dist"
  local file="$dist/$pkg-$version.tgz"
  mkdir -p "$dist"
  if [[ ! -f "$file" ]] || ! check_integrity "$file" "$integrity"; then
    rm -f "$file"
    (cd "$dist" && npm pack --silent "$pkg@$version" >/dev/null) || { echo "npm pack $pkg@$version failed" >&2; return 1; }
    [[ -f "$file" ]] || { echo "npm pack did not write $file" >&2; return 1; }
    check_integrity "$file" "$integrity" || {
      echo "$file does not match the pinned integrity $integrity" >&2
      rm -f "$file"
      return 1
    }
  fi
  echo "$file"
}

check_integrity() { # <file> <sha512-base64 integrity>
  [[ "$(python3 -c 'import base64, hashlib, sys; print("sha512-" + base64.b64encode(hashlib.sha512(open(sys.argv[1], "rb").read()).digest()).decode())' "$1")" == "$2" ]]
}

build_debian() {
  local image="$1" kind suite packages=() main version hash entry ref uid gid user home
  kind="$(kind_of "$image")"
  suite="$(pin "$image" SUITE)"
  read -ra packages <<<"$(pin "$image" PACKAGES)"
  main="${packages[0]}"
  case "$kind" in
    redis) user=redis home=/var/lib/redis ;;
    valkey) user=valkey home=/var/lib/valkey ;;
    postgres) user=postgres home=/var/lib/postgresql ;;
    node) user=nonroot home=/home/nonroot ;;
  esac
  if [[ "$kind" == node ]]; then
    uid="$NODE_UID" gid="$NODE_GID" version="$(pin "$image" NODE_VERSION)"
  else
    uid="$SERVER_UID" gid="$SERVER_GID" version="$(upstream_version "${main#*=}")"
  fi
  if [[ "$kind" == node ]]; then ref="$LOCAL_IMAGE_REPOSITORY/$kind:$version"; else ref="$IMAGE_REPOSITORY/$kind:$version"; fi
  hash="$({
    common_inputs
    echo "ref=$ref"
    if [[ "$kind" == postgres ]]; then files_hash "$here" postgres-entrypoint.sh; fi
    echo "image=$image suite=$suite packages=${packages[*]} user=$user:$uid:$gid:$home"
    if [[ "$kind" == node ]]; then
      local suffix
      for suffix in NODE_PACKAGE NODE_VERSION NODE_INTEGRITY NPM_VERSION NPM_INTEGRITY; do
        echo "$suffix=$(pin "$image" "$suffix")"
      done
    fi
  } | sha256_text)"
  entry="$images/$image-$(short "$hash")"
  start_entry "$image" "$entry" || return 0

  need_host_package mmdebstrap mmdebstrap
  need_host_package iproute2 ip
  local node_files=() npm_version=""
  if [[ "$kind" == node ]]; then
    npm_version="$(pin "$image" NPM_VERSION)"
    command -v npm >/dev/null || fail "node-24 needs npm on PATH (to fetch Node.js from the npm registry)"
    step "fetch $(pin "$image" NODE_PACKAGE)@$version from the npm registry" \
      fetch_npm_tarball "$(pin "$image" NODE_PACKAGE)" "$version" "$(pin "$image" NODE_INTEGRITY)"
    step "fetch npm@$npm_version from the npm registry" \
      fetch_npm_tarball npm "$npm_version" "$(pin "$image" NPM_INTEGRITY)"
    node_files=("$images/.dist/$(pin "$image" NODE_PACKAGE)-$version.tgz" "$images/.dist/npm-$npm_version.tgz")
  fi
  step "refresh Debian $suite package lists" debian_update "$suite"
  check_pins "$suite" "$here/versions.env ($(var_prefix "$image")_PACKAGES)" "${packages[@]}"

  local lists="$images/.apt/$suite/lists" debs="$images/.debs/$image" include sources=()
  include="$(IFS=,; echo "${packages[*]}")"
  mapfile -t sources < <(debian_sources "$suite")
  mkdir -p "$debs"
  # The package lists just checked are the ones mmdebstrap installs from (no second download),
  # and downloaded .debs are kept per image for the next cold build (obsolete ones autocleaned).
  # shellcheck disable=SC2016 # "$1" is the rootfs, for mmdebstrap's hook shell to expand
  step "mmdebstrap $suite minbase + ${packages[*]}" env SOURCE_DATE_EPOCH=0 mmdebstrap \
    --variant=minbase --mode=root --format=directory --skip=update --skip=essential/unlink \
    --aptopt='Acquire::Languages "none"' --aptopt='APT::Install-Recommends "false"' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/lintian/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --setup-hook="mkdir -p \"\$1/var/lib/apt/lists\" \"\$1/var/cache/apt/archives\" && cp -a '$lists'/*_Packages* '$lists'/*Release* \"\$1/var/lib/apt/lists/\"" \
    --setup-hook="sync-in '$debs' /var/cache/apt/archives/" \
    --essential-hook="bash '$here/rootfs.sh' user \"\$1\" '$user' '$uid' '$gid' '$home'" \
    --include="$include" \
    --customize-hook="bash '$here/rootfs.sh' purge-perl \"\$1\"" \
    --customize-hook='chroot "$1" apt-get autoclean -q' \
    --customize-hook="sync-out /var/cache/apt/archives '$debs'" \
    "$suite" "$tmp/rootfs" "${sources[@]}"
  dpkg-query --admindir="$tmp/rootfs/var/lib/dpkg" -W -f='${Package} ${Version}\n' >"$tmp/packages.txt"
  local p
  for p in "${packages[@]}"; do
    grep -qxF "${p%%=*} ${p#*=}" "$tmp/packages.txt" || fail "$image: ${p%%=*} ${p#*=} is not what got installed (see $tmp/packages.txt)"
  done
  step "trim the root filesystem" bash "$here/rootfs.sh" trim "$tmp/rootfs" "$kind"
  step "add the image's own files" bash "$here/rootfs.sh" finish "$tmp/rootfs" "$kind" "$uid" "$gid" "${node_files[@]}"
  image_config "$image" "$uid" "$gid" "$version"
  step "smoke check (read-only root, as $uid:$gid)" env SMOKE_VERSION="$version" \
    SMOKE_NPM_VERSION="$npm_version" \
    bash "$here/smoke.sh" "$tmp/rootfs" "$kind" "$uid" "$gid" "$image_argv" "${image_env[@]}"
  local args=()
  mapfile -d '' args < <(labels_for "$image" "$hash" "$uid" "$gid" "$version")
  pack "$ref" "$tmp/rootfs" "${config_args[@]}" "${args[@]}" --created-by "mmdebstrap $suite: ${packages[*]}"
  rm -rf "$tmp/rootfs"
  finish_entry "$image" "$entry" "$hash" "$ref" "$uid" "$gid"
}

[[ $(id -u) == 0 ]] || fail "building images needs root (mmdebstrap --mode=root, chroot, namespaces)"
command -v python3 >/dev/null || fail "python3 is missing (needed by oci.py)"
mkdir -p "$images" "$cache/logs"
for image in "${selected[@]}"; do
  case "$image" in
    pause) build_pause ;;
    *) build_debian "$image" ;;
  esac
done

if $print_env; then
  printf '%s\n' "${env_lines[@]}"
fi
