#!/usr/bin/env bash
# Builds the small local image the trial-run tests use, dbstudio/test-busybox:1, with no registry:
# `docker import` of a root filesystem made on this machine from
#   - Debian's busybox-static (/bin/busybox and a link for each applet: sh, find, sha256sum, ip, ...),
#   - the host's python3.11 (DBSTUDIO_IMAGE_PYTHON to choose another), its standard library without
#     the tests, the GUI toolkits and any installed packages, and the shared libraries `ldd` lists
#     for the interpreter and for its extension modules,
#   - /tmp, /workspace, and an /etc/passwd with root and a generic user.
# With DBSTUDIO_IMAGE_BASH=1 the host's /bin/bash and its shared libraries go in too (Harbor runs
# every command with `bash -c`: the real `harbor run` tests use such an image, tagged apart). Its
# entrypoint runs the command under a shell that exits on SIGTERM: Harbor's containers idle in
# `sh -c "sleep infinity"`, which as PID 1 ignores SIGTERM, so every `docker compose down` would
# wait out Docker's 10 s grace (`docker import` cannot set a STOPSIGNAL).
# Idempotent: the image carries a label with the digest of everything that went into it (this script,
# and each source file's path, size and mtime); when an image with that label exists nothing is done.
# Prints the image id on stdout. Uses the engine at $DOCKER_HOST (scripts/dockerd.sh starts one).
set -euo pipefail
cd "$(dirname "$0")/.."

tag="${DBSTUDIO_TEST_IMAGE:-dbstudio/test-busybox:1}"
label="org.dbstudio.content"
say() { echo "test-image.sh: $*" >&2; }

command -v docker >/dev/null 2>&1 || { say "the docker CLI is missing: install docker.io (scripts/system-deps.sh --test)"; exit 1; }
busybox="$(command -v busybox || true)"
[ -x /bin/busybox ] && busybox=/bin/busybox
if [ -z "$busybox" ] || ldd "$busybox" >/dev/null 2>&1; then  # ldd fails on a static binary
  say "a static busybox is needed: install Debian's busybox-static (scripts/system-deps.sh --test)"
  exit 1
fi

py="${DBSTUDIO_IMAGE_PYTHON:-}"
if [ -z "$py" ]; then
  for candidate in /usr/bin/python3.11 "$(command -v python3.11 || true)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then py="$candidate"; break; fi
  done
fi
[ -n "$py" ] || { say "no python3.11 on this machine: install Debian's python3.11 or set DBSTUDIO_IMAGE_PYTHON"; exit 1; }
py="$(readlink -f "$py")"
stdlib="$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')"
dynload="$("$py" -c 'import sys; print(next(p for p in sys.path if p.endswith("lib-dynload")))')"
version="$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"

# What the image leaves out of the standard library: tests, GUI toolkits, installed packages, the
# static libpython for embedding (25 MB).
excludes=(--exclude=./test --exclude=./idlelib --exclude=./tkinter --exclude=./turtledemo
          --exclude=./site-packages --exclude=./dist-packages "--exclude=./config-*"
          "--exclude=*/__pycache__" --exclude=./__pycache__ --exclude=./lib2to3/tests)

bash_bin=""
if [ "${DBSTUDIO_IMAGE_BASH:-}" = 1 ]; then
  bash_bin="$(readlink -f "$(command -v bash)")"
fi

# The shared libraries of the interpreter and of every extension module (a module whose library is
# missing on the host stays out of reach inside too, exactly as on the host).
libs="$( { ldd "$py"; if [ -n "$bash_bin" ]; then ldd "$bash_bin"; fi; for module in "$dynload"/*.so; do ldd "$module"; done; } 2>/dev/null \
  | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | sort -u)"

digest="$( {
  sha256sum "$0"
  stat -Lc '%n %s %Y' "$busybox" "$py" $bash_bin $libs
  tar -C "$stdlib" "${excludes[@]}" -cf - . | tar -tvf - | awk '{print $3, $4, $5, $6}'
} | sha256sum | cut -c1-64)"

if [ "$(docker image inspect --format "{{ index .Config.Labels \"$label\" }}" "$tag" 2>/dev/null || true)" = "$digest" ]; then
  docker image inspect --format '{{.Id}}' "$tag"
  exit 0
fi

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,tmp,workspace,root,home/user,usr/lib}
chmod 1777 "$root/tmp"
cp "$busybox" "$root/bin/busybox"
# --list-full names each applet with its usual directory (bin/sh, usr/bin/find, sbin/ip).
"$busybox" --list-full | while read -r applet; do
  [ "$applet" = "bin/busybox" ] || [ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done
if [ -n "$bash_bin" ]; then
  rm -f "$root/bin/bash"  # busybox may offer a bash applet: the real one replaces it
  cp "$bash_bin" "$root/bin/bash"
fi
cp "$py" "$root/usr/bin/python$version"
ln -sf "python$version" "$root/usr/bin/python3"
# The interpreter finds its library next to it (../lib/pythonX.Y/os.py), whatever its host prefix.
mkdir -p "$root/usr/lib/python$version"
tar -C "$stdlib" "${excludes[@]}" -cf - . | tar -C "$root/usr/lib/python$version" -xf -
if [ "$dynload" != "$stdlib/lib-dynload" ]; then
  mkdir -p "$root/usr/lib/python$version/lib-dynload"
  cp -p "$dynload"/*.so "$root/usr/lib/python$version/lib-dynload/"
fi
for lib in $libs; do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
cat > "$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
user:x:1000:1000:user:/home/user:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/sh
EOF
cat > "$root/etc/group" <<'EOF'
root:x:0:
user:x:1000:
nogroup:x:65534:
EOF
chown -R 1000:1000 "$root/home/user"

say "importing $tag from $root"
changes=()
if [ -n "$bash_bin" ]; then
  mkdir -p "$root/usr/local/bin"
  printf '#!/bin/sh\n# PID 1 of the image: runs the command, exits on SIGTERM.\ntrap "exit 143" TERM\n"$@" &\nwait $!\n' \
    > "$root/usr/local/bin/dbstudio-init"
  chmod 755 "$root/usr/local/bin/dbstudio-init"
  changes+=(--change 'ENTRYPOINT ["/usr/local/bin/dbstudio-init"]')
fi
tar --numeric-owner -C "$root" -cf - . | docker import "${changes[@]}" \
  --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --change "ENV LANG=C.UTF-8" \
  --change "WORKDIR /workspace" \
  --change "LABEL $label=$digest" \
  --change 'CMD ["/bin/sh"]' \
  - "$tag" >/dev/null
docker image inspect --format '{{.Id}}' "$tag"
