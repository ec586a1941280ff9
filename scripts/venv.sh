#!/usr/bin/env bash
# The project's own virtual environment, .venv/, with DeliverBench Studio installed editable
# (plus the extras named in $1, e.g. "test"). A system Python refuses `pip install` (PEP 668),
# so launch.sh and test.sh run everything from here.
# Reused while current: same Python, same pyproject.toml, same checkout folder, extras already
# in; pip runs only when one of those changed. Made anew when its Python is gone or another.
# The Python: $DBSTUDIO_PYTHON, default python3 (3.11 or newer).
set -euo pipefail
cd "$(dirname "$0")/.."

extras="${1:-}"
base="${DBSTUDIO_PYTHON:-python3}"
venv=.venv
stamp="$venv/.dbstudio-install"

say() { echo "venv: $*" >&2; }

if ! command -v "$base" >/dev/null 2>&1; then
  say "no '$base' found: install Python 3.11 or newer (Debian/Ubuntu: apt-get install python3 python3-venv)"
  exit 1
fi
if ! "$base" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  say "$base is Python $("$base" -c 'import platform; print(platform.python_version())'): 3.11 or newer is needed;" \
      "point DBSTUDIO_PYTHON at one"
  exit 1
fi

# A venv belongs to the interpreter it was made from: its version and installation prefix.
# (A venv without pip, left by a failed `python3 -m venv`, counts as unusable.)
identity='import sys; print(sys.version.split()[0], sys.base_prefix)'
wanted="$("$base" -c "$identity")"
have="$("$venv/bin/python" -c "import pip; $identity" 2>/dev/null || true)"
if [ "$have" != "$wanted" ]; then
  if [ -e "$venv" ]; then
    say "$venv was made from another or a missing Python (${have:-unusable}); making it anew"
    rm -rf "$venv"
  fi
  say "creating $venv with $base (Python ${wanted%% *})"
  if ! "$base" -m venv "$venv"; then
    rm -rf "$venv"
    say "'$base -m venv' failed: on Debian/Ubuntu install python3-venv (bash scripts/system-deps.sh does, as root)"
    exit 1
  fi
fi

current="python=$wanted
pyproject=$(sha256sum pyproject.toml | cut -d' ' -f1)
checkout=$(pwd -P)"
installed="$(cat "$stamp" 2>/dev/null || true)"
if [ "$(grep -v '^extras=' <<<"$installed" || true)" = "$current" ] \
   && { [ -z "$extras" ] || grep -qx "extras=.*\b$extras\b.*" <<<"$installed"; }; then
  say "$venv is up to date (pip skipped)"
else
  spec="."
  [ -n "$extras" ] && spec=".[$extras]"
  say "installing DeliverBench Studio${extras:+ with its $extras extras} into $venv (the first time takes minutes)"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$spec"
  # Written last, so that an interrupted install is retried next time.
  printf '%s\nextras=%s\n' "$current" "$extras" > "$stamp.tmp"
  mv "$stamp.tmp" "$stamp"
fi
say "using Python ${wanted%% *} from $(pwd -P)/$venv/bin/python (made from $(command -v "$base"), prefix ${wanted#* })"
