#!/usr/bin/env bash
# Shapes an image's root filesystem built by mmdebstrap; run by build.sh (part of every Debian
# image's cache key). Needs root. ROOT is the rootfs directory.
#
#   rootfs.sh user ROOT NAME UID GID HOME
#       Adds a system user and its group with fixed ids, unless present with those ids (fails if
#       the ids belong to someone else). Run as mmdebstrap's --essential-hook, before the packages'
#       maintainer scripts: they find the user and keep it, so its uid/gid are the pinned ones.
#   rootfs.sh purge-perl ROOT
#       Purges (dpkg --purge, so the package database stays true) the perl interpreter packages
#       that Debian's minbase brings along (perl, libperl5.*, perl-modules-*, *-perl, and usrmerge,
#       which needs perl, replaced by its marker package usr-is-merged); perl-base,
#       which dpkg and debconf need, stays, and so do those another package depends on (postgres's
#       wrapper scripts need perl). Run as mmdebstrap's --customize-hook.
#   rootfs.sh trim ROOT KIND                       KIND: redis | valkey | postgres | node
#       Removes what the image never uses at run time: apt lists and caches, logs, docs (the
#       copyright files stay), man/info pages, translations, locale sources; for the servers also
#       perl-base and glibc's iconv modules; for postgres the cluster its postinst made and also its LLVM JIT (llvmjit.so, the bitcode, libLLVM, libz3: postgres
#       then runs with jit unavailable) and Debian's perl wrappers (psql, pg_isready... in
#       /usr/bin become links to the real binaries).
#   rootfs.sh finish ROOT KIND UID GID [NODE_TGZ NPM_TGZ]
#       The image's own files: /data (owned UID:GID) for the servers, /run/postgresql and the
#       entrypoint for postgres, node + npm for node; empty /etc/hostname and /etc/resolv.conf (the
#       runtime provides both).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

die() { echo "rootfs.sh: $*" >&2; exit 1; }

cmd_user() {
  local root="$1" name="$2" uid="$3" gid="$4" home="$5" entry
  entry="$(awk -F: -v n="$name" '$1 == n' "$root/etc/passwd")"
  if [[ -n "$entry" ]]; then
    [[ "$entry" == "$name:x:$uid:$gid:"* ]] || die "user $name exists with other ids: $entry"
    return
  fi
  if awk -F: -v u="$uid" '$3 == u {found = 1} END {exit !found}' "$root/etc/passwd"; then
    die "uid $uid is taken: $(awk -F: -v u="$uid" '$3 == u' "$root/etc/passwd")"
  fi
  if awk -F: -v g="$gid" -v n="$name" '$3 == g && $1 != n {found = 1} END {exit !found}' "$root/etc/group"; then
    die "gid $gid is taken: $(awk -F: -v g="$gid" '$3 == g' "$root/etc/group")"
  fi
  grep -q "^$name:" "$root/etc/group" || echo "$name:x:$gid:" >>"$root/etc/group"
  echo "$name:x:$uid:$gid::$home:/usr/sbin/nologin" >>"$root/etc/passwd"
  if [[ -f "$root/etc/shadow" ]]; then echo "$name:*:1::::::" >>"$root/etc/shadow"; fi
  if [[ -f "$root/etc/gshadow" ]] && ! grep -q "^$name:" "$root/etc/gshadow"; then
    echo "$name:!::" >>"$root/etc/gshadow"
  fi
}

