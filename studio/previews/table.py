"""CSV rows for the preview: a row index built lazily, rows read by seeking.

Opening reads only the start of the file (the first screen is there at once, whatever the file's
size); `scan_more()` then indexes the rest a chunk at a time, on the background helper. A newline
inside a quoted field does not end a row: in a chunk holding quotes the scan counts them (RFC 4180
quotes come in pairs, escaped ones too), so a newline ends a row only where the count is even."""

from __future__ import annotations

import csv
import io
import re
import weakref
from array import array
from pathlib import Path

from studio.previews.errors import PreviewError

FIRST_CHUNK = 64 * 1024
SCAN_CHUNK = 4 * 1024 * 1024
_QUOTE_OR_NEWLINE = re.compile(rb'["\n]')


class CsvPreview:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        try:
            self._file = self.path.open("rb")
            self.file_size = self.path.stat().st_size
        except OSError as error:
            raise PreviewError(self.path, f"cannot be read ({error.strerror})") from error
        try:
            self._start()
        except PreviewError:
            self._file.close()
            raise
        # A preview dropped without close() (its window closed) still lets go of the file.
        weakref.finalize(self, self._file.close)

    def _start(self) -> None:
        head = self._file.read(FIRST_CHUNK)
        if b"\x00" in head:
            raise PreviewError(self.path, f"is not a CSV text file (it starts with {head[:8]!r})")
        self.delimiter = _delimiter(head, self.path.suffix.lower())
        self._starts = array("q", [3 if head.startswith(b"\xef\xbb\xbf") else 0])
        self._scanned = self._starts[0]
        self._in_quotes = False
        self.done = False
        self._scan(head[self._scanned:], self._scanned)
        header = self.rows(0, 1)
        self.header: list[str] = header[0] if header else []

    # -- the index ----------------------------------------------------------------------------
    @property
    def row_count(self) -> int:
        """Rows indexed so far, the header included (the last row counts once the scan reached it)."""
        count = len(self._starts) - 1
        if self.done and self._starts[-1] < self.file_size:
            count += 1
        return count

    def scan_more(self, budget: int = SCAN_CHUNK) -> bool:
        """Index up to `budget` more bytes; True once the whole file is indexed."""
        if self.done:
            return True
        with self.path.open("rb") as handle:  # its own handle: rows() may read meanwhile
            handle.seek(self._scanned)
            self._scan(handle.read(budget), self._scanned)
        return self.done

    def _scan(self, chunk: bytes, offset: int) -> None:
        starts: list[int] = []
        if not self._in_quotes and b'"' not in chunk:
            position = chunk.find(b"\n")
            while position != -1:
                starts.append(offset + position + 1)
                position = chunk.find(b"\n", position + 1)
        else:
            in_quotes = self._in_quotes
            for match in _QUOTE_OR_NEWLINE.finditer(chunk):
                if match.group() == b'"':
                    in_quotes = not in_quotes
                elif not in_quotes:
                    starts.append(offset + match.start() + 1)
            self._in_quotes = in_quotes
        self._starts.extend(starts)
        self._scanned = offset + len(chunk)
        if self._scanned >= self.file_size:
            self.done = True
            if self._in_quotes:
                raise PreviewError(self.path, f"row {len(self._starts)} opens a quoted field that is never "
                                              "closed; add the missing '\"'")

    # -- reading rows --------------------------------------------------------------------------
    def rows(self, first: int, count: int) -> list[list[str]]:
        """Rows `first` .. `first + count - 1` (0 is the header) of those indexed so far."""
        last = min(first + count, self.row_count)
        if first >= last:
            return []
        end = self._starts[last] if last < len(self._starts) else self.file_size
        self._file.seek(self._starts[first])
        text = self._file.read(end - self._starts[first]).decode("utf-8", errors="replace")
        try:
            return list(csv.reader(io.StringIO(text, newline=""), delimiter=self.delimiter))
        except csv.Error as error:
            raise PreviewError(self.path, f"row {first + 1} cannot be read: {error}") from error

    def close(self) -> None:
        self._file.close()


def _delimiter(head: bytes, suffix: str) -> str:
    if suffix == ".tsv":
        return "\t"
    # a few whole lines are enough to tell the delimiter; the sniffer's time grows with its sample
    sample = head[:4096].decode("utf-8", errors="replace")
    sample = sample[: sample.rfind("\n") + 1] or sample
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        return ","


def column_name(number: int) -> str:
    """A table's column as a spreadsheet names it: 1 is A, 26 is Z, 27 is AA (the preview's headers)."""
    name = ""
    while number > 0:
        number, rest = divmod(number - 1, 26)
        name = chr(65 + rest) + name
    return name
