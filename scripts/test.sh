#!/usr/bin/env bash
# The whole test suite on a fresh machine: system packages, the project's virtual environment
# (.venv/) with the test extras, then pytest from it. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh --test
bash scripts/venv.sh test
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
exec .venv/bin/python -m pytest "$@"
