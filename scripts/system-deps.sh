#!/usr/bin/env bash
# Debian packages DeliverBench Studio needs beyond Python: Qt's runtime libraries (offscreen
# and X11/xcb) and git. Installs only what is missing, and only as root; otherwise it names
# the packages to install. A package this Debian release lacks (renamed in a later release)
# is reported and skipped rather than failing the whole install.
set -euo pipefail

QT_RUNTIME="libgl1 libegl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3 libglib2.0-0
  libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0
  libxcb-xinerama0 libxcb-randr0 libxcb-shape0 libxcb-xkb1 fonts-dejavu-core"
BASE="git"
# The tests run Qt offscreen; nothing extra is needed for them today.
TEST_EXTRA=""

wanted="$QT_RUNTIME $BASE"
[ "${1:-}" = "--test" ] && wanted="$wanted $TEST_EXTRA"

missing=""
for pkg in $wanted; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "system-deps: not a Debian system; install the equivalents of:$missing" >&2
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "system-deps: missing Debian packages:$missing" >&2
  echo "system-deps: run: sudo apt-get install$missing" >&2
  exit 1
fi
echo "system-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
if ! apt-get install -y -qq --no-install-recommends $missing >/dev/null; then
  for pkg in $missing; do
    apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null \
      || echo "system-deps: could not install $pkg (not in this release?); continuing" >&2
  done
fi
