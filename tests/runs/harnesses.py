"""Script harnesses for run tests. Each lists the whole container filesystem with content hashes
into its log (between markers), then does its subtask's work in the workspace."""

from __future__ import annotations

from pathlib import Path

LISTING_START = "=== files ==="
LISTING_END = "=== end of files ==="

LIST_FILESYSTEM = f"""\
echo "{LISTING_START}"
find / \\( -path /proc -o -path /sys -o -path /dev \\) -prune -o -type f -print 2>/dev/null \\
  | while IFS= read -r f; do sha256sum "$f" 2>/dev/null; done
echo "{LISTING_END}"
"""

WORK = """\
mkdir -p outputs
echo "session $STUDIO_SUBTASK" >> "$HOME/session.txt"
case "$STUDIO_SUBTASK" in
  T01)
    {{ echo "# Draft report"; echo; echo "The objective is stated here."; cat materials/source-notes.md; }} \\
      > outputs/report.md
    echo "scratch from T01" > outputs/notes.txt
    ;;
  T02)
    {t02}
    {{ cat outputs/report.md; echo; echo "## Revision"; cat materials/client-correction.md; echo;
       echo "Questions answered:"; cat materials/M03.md; }} > outputs/report.tmp
    mv outputs/report.tmp outputs/report.md
    rm outputs/notes.txt
    ;;
  T03)
    {t03}
    {{ cat materials/cover-template.md; echo "Sessions so far:"; cat "$HOME/session.txt"; }} > outputs/cover.md
    ;;
esac
head -1 "$STUDIO_INSTRUCTION"
"""


def write_harness(path: Path, t02: str = ":", t03: str = ":", listing: bool = True) -> Path:
    """A `#!/bin/sh` harness; `t02` / `t03` are extra shell lines run first in those subtasks."""
    body = "#!/bin/sh\nset -e\n" + (LIST_FILESYSTEM if listing else "") + WORK.format(t02=t02, t03=t03)
    path.write_text(body, encoding="utf-8")
    return path


def listed_hashes(log_text: str) -> dict[str, str]:
    """path -> sha256 of every file the harness listed in its log."""
    inside = log_text.split(LISTING_START, 1)[1].split(LISTING_END, 1)[0]
    found = {}
    for line in inside.strip().splitlines():
        digest, _, path = line.partition("  ")
        if len(digest) == 64:
            found[path] = digest
    return found
