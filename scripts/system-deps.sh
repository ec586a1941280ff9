#!/usr/bin/env bash
# Debian packages DeliverBench Studio needs beyond Python: Qt's runtime libraries (offscreen
# and X11/xcb), git, and venv support for the Python that makes .venv/ (Debian's python3 lacks
# ensurepip without python3-venv). Installs only what is missing, and only as root; otherwise
# it names the packages to install. A package this Debian release lacks (renamed in a later release)
# is reported and skipped rather than failing the whole install.
set -euo pipefail
cd "$(dirname "$0")/.."

QT_RUNTIME="libgl1 libegl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3 libglib2.0-0
  libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0
  libxcb-xinerama0 libxcb-randr0 libxcb-shape0 libxcb-xkb1 fonts-dejavu-core"
# graphviz: its `dot` lays out the app's dependency map (studio/views/depmap.py).
BASE="git graphviz"
# The tests run Qt offscreen; tests/test_packaging.py builds the app with PyInstaller, which
# reads binaries with binutils' objdump.
# docker.io and busybox-static: the trial-run tests start their own dockerd (scripts/dockerd.sh) and
# build their image from a static busybox (scripts/test-image.sh), since no registry is reachable.
TEST_EXTRA="binutils docker.io busybox-static"

wanted="$QT_RUNTIME $BASE"
[ "${1:-}" = "--test" ] && wanted="$wanted $TEST_EXTRA"

# venv support, needed only while .venv/ is still to be made (see scripts/venv.sh).
python="${DBSTUDIO_PYTHON:-python3}"
if ! .venv/bin/python -c 'import pip' >/dev/null 2>&1; then
  if ! command -v "$python" >/dev/null 2>&1; then
    wanted="$wanted python3 python3-venv"
  elif ! "$python" -c 'import ensurepip' >/dev/null 2>&1; then
    interpreter="$(readlink -f "$(command -v "$python")")"
    case "$interpreter" in
      "$(readlink -f /usr/bin/python3 2>/dev/null)") wanted="$wanted python3-venv" ;;
      /usr/bin/python3.*) wanted="$wanted ${interpreter##*/}-venv" ;;
      *) echo "system-deps: $interpreter cannot make a virtual environment (no ensurepip);" \
              "reinstall it with ensurepip, or point DBSTUDIO_PYTHON at another Python 3.11+" >&2
         exit 1 ;;
    esac
  fi
fi

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
# apt-get with its messages kept: a dpkg lock held by another package manager (an unattended
# upgrade, a second apt) fails every install, and must not be reported as packages this release
# lacks; it stops the install with what to do. Other failures pass their messages on.
apt_get() {
  local output
  if output="$(apt-get "$@" 2>&1)"; then return 0; fi
  case "$output" in
    *"Could not get lock"*|*"Unable to acquire the dpkg frontend lock"*|*"Unable to lock"*)
      echo "system-deps: another package manager is running (apt-get could not get the dpkg lock);" \
           "wait for it and retry" >&2
      exit 1 ;;
  esac
  [ -n "$output" ] && printf '%s\n' "$output" >&2
  return 1
}
echo "system-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt_get update -qq
# shellcheck disable=SC2086
if ! apt_get install -y -qq --no-install-recommends $missing; then
  for pkg in $missing; do
    apt_get install -y -qq --no-install-recommends "$pkg" \
      || echo "system-deps: could not install $pkg (not in this release?); continuing" >&2
  done
fi
