#!/usr/bin/env bash
# Install DeliverBench Studio into the project's virtual environment (.venv/) and open it on
# your copy of the bundled sample project. Extra arguments go to `dbstudio` (e.g. a project
# folder to open instead, relative to the folder you run this from).
set -euo pipefail
checkout="$(cd "$(dirname "$0")/.." && pwd)"
# The set-up runs in the checkout; the app starts in the caller's folder, so that a relative
# PATH names the folder the user meant, not one inside the checkout.
(cd "$checkout" && bash scripts/system-deps.sh && bash scripts/venv.sh)
exec "$checkout/.venv/bin/dbstudio" "$@"
