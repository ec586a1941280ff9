#!/usr/bin/env bash
# The whole test suite on a fresh machine: system packages, the package with its test extras,
# then pytest. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh --test
python3 -m pip install --quiet --disable-pip-version-check -e '.[test]'
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
exec python3 -m pytest "$@"
