#!/usr/bin/env bash
# A private Docker engine for trial runs and their tests, started without systemd.
#
#   scripts/dockerd.sh start|stop|restart|status|socket
#
# Everything the engine keeps lives under one state directory (default /var/lib/dbstudio-dockerd,
# or $DBSTUDIO_DOCKERD_DIR):
#   data/          --data-root (images, containers)
#   exec/          --exec-root (runtime state, containerd's socket)
#   dockerd.pid    --pidfile
#   docker.sock    the engine's unix socket (-H unix://...)
#   dockerd.log    the engine's output
# Each path can also be pointed elsewhere on its own, so an engine started by hand can be the one this
# script manages: DBSTUDIO_DOCKERD_DATA_ROOT, _EXEC_ROOT, _PIDFILE, _SOCKET and _LOG, set in the
# environment or as KEY=value lines (no quotes) in the state directory's dockerd.env (the environment wins). DBSTUDIO_DOCKERD_ARGS adds arguments to dockerd.
# A second engine beside another one on the same machine must not touch the first one's docker0 bridge
# or firewall rules: set DBSTUDIO_DOCKERD_BRIDGE="NAME CIDR" (e.g. "dbsd1 10.213.7.1/24"): the script
# creates that bridge and starts dockerd with --bridge=NAME --iptables=false (containers with network
# then reach the host's bridge only), and deletes the bridge on stop. Never "--bridge=none" there:
# dockerd then deletes docker0, under the other engine's feet.
#
# `start` reuses an engine already answering on the socket, waits until a new one answers
# (DBSTUDIO_DOCKERD_TIMEOUT seconds, default 60) and prints the DOCKER_HOST url on stdout.
# `restart` stops the engine (SIGTERM, waits for it to exit) and starts it again with the same paths.
set -euo pipefail

dir="${DBSTUDIO_DOCKERD_DIR:-/var/lib/dbstudio-dockerd}"
if [ -f "$dir/dockerd.env" ]; then
  while IFS='=' read -r key value; do
    case "$key" in
      DBSTUDIO_DOCKERD_DATA_ROOT|DBSTUDIO_DOCKERD_EXEC_ROOT|DBSTUDIO_DOCKERD_PIDFILE|DBSTUDIO_DOCKERD_SOCKET|\
      DBSTUDIO_DOCKERD_LOG|DBSTUDIO_DOCKERD_ARGS|DBSTUDIO_DOCKERD_BRIDGE|DBSTUDIO_DOCKERD_TIMEOUT)
        [ -n "${!key+set}" ] || printf -v "$key" '%s' "$value" ;;
    esac
  done < "$dir/dockerd.env"
fi
data_root="${DBSTUDIO_DOCKERD_DATA_ROOT:-$dir/data}"
exec_root="${DBSTUDIO_DOCKERD_EXEC_ROOT:-$dir/exec}"
pidfile="${DBSTUDIO_DOCKERD_PIDFILE:-$dir/dockerd.pid}"
socket="${DBSTUDIO_DOCKERD_SOCKET:-$dir/docker.sock}"
logfile="${DBSTUDIO_DOCKERD_LOG:-$dir/dockerd.log}"
timeout="${DBSTUDIO_DOCKERD_TIMEOUT:-60}"
url="unix://$socket"

say() { echo "dockerd.sh: $*" >&2; }

# Answers when an engine serves the socket: the docker CLI if there is one, else a raw API ping.
answers() {
  [ -S "$socket" ] || return 1
  if command -v docker >/dev/null 2>&1; then
    DOCKER_HOST="$url" timeout 10 docker version --format '{{.Server.Version}}' >/dev/null 2>&1
  elif command -v curl >/dev/null 2>&1; then
    timeout 10 curl -sf --unix-socket "$socket" http://localhost/_ping >/dev/null 2>&1
  else
    timeout 10 python3 - "$socket" >/dev/null 2>&1 <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n")
sys.exit(0 if b" 200 " in s.recv(200) else 1)
EOF
  fi
}

# The pid in the pidfile when it is a running dockerd (a stale file after a crash or a reboot is not).
running_pid() {
  [ -f "$pidfile" ] || return 1
  local pid
  pid="$(tr -dc 0-9 < "$pidfile")"
  [ -n "$pid" ] && [ -r "/proc/$pid/comm" ] && [ "$(cat "/proc/$pid/comm")" = "dockerd" ] || return 1
  echo "$pid"
}

