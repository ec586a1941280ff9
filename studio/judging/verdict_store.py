"""The verdict store: <project>/verdicts/<submission>/<rater>.yaml, one file per submission and rater.

Files are kept under git with the project (expert verdicts are precious). Each rater writes only
their own file, so two experts reviewing the same run on two machines never touch the same file
and a merge of their work cannot conflict. A file lists one verdict per block, sorted by scope
along the timeline and then by criterion id, every field on one line in a fixed order: a change
of one verdict is a change of its own lines in a diff.

Writes are safe across processes: a store's read-merge-write of a rater's file happens under the
project's verdict lock (<project>/.dbstudio/locks/verdicts.lock, a filelock held by one process at a
time and released by the kernel if it dies), so two `dbstudio verdicts give`, a judge and the app
storing at once never lose each other's verdicts; the file is read afresh under the lock.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import threading
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from filelock import FileLock
from filelock import Timeout as LockTimeout
from pydantic import ValidationError

from studio.collector import collector_paused
from studio.judging.errors import JudgingError
from studio.judging.verdict_lines import Given, read_given, read_lines
from studio.judging.verdicts import Verdict
from studio.model.vocabulary import FINAL_SCOPE
from studio.store import layout
from studio.store.atomic import AtomicWriteError, write_atomic

SUFFIX = ".yaml"
FORMAT_VERSION = 1
FIELD_ORDER = ("scope", "criterion", "verdict", "by", "role", "time", "criterion_version", "note", "evidence", "key")
CONFLICT_MARKERS = ("<<<<<<< ", "=======", ">>>>>>> ", "||||||| ")
_PLAIN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:/@+-]*")
_SLUG_DROP = re.compile(r"[^a-z0-9._-]+")
_DIGITS = re.compile(r"(\d+)")
# One rater's file is read, merged and written under this lock, so two threads of the app (a judge
# running in the background, the expert's keystrokes) never lose each other's verdicts; the file
# lock below does the same between processes.
_WRITING = threading.Lock()
LOCK_FILE = ".dbstudio/locks/verdicts.lock"
# A write holds the lock for milliseconds; a process holding it longer than this is stuck.
LOCK_WAIT_S = 30.0
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class VerdictFileError(JudgingError):
    """A verdict file cannot be read; the message names the file, the line and the fix."""

    def __init__(self, path: Path, line: int, message: str):
        self.path, self.line, self.problem = path, line, message
        super().__init__(f"{path}:{line}: {message}")


def rater_slug(rater: str) -> str:
    """The file name (without .yaml) of a rater: lower-case ASCII letters, digits, '.', '_', '-'.
    "judge:gpt-4o" -> "judge-gpt-4o", "Marta Lindqvist" -> "marta-lindqvist"."""
    ascii_text = unicodedata.normalize("NFKD", rater).encode("ascii", "ignore").decode("ascii")
    slug = _SLUG_DROP.sub("-", ascii_text.lower()).strip("-.")
    if not slug:
        raise JudgingError(
            f"rater name {rater!r} has no letter or digit a file name can hold: "
            "give the rater a name with letters or digits"
        )
    return slug


def check_submission_id(submission_id: str) -> str:
    """A submission id names a folder under verdicts/: no path separator, not '.' or '..'."""
    if (
        not submission_id
        or submission_id != submission_id.strip()
        or "/" in submission_id
        or "\\" in submission_id
        or submission_id.startswith(".")
        or any(ord(char) < 32 for char in submission_id)
    ):
        raise JudgingError(
            f"submission id {submission_id!r} cannot name a folder of the verdict store: use a run id "
            "or a folder name without '/', '\\' or a leading '.'"
        )
    return submission_id


class VerdictStore:
    """Every verdict of a project; the files are read on demand. A file is parsed again only when it
    changed on disk (see `_read_file`), so a review storing verdict after verdict, and the views that
    read the store again after each, pay for the one file that changed."""

    def __init__(self, project_dir: Path, timeline: Callable[[], list[str]] | None = None):
        """`timeline`: the project's subtasks in order, from a caller that has the project loaded
        already (else the store loads it on its first write)."""
        self.project_dir = Path(project_dir)
        self.root = layout.verdicts_dir(self.project_dir)
        self._timeline: list[str] | None = None
        self._timeline_of = timeline
        self.lock_wait_s = LOCK_WAIT_S

    # -- where ----------------------------------------------------------------------------------
    def path(self, submission_id: str, rater: str) -> Path:
        return self.root / check_submission_id(submission_id) / (rater_slug(rater) + SUFFIX)

    def submissions(self) -> list[str]:
        """The submissions with at least one verdict file, by id."""
        return sorted(self._listed())

    def _folders(self) -> list[os.DirEntry[str]]:
        """The submission folders (not hidden ones), none when there are no verdicts yet."""
        try:
            return [entry for entry in os.scandir(self.root) if not entry.name.startswith(".") and entry.is_dir()]
        except OSError:
            return []

    def _listed(self) -> dict[str, list[Path]]:
        """submission -> its verdict files by name, every folder listed once (a review reads a thousand)."""
        listed = {}
        for folder in self._folders():
            files = _files(Path(folder.path))
            if files:
                listed[folder.name] = files
        return listed

    def signed(self) -> dict[str, tuple[object, list[tuple[Path, FileSignature | None]]]]:
        """submission -> (its files' signature, its verdict files) as `signed_files` gives them, of the
        submissions `submissions()` lists, each folder scanned once."""
        listed = {}
        for folder in self._folders():
            signature, files = signed_files(Path(folder.path))
            if files:
                listed[folder.name] = (signature, files)
        return listed

    def raters(self, submission_id: str) -> list[str]:
        """The raters with a file for the submission (as each file names its rater), by file name."""
        folder = self.root / check_submission_id(submission_id)
        return [_read_file(path)[0] for path in _files(folder)]

    # -- reading --------------------------------------------------------------------------------
    def read(self, submission_id: str, rater: str) -> list[Verdict]:
        """The rater's verdicts on the submission, in file order; [] when there are none."""
        path = self.path(submission_id, rater)
        if not path.is_file():
            return []
        found, verdicts = _read_file(path)
        return verdicts if found == rater else []  # another rater whose name has the same file name

    def verdicts(self, submission_id: str) -> list[Verdict]:
        """Every rater's verdicts on the submission, each file read once."""
        with collector_paused():
            return [
                verdict
                for path in _files(self.root / check_submission_id(submission_id))
                for verdict in _read_shared(path)[1]
            ]

    def all(self) -> Iterator[tuple[str, Verdict]]:
        """(submission id, verdict) of every verdict in the store."""
        for submission_id, verdicts in self.by_submission():
            for verdict in verdicts:
                yield submission_id, verdict

    def by_submission(self, submissions: Iterable[str] | None = None) -> Iterator[tuple[str, list[Verdict]]]:
        """(submission id, every rater's verdicts on it) of the chosen submissions (all by default, by id),
        the store's folders listed once."""
        listed = self._listed()
        chosen = sorted(listed) if submissions is None else [check_submission_id(s) for s in submissions]
        for submission_id in chosen:
            paths = listed.get(submission_id, [])
            with collector_paused():
                verdicts = [verdict for path in paths for verdict in _read_shared(path)[1]]
            yield submission_id, verdicts

    # -- writing --------------------------------------------------------------------------------
    def put(self, submission_id: str, verdicts: Sequence[Verdict]) -> None:
        """Store verdicts: each replaces its rater's earlier verdict on the same (scope, criterion);
        one atomic write per rater's file."""
        by_rater: dict[str, list[Verdict]] = {}
        for verdict in verdicts:
            by_rater.setdefault(verdict.rater, []).append(verdict)
        with _WRITING, self._locked():
            for rater, given in by_rater.items():
                self._merge(submission_id, rater, given)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """The project's verdict lock, held by this process (JudgingError after LOCK_WAIT_S)."""
        path = self.project_dir / LOCK_FILE
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            ignore = path.parent / ".gitignore"
            if not ignore.is_file():  # never committed, whatever the project's own .gitignore says
                ignore.write_text("*\n", encoding="utf-8")
            lock = FileLock(path, timeout=self.lock_wait_s)
            lock.acquire()
        except LockTimeout:
            raise JudgingError(
                f"{path}: another process has been storing verdicts of this project for more than "
                f"{self.lock_wait_s:g} s (a judge, `dbstudio verdicts`, or the app): nothing was "
                "stored; let it finish and try again"
            ) from None
        except OSError as exc:
            raise JudgingError(
                f"{path}: cannot take the verdict store's lock ({exc.strerror or exc}); nothing "
                "was stored: check the project folder can be written"
            ) from None
        try:
            yield
        finally:
            lock.release()

    def _merge(self, submission_id: str, rater: str, given: list[Verdict]) -> None:
        """The rater's file with `given` in place of their earlier verdicts on the same decisions."""
        path = self.path(submission_id, rater)
        merged: dict[tuple[str, str], Verdict] = {}
        if path.is_file():
            found, earlier = _read_to_merge(path)
            if found != rater:
                raise JudgingError(
                    f"{path} holds the verdicts of {found!r}, and {rater!r} would be stored in the "
                    "same file: give the two raters names that differ in more than case or "
                    "punctuation"
                )
            merged = {(v.scope, v.criterion): v for v in earlier}
        merged.update({(v.scope, v.criterion): v for v in given})
        stored = self._sorted(merged.values())
        encoded = render_file(submission_id, rater, stored).encode("utf-8")
        try:
            write_atomic(path, encoded)
        except (AtomicWriteError, OSError) as exc:
            raise JudgingError(
                f"{path}: cannot store the verdicts ({getattr(exc, 'strerror', None) or exc}); "
                "nothing was changed: check the folder can be written and try again"
            ) from None
        _remember(path, rater, stored, encoded)

    def _sorted(self, verdicts: Iterable[Verdict]) -> list[Verdict]:
        order = {sid: i for i, sid in enumerate(self.timeline())}
        return sorted(verdicts, key=lambda v: (scope_rank(v.scope, order), _natural(v.criterion)))

    def timeline(self) -> list[str]:
        """The project's subtasks in timeline order (read once); [] when the project does not load."""
        if self._timeline is None and self._timeline_of is not None:
            try:
                self._timeline = list(self._timeline_of())
            except (OSError, ValueError):
                self._timeline_of = None
        if self._timeline is None:
            from studio.store.loader import load_project

            try:
                self._timeline = load_project(self.project_dir).project.timeline()
            except (OSError, ValueError):  # a project that cannot be read still has verdicts, sorted by id
                self._timeline = []
        return self._timeline


def scope_rank(scope: str, order: dict[str, int]) -> tuple[int, int, list[Any]]:
    """Subtasks along the timeline, then subtasks off it by id, then the final rubric."""
    if scope == FINAL_SCOPE:
        return (2, 0, [])
    if scope in order:
        return (0, order[scope], [])
    return (1, 0, _natural(scope))


def _natural(text: str) -> list[Any]:
    """C2 before C10."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in _DIGITS.split(text) if part]


def _files(folder: Path) -> list[Path]:
    """The verdict files of a submission's folder, by name (the directory entries tell files apart: no stat)."""
    try:
        with os.scandir(folder) as entries:
            names = [entry.name for entry in entries
                     if entry.name.endswith(SUFFIX) and not entry.name.startswith(".") and entry.is_file()]
    except OSError:  # not a folder (or gone)
        return []
    return [folder / name for name in sorted(names)]


# -- the file format --------------------------------------------------------------------------------
@lru_cache(maxsize=1 << 16)  # ids, versions, names and places repeat in every block: rendered once
def _scalar(value: str) -> str:
    """A string on one line: plain when YAML reads it back unchanged, else double-quoted with escapes."""
    if _PLAIN.fullmatch(value) and yaml.load(value, Loader=_Loader) == value:
        return value
    text = yaml.dump(value, Dumper=_Dumper, default_style='"', width=1 << 30, allow_unicode=True)
    return text.rstrip("\n")


def render_file(submission_id: str, rater: str, verdicts: Sequence[Verdict]) -> str:
    lines = [
        f"# Verdicts of {rater} on {submission_id}: one block per verdict (dbstudio verdict store).",
        f"format: {FORMAT_VERSION}",
        f"submission: {_scalar(submission_id)}",
        f"rater: {_scalar(rater)}",
        "verdicts:" if verdicts else "verdicts: []",
    ]
    for verdict in verdicts:
        values = {
            "scope": verdict.scope,
            "criterion": verdict.criterion,
            "verdict": verdict.verdict,
            "time": verdict.time.isoformat().replace("+00:00", "Z"),
            "criterion_version": verdict.criterion_version,
            "note": verdict.note,
            "evidence": verdict.evidence,
            "key": verdict.key,
            "by": verdict.by,
            "role": verdict.role,
        }
        first = True
        for name in FIELD_ORDER:
            value = values[name]
            if value is None or (name == "evidence" and not value):
                continue
            if isinstance(value, list):
                text = "[" + ", ".join(_scalar(ref) for ref in value) + "]"
            else:
                text = _scalar(str(value)) if name != "time" else f'"{value}"'
            lines.append(("  - " if first else "    ") + f"{name}: {text}")
            first = False
    return "\n".join(lines) + "\n"


# path -> (the file's signature when it was parsed, its rater, its verdicts): a file is parsed again only
# when its signature changes. Verdicts are frozen, so they are shared; every caller gets its own list.
_PARSED: dict[Path, tuple[tuple[int, int, int], str, list[Verdict]]] = {}
_PARSED_LIMIT = 1 << 15  # files; far more than a project holds, a bound for a long session over many projects


def _signature(path: Path) -> tuple[int, int, int] | None:
    """What changes when a file is written: inode (an atomic write is a new one), size, modification time."""
    try:
        found = path.stat()
    except OSError:
        return None
    return (found.st_ino, found.st_size, found.st_mtime_ns)


# path -> (digest of the bytes this process last wrote there, its rater, its verdicts): a merge reads the
# file's bytes under the lock and parses them again unless they are exactly what this process wrote.
_WRITTEN: dict[Path, tuple[bytes, str, list[Verdict]]] = {}


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def _remember(path: Path, rater: str, verdicts: list[Verdict], data: bytes) -> None:
    if len(_WRITTEN) >= _PARSED_LIMIT:
        _WRITTEN.clear()
    _WRITTEN[path] = (_digest(data), rater, list(verdicts))
    signature = _signature(path)
    if signature is None:
        _PARSED.pop(path, None)
        return
    if len(_PARSED) >= _PARSED_LIMIT:
        _PARSED.clear()
    _PARSED[path] = (signature, rater, list(verdicts))


def _read_to_merge(path: Path) -> tuple[str, list[Verdict]]:
    """The file as it is now, for a write under the lock: a signature can repeat (a freed inode reused
    within one tick of the clock), the bytes cannot lie, so another process's write is never missed."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise VerdictFileError(path, 1, f"cannot read the verdict file ({exc.strerror or exc})") from None
    known = _WRITTEN.get(path)
    if known is not None and known[0] == _digest(data):
        return known[1], list(known[2])
    return _parse_text(path, _decoded(path, data))


def forget_parsed() -> None:
    """Parse every file afresh next time (a bench timing a cold read; nothing else needs it)."""
    _PARSED.clear()
    _WRITTEN.clear()


def _read_file(path: Path) -> tuple[str, list[Verdict]]:
    """(the file's rater, its verdicts); VerdictFileError naming the line of any problem."""
    rater, verdicts = _read_shared(path)
    return rater, list(verdicts)


def _read_shared(path: Path) -> tuple[str, list[Verdict]]:
    """As `_read_file`, the list the cache keeps (not to be changed: a reader copying its verdicts out)."""
    signature = _signature(path)
    known = _PARSED.get(path)
    if known is not None and signature is not None and known[0] == signature:
        return known[1], known[2]
    rater, verdicts = _parse_file(path)
    if signature is not None and signature == _signature(path):  # not rewritten while it was read
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.clear()
        _PARSED[path] = (signature, rater, verdicts)
    return rater, verdicts


FileSignature = tuple[int, int, int]


def signed_files(folder: Path) -> tuple[object, list[tuple[Path, FileSignature | None]]]:
    """(what changes when any verdict file of a submission's folder is written, added or removed; its
    verdict files by name, each with its signature as `_signature` gives it), from one scan of the
    folder. A file is rewritten atomically (a new inode), so its (name, inode, size, mtime_ns) tells a
    stored verdict from an unchanged file."""
    try:
        with os.scandir(folder) as entries:
            found = sorted((entry.name, entry.stat()) for entry in entries
                           if entry.name.endswith(SUFFIX) and not entry.name.startswith("."))
    except OSError:  # unreadable now: a signature never taken for an earlier read
        return object(), [(path, None) for path in _files(folder)]
    signature = tuple((name, status.st_ino, status.st_size, status.st_mtime_ns) for name, status in found)
    return signature, [(folder / name, (status.st_ino, status.st_size, status.st_mtime_ns))
                       for name, status in found if stat.S_ISREG(status.st_mode)]


def given_in(path: Path, signature: FileSignature | None) -> Given:
    """(the file's rater, each verdict's (scope, criterion), verdict and criterion version): the verdicts
    `read_file` gives, without building them when the file is in the store's own layout (what a
    score needs of 200,000 verdicts). From the parse cache when it holds the file with `signature`;
    the same VerdictFileError as `read_file` for a file that cannot be read."""
    known = _PARSED.get(path)
    if known is not None and signature is not None and known[0] == signature:
        return _given(known[1], known[2])
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise VerdictFileError(path, 1, f"cannot read the verdict file ({exc.strerror or exc})") from None
    lean = read_given(_decoded(path, data))
    if lean is not None:
        return lean
    return _given(*_read_shared(path))  # any other layout: YAML, and the error naming the line


def _given(rater: str, verdicts: list[Verdict]) -> Given:
    return (rater, [(v.scope, v.criterion) for v in verdicts], tuple(v.verdict for v in verdicts),
            tuple(v.criterion_version for v in verdicts))


def read_file(path: Path) -> list[Verdict]:
    """The verdicts of one file of the store (VerdictFileError naming the line of any problem)."""
    return _read_file(path)[1]


def _parse_file(path: Path) -> tuple[str, list[Verdict]]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise VerdictFileError(path, 1, f"cannot read the verdict file ({exc.strerror or exc})") from None
    return _parse_text(path, _decoded(path, data))


def _decoded(path: Path, data: bytes) -> str:
    try:  # newlines read as text mode reads them: a file saved with CRLF is read the same
        return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as exc:
        raise VerdictFileError(
            path,
            1,
            f"not UTF-8 text ({exc.reason} at byte {exc.start}): restore the file from git (`git checkout -- FILE`)",
        ) from None


def _parse_text(path: Path, text: str) -> tuple[str, list[Verdict]]:
    fast = read_lines(text)  # the store's own layout, read a block at a time; anything else goes the YAML way
    if fast is not None:
        return fast
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(CONFLICT_MARKERS):
            raise VerdictFileError(
                path,
                number,
                f"a git merge conflict was left in the file ({line.split()[0]}); "
                "two machines wrote the same rater's verdicts: keep one side of each block "
                "and remove the marker lines",
            )
    try:
        data = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        at = mark.line + 1 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc)
        raise VerdictFileError(
            path,
            at,
            f"the verdict file is not valid YAML ({problem}); fix the line "
            "as the other blocks are written or restore the file from git",
        ) from None
    return _checked(path, text, data)


def _checked(path: Path, text: str, data: Any) -> tuple[str, list[Verdict]]:
    def fail(line: int, message: str) -> VerdictFileError:
        return VerdictFileError(path, line, message)

    if not isinstance(data, dict) or not isinstance(data.get("rater"), str) or not data["rater"].strip():
        raise fail(1, "not a verdict file: it needs `rater:` and a `verdicts:` list (restore it from git)")
    rater = data["rater"]
    entries = data.get("verdicts")
    if entries is None:
        entries = []
    if not isinstance(entries, list):
        raise fail(_places(text).get((None, None), 1), "`verdicts:` must be a list of blocks starting with '- scope:'")
    verdicts: list[Verdict] = []
    seen: dict[tuple[str, str], int] = {}
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise fail(
                _places(text).get((index, None), 1),
                f"verdict {index + 1} is not a block of fields (scope, criterion, verdict, ...)",
            )
        try:
            verdict = Verdict.model_validate({**entry, "rater": rater})
        except ValidationError as exc:
            error = exc.errors()[0]
            name = ".".join(str(part) for part in error["loc"]) or "block"
            places = _places(text)
            at = places.get((index, str(error["loc"][0]) if error["loc"] else None)) or places.get((index, None), 1)
            raise fail(
                at,
                f"verdict {index + 1}, field '{name}': {error['msg']}; verdicts are pass, fail, na or "
                'missing, times like "2026-11-30T20:15:00Z"',
            ) from None
        decision = (verdict.scope, verdict.criterion)
        if decision in seen:
            places = _places(text)
            raise fail(
                places.get((index, None), 1),
                f"{verdict.scope}/{verdict.criterion} is listed again (first at line "
                f"{places.get((seen[decision], None), 1)}): one rater gives one verdict per criterion; "
                "keep one of the two blocks",
            )
        seen[decision] = index
        verdicts.append(verdict)
    return rater, verdicts


def _places(text: str) -> dict[tuple[int | None, str | None], int]:
    """Lines of a verdict file, only composed when a problem is to be located: (None, None) -> the
    `verdicts:` value, (i, None) -> block i, (i, field) -> that field of block i."""
    places: dict[tuple[int | None, str | None], int] = {}
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return places
    if not isinstance(root, yaml.MappingNode):
        return places
    for key, value in root.value:
        if key.value != "verdicts":
            continue
        places[(None, None)] = value.start_mark.line + 1
        if isinstance(value, yaml.SequenceNode):
            for index, item in enumerate(value.value):
                places[(index, None)] = item.start_mark.line + 1
                if isinstance(item, yaml.MappingNode):
                    for field_key, _ in item.value:
                        places[(index, str(field_key.value))] = field_key.start_mark.line + 1
    return places
