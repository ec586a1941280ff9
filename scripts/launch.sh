#!/usr/bin/env bash
# Install DeliverBench Studio and open it on your copy of the bundled sample project.
# Extra arguments go to `dbstudio` (e.g. a project folder to open instead).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh
python3 -m pip install --quiet --disable-pip-version-check -e .
exec dbstudio "$@"