# Polls "$@" every STEP seconds until it succeeds; after $timeout seconds says WHAT with the log's end
# and exits 1.   wait_until WHAT STEP COMMAND [ARGS...]
wait_until() {
  local what="$1" step="$2"
  shift 2
  local deadline=$((SECONDS + timeout))
  until "$@"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      say "$what within ${timeout}s; the end of $logfile:"
      tail -n 25 "$logfile" >&2
      exit 1
    fi
    sleep "$step"
  done
}

# The new engine answers; a dockerd that died on the way ends the wait at once with its log.
started() {
  answers && return 0
  if ! kill -0 "$child" 2>/dev/null; then
    say "dockerd exited before answering at $url; the end of $logfile:"
    tail -n 25 "$logfile" >&2
    exit 1
  fi
  return 1
}

exited() { [ ! -d "/proc/$1" ]; }

need_root() {
  if [ "$(id -u)" != "0" ]; then
    say "starting or stopping a Docker engine needs root (dockerd manages cgroups, mounts and"
    say "network namespaces): run 'sudo $0 $1', or start Docker yourself and set DOCKER_HOST"
    exit 1
  fi
}

start() {
  if answers; then
    say "an engine already answers at $url; reusing it"
    echo "$url"
    return 0
  fi
  need_root start
  if ! command -v dockerd >/dev/null 2>&1; then
    say "dockerd is not installed: install Debian's docker.io (scripts/system-deps.sh --test does)"
    exit 1
  fi
  if pid="$(running_pid)"; then
    say "dockerd (pid $pid) owns $pidfile but does not answer at $url; stop it first: $0 stop"
    exit 1
  fi
  case " ${DBSTUDIO_DOCKERD_ARGS:-} " in
    *" --bridge=none "*|*" -b none "*|*" --bridge none "*)
      if ip link show docker0 >/dev/null 2>&1; then
        say "--bridge=none makes dockerd delete docker0, which another engine uses here; set"
        say "DBSTUDIO_DOCKERD_BRIDGE=\"NAME CIDR\" for a bridge of this engine's own instead"
        exit 1
      fi ;;
  esac
  local bridge_args=()
  if [ -n "${DBSTUDIO_DOCKERD_BRIDGE:-}" ]; then
    local bridge cidr
    read -r bridge cidr <<<"$DBSTUDIO_DOCKERD_BRIDGE"
    if ! ip link show "$bridge" >/dev/null 2>&1; then
      ip link add "$bridge" type bridge && ip addr add "$cidr" dev "$bridge" && ip link set "$bridge" up
    fi
    bridge_args=(--bridge="$bridge" --iptables=false)
  fi
  rm -f "$pidfile"
  mkdir -p "$data_root" "$exec_root" "$(dirname "$pidfile")" "$(dirname "$socket")" "$(dirname "$logfile")"
  # A socket file left by an engine that died would make the new one fail to listen.
  [ -S "$socket" ] && rm -f "$socket"
  # shellcheck disable=SC2086  # DBSTUDIO_DOCKERD_ARGS is a list of arguments on purpose
  setsid dockerd --data-root "$data_root" --exec-root "$exec_root" --pidfile "$pidfile" \
    -H "$url" "${bridge_args[@]}" ${DBSTUDIO_DOCKERD_ARGS:-} >>"$logfile" 2>&1 </dev/null &
  child=$!
  wait_until "dockerd (pid $child) did not answer at $url" 1 started
  say "engine started (pid $child, state in $dir, log $logfile)"
  echo "$url"
}

stop() {
  local pid
  if ! pid="$(running_pid)"; then
    say "no dockerd is running for $pidfile"
    return 0
  fi
  need_root stop
  kill -TERM "$pid"
  # dockerd stops its containers (10 s each at most) and containerd before it exits.
  wait_until "dockerd (pid $pid) did not exit after SIGTERM" 0.1 exited "$pid"
  if [ -n "${DBSTUDIO_DOCKERD_BRIDGE:-}" ]; then
    ip link delete "${DBSTUDIO_DOCKERD_BRIDGE%% *}" 2>/dev/null || true
  fi
  say "engine stopped (pid $pid)"
}

status() {
  if answers; then
    echo "running: $url${pid:+ (pid $pid)}"
  elif pid="$(running_pid)"; then
    echo "starting or stuck: dockerd pid $pid does not answer at $url (log $logfile)"
    return 1
  else
    echo "stopped: nothing answers at $url"
    return 3
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  restart) stop; start ;;
  status) pid="$(running_pid || true)"; status ;;
  socket) echo "$url" ;;
  *) echo "usage: $0 start|stop|restart|status|socket" >&2; exit 2 ;;
esac
