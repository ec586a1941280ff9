#!/usr/bin/env bash
# Install DeliverBench Studio into the project's virtual environment (.venv/) and open it on
# your copy of the bundled sample project. Extra arguments go to `dbstudio` (e.g. a project
# folder to open instead).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh
bash scripts/venv.sh
exec .venv/bin/dbstudio "$@"
