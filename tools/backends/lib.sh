# Sourced by tools/backends/<backend>/install.sh: what every backend install shares — messages,
# the cache check under a lock, and steps that log to a file and report progress.
#
# The caller sets: backend (the name in messages), print_env (true|false), cache, version, dest;
# and defines is_current (is $dest complete and current?) and done_env (print the env, exit 0).

# Messages go to stderr under --print-env, so that stdout is only what eval reads.
say() { if $print_env; then echo "$*" >&2; else echo "$*"; fi; }

fail() { say "$backend: $*"; exit 1; }

# begin_install <entry>: exits through done_env when the entry is current; otherwise takes the
# entry's lock (waiting for a concurrent install, then checking again) and opens $log.
begin_install() {
  local entry="$1"
  if is_current; then
    say "$backend: $version cached at $dest"
    done_env
  fi
  mkdir -p "$cache/logs"
  exec 9>"$cache/.$entry.lock"
  if ! flock -n 9; then
    say "$backend: waiting for a concurrent install of $entry to finish"
    flock 9
  fi
  if is_current; then
    say "$backend: $version cached at $dest (installed by a concurrent run)"
    done_env
  fi
  log="$cache/logs/$entry.log"
  : >"$log"
  start=$SECONDS
}

# step <name> <command...>: runs the command with its output in $log, reporting every 15 s. On
# failure: the log's tail, $discard_on_failure removed, and an exit naming the step and the log.
step() {
  local name="$1"; shift
  local began=$SECONDS
  say "$backend: $name..."
  echo "=== $name: $*" >>"$log"
  "$@" >>"$log" 2>&1 &
  local pid=$! next_report=$((SECONDS + 15))
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if (( SECONDS >= next_report )); then
      say "$backend: still at '$name'... $((SECONDS - began))s"
      next_report=$((SECONDS + 15))
    fi
  done
  if ! wait "$pid"; then
    tail -n 20 "$log" >&2 || true
    rm -rf "${discard_on_failure:?}"
    fail "step '$name' failed after $((SECONDS - began))s; full log: $log"
  fi
}

# finish_install <message>: marks $dest complete with $stamp, releases the lock, done_env.
finish_install() {
  echo "$stamp" >"$dest/.stamp"
  say "$backend: $1"
  exec 9>&-
  done_env
}
