#!/usr/bin/env bash
# Build the desktop app as one folder, dist/dbstudio/, whose executable dist/dbstudio/dbstudio is
# the same `dbstudio` command line as the installed script (no command opens the window). It
# carries Python, Qt and the templates, sample project and schemas: copy the folder anywhere.
# Uses PyInstaller from the project's virtual environment (.venv/ with the `build` extras) and
# packaging/dbstudio.spec; PyInstaller's work files go to build/. Extra arguments go to
# PyInstaller (e.g. --clean to rebuild from scratch).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v objdump >/dev/null 2>&1; then
  echo "build-app: PyInstaller needs objdump: install binutils (sudo apt-get install binutils)" >&2
  exit 1
fi
bash scripts/venv.sh build

app=dist/dbstudio
start=$(date +%s)
.venv/bin/python -m PyInstaller --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller \
  "$@" packaging/dbstudio.spec
seconds=$(( $(date +%s) - start ))

# The build must start: its own version line, not the build environment's.
version="$("$app/dbstudio" --version)"
size="$(du -sh "$app" | cut -f1)"
files="$(find "$app" -type f | wc -l)"
echo "build-app: $version built in ${seconds} s"
echo "build-app: the app is $(pwd -P)/$app/dbstudio ($size in $files files; run it from there or copy the folder)"
