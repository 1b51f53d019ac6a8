# Sourced by tools/control-plane/build.sh and tools/node-tier/build.sh: a Go build into a cache entry
# outside the repository, reused while its stamp (a hash of the wrapper module's go.mod and go.sum)
# matches (for a module of our own, its sources too), with progress every 30 s on cold builds, a lock per entry so concurrent runs build once,
# and a failed step that names itself and its log.
#
# The caller sets: cache (the cache root), print_env (true|false), component (the name in messages).

# Messages go to stderr under --print-env, so that stdout is only what eval reads.
say() { if $print_env; then echo "$*" >&2; else echo "$*"; fi; }

fail() { say "$component: $*"; exit 1; }

# A module's stamp: go.mod, go.sum and, for a module of our own, its Go sources (file names included).
stamp_of() {
  (cd "$1" && { cat go.mod go.sum; find . -name '*.go' -type f | LC_ALL=C sort | while read -r f; do echo "$f"; cat "$f"; done; }) |
    sha256sum | cut -d' ' -f1
}

# build_entry <step name> <module dir> <cache entry> <ldflags> <go build args and packages...>
build_entry() {
  local step="$1" mod="$2" entry="$3" ldflags="$4"; shift 4
  local dest="$cache/$entry" stamp; stamp="$(stamp_of "$mod")"
  mkdir -p "$cache/logs"
  if [[ -f "$dest/.stamp" && "$(cat "$dest/.stamp")" == "$stamp" ]]; then
    say "$component: $step cached at $dest"
    return
  fi
  exec 9>"$cache/.$entry.lock"
  flock 9
  if [[ -f "$dest/.stamp" && "$(cat "$dest/.stamp")" == "$stamp" ]]; then
    say "$component: $step cached at $dest (built by a concurrent run)"
    exec 9>&-
    return
  fi
  local log="$cache/logs/$entry.log" tmp="$cache/.$entry.tmp.$$" start=$SECONDS
  rm -rf "$tmp" && mkdir -p "$tmp/bin"
  say "$component: building $step (cold builds take minutes; log: $log)"
  (
    cd "$mod"
    CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$tmp/bin/" "$@"
  ) >"$log" 2>&1 &
  local pid=$! next_report=$((start + 30))
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if (( SECONDS >= next_report )); then
      say "$component: still building $step... $((SECONDS - start))s"
      next_report=$((SECONDS + 30))
    fi
  done
  if ! wait "$pid"; then
    rm -rf "$tmp"
    tail -n 20 "$log" >&2 || true
    fail "step '$step' failed after $((SECONDS - start))s; full log: $log"
  fi
  echo "$stamp" >"$tmp/.stamp"
  rm -rf "$dest" && mv "$tmp" "$dest"
  say "$component: built $step in $((SECONDS - start))s -> $dest/bin"
  exec 9>&-
}

# The -ldflags that make a Kubernetes binary report its version (without them /version says v0.0.0).
k8s_ldflags() {
  local minor="${1#v1.}"; minor="${minor%%.*}"
  local vpkg=k8s.io/component-base/version
  echo "-s -w -X ${vpkg}.gitVersion=$1 -X ${vpkg}.gitMajor=1 -X ${vpkg}.gitMinor=${minor} -X ${vpkg}.gitTreeState=clean -X ${vpkg}.buildDate=1970-01-01T00:00:00Z"
}
