#!/usr/bin/env bash
# The whole test suite on a fresh machine: system packages, the project's virtual environment
# (.venv/) with the test extras, a Docker engine and the trial-run test image, then pytest from the
# venv. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh --test
bash scripts/venv.sh test
# The trial-run tests run real containers: use the engine at $DOCKER_HOST (or Docker's default
# socket) when one answers, else start a private one (scripts/dockerd.sh, no systemd needed).
if ! docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then
  DOCKER_HOST="$(bash scripts/dockerd.sh start)"
fi
if [ -n "${DOCKER_HOST:-}" ]; then export DOCKER_HOST; fi
bash scripts/test-image.sh >/dev/null
# The real `harbor run` tests need `docker compose` (v2), which Debian 12 does not package.
bash scripts/compose-v2.sh >/dev/null
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
exec .venv/bin/python -m pytest "$@"
