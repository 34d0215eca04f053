# Shared by the integration tests (ctest label `integration`): real daemons on
# loopback, each in a process group of its own under a `timeout` backstop, so
# every one stops by itself and the EXIT trap can kill whole groups.
# Sourced by bash scripts that `set -euo pipefail`.

IT_NAME=${IT_NAME:-integration}
IT_START=$(date +%s.%N)
IT_GROUPS=()
IT_LOGS=()  # more logs (not a daemon's) to show when the test fails
IT_WORK=$(mktemp -d "${TMPDIR:-/tmp}/rocm-doctor-$IT_NAME.XXXXXX")
IT_DAEMON_LIFETIME=${IT_DAEMON_LIFETIME:-170}  # seconds; ctest's TIMEOUT is longer

it_log() { echo "[$IT_NAME] $*" >&2; }

# Elapsed seconds since the test started, for the log.
it_elapsed() { awk -v s="$IT_START" -v n="$(date +%s.%N)" 'BEGIN { printf "%.1f", n - s }'; }

it_fail() {
  echo "FAIL [$IT_NAME] $*" >&2
  exit 1
}

# Every program the test needs, or a failure that names the missing package.
it_require() {
  local program
  for program in "$@"; do
    command -v "$program" >/dev/null 2>&1 ||
      it_fail "$program is not installed (packaging/test-deps.txt lists its Debian package; packaging/install-deps.sh --test installs it)"
  done
}

# A free TCP port on 127.0.0.1 (the kernel picks it; released before the daemon binds it).
it_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# it_start NAME LOG COMMAND...: runs COMMAND in its own session and process group,
# stopped by `timeout` after IT_DAEMON_LIFETIME seconds whatever happens to us.
it_start() {
  local name=$1 log=$2
  shift 2
  setsid timeout -k 5 "$IT_DAEMON_LIFETIME" "$@" >"$log" 2>&1 </dev/null &
  local pid=$!
  IT_GROUPS+=("$pid:$name:$log")
  it_log "started $name (process group $pid): $*"
}

# True while the daemon started as NAME still runs.
it_running() {
  local entry pid name log
  for entry in "${IT_GROUPS[@]}"; do
    IFS=: read -r pid name log <<<"$entry"
    if [ "$name" = "$1" ]; then kill -0 "$pid" 2>/dev/null; return; fi
  done
  return 1
}

# it_wait_for WHAT SECONDS COMMAND...: polls COMMAND every 0.2 s until it
# succeeds; fails the test (showing the daemons' logs) when it does not in time.
it_wait_for() {
  local what=$1 seconds=$2
  shift 2
  local tries=$((seconds * 5)) i
  for ((i = 0; i < tries; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  it_show_logs
  it_fail "$what: not within ${seconds}s"
}

it_show_logs() {
  local entry pid name log
  for entry in "${IT_GROUPS[@]}"; do
    IFS=: read -r pid name log <<<"$entry"
    echo "---- $name log ($log), last lines:" >&2
    tail -n 25 "$log" >&2 2>/dev/null || true
  done
  for log in "${IT_LOGS[@]}"; do
    echo "---- $log, last lines:" >&2
    tail -n 25 "$log" >&2 2>/dev/null || true
  done
}

# Stops every process group (TERM, then KILL after 5 s), removes the work folder.
it_cleanup() {
  local status=$? entry pid i
  for entry in "${IT_GROUPS[@]}"; do kill -TERM -- "-${entry%%:*}" 2>/dev/null || true; done
  for entry in "${IT_GROUPS[@]}"; do
    pid=${entry%%:*}
    for ((i = 0; i < 25; i++)); do
      kill -0 -- "-$pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [ "$status" -ne 0 ] && [ -n "${IT_KEEP_ON_FAILURE:-}" ]; then
    it_log "kept $IT_WORK"
  else
    rm -rf "$IT_WORK"
  fi
  echo "[$IT_NAME] took $(it_elapsed) s ($([ "$status" -eq 0 ] && echo passed || echo failed))" >&2
  exit "$status"
}
trap it_cleanup EXIT
trap 'exit 130' INT TERM
