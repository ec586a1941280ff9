#!/usr/bin/env bash
# Remakes the PNGs in docs/screenshots/: the app runs on the real xcb platform inside a private
# Xvfb display (no desktop needed) on a throwaway copy of the bundled sample project, and
# scripts/screenshots.py drives it and saves each window. Installs Xvfb and Qt's xcb libraries
# with apt-get when run as root and they are missing; otherwise names them.
#   scripts/screenshots.sh [OUT_DIR [WIDTHxHEIGHT]]
#     (default docs/screenshots at 1600x1000; docs/screenshots/1366x768/ holds the laptop-screen set)
set -euo pipefail
cd "$(dirname "$0")/.."

out="${1:-docs/screenshots}"
python="${DBSTUDIO_PYTHON:-.venv/bin/python}"
size="${2:-1600x1000}"
width="${size%x*}" height="${size#*x}"

missing=""
for pkg in xvfb libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 \
           libxcb-xinerama0 libxcb-randr0 libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0 libx11-xcb1 \
           fonts-dejavu-core; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "screenshots: installing$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
  elif ! command -v Xvfb >/dev/null 2>&1; then
    echo "screenshots: missing Debian packages:$missing" >&2
    echo "screenshots: run: sudo apt-get install$missing" >&2
    exit 1
  fi
fi
if [ ! -x "$python" ]; then
  echo "screenshots: no $python: make the virtual environment first (scripts/venv.sh)" >&2
  exit 1
fi

# A display number nobody uses (an X server leaves a lock file per display).
display=90
while [ -e "/tmp/.X$display-lock" ] || [ -e "/tmp/.X11-unix/X$display" ]; do
  display=$((display + 1))
done
Xvfb ":$display" -screen 0 "${width}x${height}x24" -nolisten tcp -dpi 96 >/dev/null 2>&1 &
xvfb_pid=$!
scratch="$(mktemp -d)"
trap 'kill "$xvfb_pid" 2>/dev/null || true; wait "$xvfb_pid" 2>/dev/null || true; rm -rf "$scratch"' EXIT
for _ in $(seq 50); do
  [ -e "/tmp/.X11-unix/X$display" ] && break
  sleep 0.1
done
if ! kill -0 "$xvfb_pid" 2>/dev/null; then
  echo "screenshots: Xvfb did not start on :$display" >&2
  exit 1
fi

mkdir -p "$out"
# The real xcb platform on the private display; settings, workspace, logs and git identity are
# the script's own, so neither the user's configuration nor their projects are touched.
env -u WAYLAND_DISPLAY QT_QPA_PLATFORM=xcb DISPLAY=":$display" XDG_RUNTIME_DIR="$scratch" \
  XDG_CONFIG_HOME="$scratch/config" DBSTUDIO_WORKSPACE="$scratch/workspace" DBSTUDIO_LOG_DIR="$scratch/logs" \
  QT_SCALE_FACTOR=1 QT_AUTO_SCREEN_SCALE_FACTOR=0 \
  "$python" scripts/screenshots.py "$out" --work "$scratch" --size "${width}x${height}"
