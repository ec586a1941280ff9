#!/usr/bin/env bash
# Does the README's set-up work on a stock Debian 12? Builds (once) a minimal bookworm root
# filesystem with debootstrap, with only git and python3 added, then on a fresh copy of it runs
# the README's two commands in a chroot, as root, on a clean clone of this checkout's HEAD:
#   bash scripts/launch.sh   must reach the window: with no display it stops with the app's
#                            no-display message; offscreen it must be still running after 60 s;
#   bash scripts/test.sh     must pass (with no git identity configured, as on a stock machine).
# Needs root, and the network to Debian's mirror and PyPI. Not run by the test suite (minutes).
# Usage: bash scripts/check-stock-debian.sh [WORKDIR]   (default /var/tmp/dbstudio-stock-debian;
#        keep it outside the checkout). WORKDIR/base is reused; delete it to bootstrap anew.
set -euo pipefail

checkout="$(cd "$(dirname "$0")/.." && pwd -P)"
work="$(realpath -m "${1:-/var/tmp/dbstudio-stock-debian}")"
base="$work/base"
run="$work/run"
case "$work/" in "$checkout"/*) echo "check-stock-debian: keep $work outside the checkout" >&2; exit 2;; esac
[ "$(id -u)" = 0 ] || { echo "check-stock-debian: run as root (debootstrap and chroot)" >&2; exit 2; }

say() { echo "check-stock-debian: $*" >&2; }

# Debian's mirror as this machine's apt knows it (deb822 or one-line sources), else the default.
mirror="$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n1)"
[ -n "$mirror" ] || mirror="$(awk '$1 == "deb" && $0 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)"
mirror="${mirror:-http://deb.debian.org/debian}"

# The network settings the chroot shares with this machine: name resolution, and pip's
# certificate bundle when this machine names one (a proxy that re-signs TLS needs it).
share_network_settings() {
  local root="$1"
  cp -L /etc/resolv.conf "$root/etc/resolv.conf"
  local cert=""
  [ -f /etc/pip.conf ] && cert="$(sed -n 's/^ *cert *= *//p' /etc/pip.conf | head -n1)"
  cert="${cert:-${PIP_CERT:-}}"
  if [ -n "$cert" ] && [ -f "$cert" ]; then
    cp -L "$cert" "$root/etc/host-ca-bundle.crt"
    printf '[global]\ncert = /etc/host-ca-bundle.crt\n' > "$root/etc/pip.conf"
  fi
}

mounted=()
unmount_all() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
  mounted=()
}
trap unmount_all EXIT
mount_system() {
  local root="$1"
  mount -t proc proc "$root/proc" && mounted+=("$root/proc")
  mount -t sysfs sysfs "$root/sys" && mounted+=("$root/sys")
  mount --bind /dev "$root/dev" && mounted+=("$root/dev")
  mount -t devpts devpts "$root/dev/pts" && mounted+=("$root/dev/pts")
}

# What a user's login shell has on a stock machine, nothing of this machine's environment.
in_chroot() {
  chroot "$run" /usr/bin/env -i HOME=/root USER=root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

if [ ! -f "$base/.stock-ready" ]; then
  command -v debootstrap >/dev/null || { say "installing debootstrap"; apt-get install -y -qq debootstrap >/dev/null; }
  rm -rf "$base"
  mkdir -p "$work"
  say "debootstrap --variant=minbase bookworm from $mirror"
  debootstrap --variant=minbase bookworm "$base" "$mirror" > "$work/debootstrap.log" 2>&1 \
    || { tail -n 20 "$work/debootstrap.log" >&2; exit 1; }
  share_network_settings "$base"
  say "adding git and python3, nothing else"
  chroot "$base" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
    sh -c 'apt-get update -qq && apt-get install -y -qq git python3 && apt-get clean' > "$work/base-packages.log" 2>&1 \
    || { tail -n 20 "$work/base-packages.log" >&2; exit 1; }
  touch "$base/.stock-ready"
fi

say "fresh copy of the stock root filesystem"
rm -rf "$run"
cp -a "$base" "$run"
share_network_settings "$run"
git clone --quiet --no-local "$checkout" "$run/root/deliverbench-studio"
say "clone of $(git -C "$checkout" rev-parse --short HEAD) ($(git -C "$checkout" rev-parse --abbrev-ref HEAD))"
mount_system "$run"
python_version="$(in_chroot python3 --version)"
say "$(. "$run/etc/os-release" && echo "$PRETTY_NAME"), $python_version, $(in_chroot git --version)"

failed=0
started=$(date +%s)
set +e
in_chroot bash -c 'cd /root/deliverbench-studio && bash scripts/launch.sh' > "$work/launch.log" 2>&1
launch_rc=$?
set -e
launch_seconds=$(( $(date +%s) - started ))
if [ "$launch_rc" = 2 ] && grep -q "no display to open a window on" "$work/launch.log"; then
  say "launch.sh without a display: stopped with the no-display message, as expected (${launch_seconds} s, first run)"
else
  say "launch.sh without a display: FAILED (exit $launch_rc); see $work/launch.log"; tail -n 20 "$work/launch.log" >&2; failed=1
fi

started=$(date +%s)
set +e
in_chroot bash -c 'cd /root/deliverbench-studio && bash scripts/test.sh' > "$work/test.log" 2>&1
test_rc=$?
set -e
test_seconds=$(( $(date +%s) - started ))
summary="$(grep -E '^=+ .*(passed|failed|error).* =+$' "$work/test.log" | tail -n1)"
if [ "$test_rc" = 0 ]; then
  say "test.sh: passed in ${test_seconds} s: $summary"
else
  say "test.sh: FAILED (exit $test_rc) in ${test_seconds} s: ${summary:-no summary}; see $work/test.log"
  tail -n 30 "$work/test.log" >&2; failed=1
fi
# Offscreen the app opens its window for real: the user's sample copy made and committed, and
# the app still running after 60 s, is success.
# Its first start commits the user's copy of the sample, so git needs an identity: set it as
# git's own message tells a new user to (after the tests, which must not depend on it).
in_chroot git config --global user.name "Stock Debian Check"
in_chroot git config --global user.email "stock-debian-check@example.org"
set +e
in_chroot bash -c 'cd /root/deliverbench-studio && QT_QPA_PLATFORM=offscreen timeout 60 bash scripts/launch.sh' \
  > "$work/launch-offscreen.log" 2>&1
offscreen_rc=$?
set -e
sample_copy="$run/root/DeliverBench/kestrel-refinancing"
if [ "$offscreen_rc" = 124 ] && git -C "$sample_copy" rev-parse -q --verify HEAD >/dev/null; then
  say "launch.sh offscreen: the sample was copied and committed (~/DeliverBench) and the window was still open after 60 s"
else
  say "launch.sh offscreen: FAILED (exit $offscreen_rc); see $work/launch-offscreen.log"
  tail -n 20 "$work/launch-offscreen.log" >&2; failed=1
fi

grep -h "^venv: using" "$work/launch.log" "$work/test.log" | sed 's/^/check-stock-debian: /' >&2 || true

unmount_all
exit "$failed"