cmd_purge_perl() {
  local root="$1" pkgs=()
  mapfile -t pkgs < <(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${db:Status-Abbrev} ${Package}\n' |
    awk '$1 == "ii" && ($2 == "perl" || $2 == "usrmerge" || $2 ~ /^libperl5/ || $2 ~ /^perl-modules-/ || $2 ~ /-perl$/) {print $2}')
  (( ${#pkgs[@]} )) || return 0
  if [[ " ${pkgs[*]} " == *" usrmerge "* ]]; then
    # init-system-helpers needs usrmerge | usr-is-merged: the latter is the marker without perl
    chroot "$root" apt-get install -y -q --no-install-recommends usr-is-merged
  fi
  echo "purging ${pkgs[*]}"
  # dpkg removes what no remaining package needs and keeps the rest (postgresql-common needs perl):
  # a partial purge still leaves a true package database.
  chroot "$root" dpkg --purge "${pkgs[@]}" ||
    echo "kept the perl packages other packages depend on (trim drops their files for the servers)"
}

cmd_trim() {
  local root="$1" kind="$2" link target
  local lib="$root/usr/lib/x86_64-linux-gnu"
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/var/cache/debconf/*-old \
    "$root"/var/lib/dpkg/*-old "$root"/usr/share/man "$root"/usr/share/info \
    "$root"/usr/share/locale "$root"/usr/share/i18n "$root"/usr/share/lintian
  find "$root/var/log" -type f -delete
  find "$root/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
  find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
  case "$kind" in
    node) return ;;  # a build base: keeps perl-base, so dpkg/debconf work in images built on it
    redis | valkey | postgres) ;;
    *) die "unknown kind $kind" ;;
  esac
  # perl (only Debian's tooling uses it) and glibc's iconv modules (the servers convert no charsets
  # through iconv; UTF-8 and ASCII are built into glibc)
  rm -rf "$root"/usr/bin/perl "$root"/usr/bin/perl5.* "$lib"/perl "$lib"/perl-base "$lib"/perl5 \
    "$root"/usr/share/perl "$root"/usr/share/perl5 "$lib"/libperl.so* "$lib"/gconv
  [[ "$kind" == postgres ]] || return 0
  # the cluster postgresql-common's postinst made (pods initdb their own in $PGDATA)
  rm -rf "$root"/var/lib/postgresql/*/main "$root"/etc/postgresql/*/main
  rm -rf "$root"/usr/lib/postgresql/*/lib/bitcode "$root"/usr/lib/postgresql/*/lib/llvmjit*.so \
    "$root"/usr/share/postgresql/*/man "$lib"/libLLVM*.so* "$lib"/libz3.so*
  # /usr/bin/{psql,pg_isready,...} are links to Debian's perl pg_wrapper: point them at the
  # binaries of the one installed major version instead (or drop them when it has none).
  local bindir
  bindir="$(find "$root/usr/lib/postgresql" -mindepth 2 -maxdepth 2 -type d -name bin)"
  [[ -n "$bindir" && "$(wc -l <<<"$bindir")" == 1 ]] || die "expected one PostgreSQL major version in the rootfs"
  for link in "$root"/usr/bin/*; do
    [[ -L "$link" ]] || continue
    target="$(readlink "$link")"
    [[ "$target" == */pg_wrapper ]] || continue
    if [[ -x "$bindir/$(basename "$link")" ]]; then
      ln -sfn "${bindir#"$root"}/$(basename "$link")" "$link"
    else
      rm -f "$link"
    fi
  done
}

cmd_finish() {
  local root="$1" kind="$2" uid="$3" gid="$4"
  : >"$root/etc/hostname"
  rm -f "$root/etc/resolv.conf" && : >"$root/etc/resolv.conf"
  case "$kind" in
    redis | valkey)
      install -d -m 0750 -o "$uid" -g "$gid" "$root/data"
      ;;
    postgres)
      install -d -m 0750 -o "$uid" -g "$gid" "$root/data"
      install -d -m 2775 -o "$uid" -g "$gid" "$root/run/postgresql"
      install -m 0755 "$here/postgres-entrypoint.sh" "$root/usr/local/bin/steward-postgres-entrypoint"
      ;;
    node)
      local node_tgz="$5" npm_tgz="$6"
      install -d -m 0750 -o "$uid" -g "$gid" "$root/home/nonroot"
      install -d "$root/usr/local/lib/node_modules/npm" "$root/usr/local/share/doc/node"
      tar -xzf "$node_tgz" -O package/bin/node >"$root/usr/local/bin/node"
      chmod 0755 "$root/usr/local/bin/node"
      tar -xzf "$node_tgz" -O package/LICENSE >"$root/usr/local/share/doc/node/LICENSE"
      tar -xzf "$npm_tgz" --no-same-owner --strip-components=1 -C "$root/usr/local/lib/node_modules/npm"
      ln -sfn ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
      ln -sfn ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
      ;;
    *) die "unknown kind $kind" ;;
  esac
}

[[ $# -ge 1 ]] || die "usage: rootfs.sh user|purge-perl|trim|finish ROOT ..."
command="$1"; shift
case "$command" in
  purge-perl) [[ $# == 1 ]] || die "usage: rootfs.sh purge-perl ROOT"; cmd_purge_perl "$@" ;;
  user) [[ $# == 5 ]] || die "usage: rootfs.sh user ROOT NAME UID GID HOME"; cmd_user "$@" ;;
  trim) [[ $# == 2 ]] || die "usage: rootfs.sh trim ROOT KIND"; cmd_trim "$@" ;;
  finish) [[ $# -ge 4 ]] || die "usage: rootfs.sh finish ROOT KIND UID GID [NODE_TGZ NPM_TGZ]"; cmd_finish "$@" ;;
  *) die "unknown command $command" ;;
esac
