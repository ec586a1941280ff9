"""The cells of a plain CSV located in the file's bytes with numpy, and columns of them coded
as small integers: the fast readers of verdict and rating tables share this.

A machine-written table of a million rows spends most of a row-by-row read making Python
strings. This never makes them: it finds the separators in the bytes, packs each cell into
64-bit words, and factorizes a column once; only distinct values become strings. It reads only
what it can read exactly (a UTF-8 CSV without quotes, NUL bytes or empty lines, every row as
wide as the header); anything else raises _Declined and the caller's row reader decides.
"""

from __future__ import annotations

import codecs
from pathlib import Path

import numpy as np


class _Declined(Exception):
    """This table is not for the array readers; the row-by-row reader decides. Internal: it
    never reaches a user, so it is not a StudioError."""


# First or last bytes of an id cell that str.strip() could remove: ASCII blanks, and any byte
# of a multi-byte UTF-8 character (some of which are Unicode spaces). Such tables decline.
_EDGE_DOUBT = np.zeros(256, dtype=bool)
_EDGE_DOUBT[list(b" \t\x0b\x0c\x1c\x1d\x1e\x1f")] = True
_EDGE_DOUBT[0x80:] = True

_MIX = np.uint64(0x9E3779B97F4A7C15)  # odd multiplier for combining the words of a wide cell


# _LOW_BYTES[r]: the mask keeping the first r bytes of a little-endian 64-bit word.
_LOW_BYTES = np.array([(1 << (8 * r)) - 1 for r in range(9)], dtype=np.uint64)


# A column's cells become rows of 64-bit words as wide as its longest cell: refuse more words
# than this many times the file's size (one 10 MB cell in a 40,000-row table would ask for
# hundreds of GiB) and let the row reader, whose memory follows the text, read it.
WORDS_BUDGET = 4
# Separators are located this many bytes at a time, so the temporary mask and int64 indices
# stay small whatever the file's size.
_CHUNK = 1 << 24


def read_padded(path: Path) -> tuple[bytearray, int]:
    """The file's bytes in a buffer with 16 zero bytes after them (room for a final newline
    and for an 8-byte word read at the last cell), and the file's length. One copy, no other."""
    with path.open("rb") as handle:
        size = handle.seek(0, 2)
        handle.seek(0)
        buffer = bytearray(size + 16)
        view = memoryview(buffer)
        read = 0
        while read < size:
            got = handle.readinto(view[read:size])
            if not got:
                break
            read += got
        view.release()
    return buffer, read


class Cells:
    """The body cells of a CSV whose separators have been located. Only the separators are
    kept (int32, rows x columns): a cell starts after the previous separator and ends at its
    own, less a "\\r" before a line's "\\n"; starts and ends are made a column at a time."""

    def __init__(self, buffer: bytearray, size: int, separators: np.ndarray, first_start: int, crlf: bool):
        self.buffer, self.size, self.crlf = buffer, size, crlf
        self.bytes = np.frombuffer(buffer, dtype=np.uint8, count=size)
        self.separators = separators
        self.first_start = first_start
        self.rows = len(separators)
        # Every byte offset read as the start of a little-endian 64-bit word (stride 1 byte);
        # the buffer's zero tail lets a word run past the last cell.
        self._word_at: np.ndarray = np.ndarray((size + 1,), dtype="<u8", buffer=buffer, strides=(1,))

    def starts(self, column: int) -> np.ndarray:
        if column:
            return self.separators[:, column - 1] + np.int32(1)
        starts = np.empty(self.rows, dtype=np.int32)
        starts[0] = self.first_start
        starts[1:] = self.separators[:-1, -1] + np.int32(1)
        return starts

    def ends(self, column: int) -> np.ndarray:
        ends = self.separators[:, column]
        if self.crlf and column == self.separators.shape[1] - 1:
            return ends - (self.bytes[ends - 1] == ord("\r")).astype(np.int32)
        return ends

    def lengths(self, column: int) -> np.ndarray:
        return self.ends(column) - self.starts(column)

    def text(self, row: int, column: int) -> str:
        if column:
            start = int(self.separators[row, column - 1]) + 1
        else:
            start = int(self.separators[row - 1, -1]) + 1 if row else self.first_start
        end = int(self.separators[row, column])
        if self.crlf and column == self.separators.shape[1] - 1 and self.buffer[end - 1] == ord("\r"):
            end -= 1
        return self.buffer[start:end].decode("utf-8")

    def words(self, column: int, rows: np.ndarray | None = None) -> np.ndarray:
        """Each cell's bytes, zero-padded to a multiple of 8, as rows of 64-bit words. With no
        NUL byte in the file, equal words mean equal cells. _Declined beyond WORDS_BUDGET."""
        starts, ends = self.starts(column), self.ends(column)
        if rows is not None:
            starts, ends = starts[rows], ends[rows]
        lengths = ends - starts
        del ends
        count = max(1, -(-int(lengths.max(initial=0)) // 8))
        if len(starts) * count * 8 > WORDS_BUDGET * self.size + (1 << 20):
            raise _Declined("a cell too long for the array reader")
        words = np.empty((len(starts), count), dtype=np.uint64)
        last = self.size
        for j in range(count):
            # A cell shorter than 8j bytes may start near the end; its word is masked to 0 anyway.
            at = starts if j == 0 else np.minimum(starts + 8 * j, last)
            words[:, j] = self._word_at[at] & _LOW_BYTES[np.clip(lengths - 8 * j, 0, 8)]
        return words

    def edges_doubtful(self, columns: list[int]) -> bool:
        """Whether any cell of these columns is empty or has a first or last byte that
        str.strip() might remove."""
        for column in columns:
            starts, ends = self.starts(column), self.ends(column)
            if not (ends > starts).all():
                return True
            if _EDGE_DOUBT[self.bytes[starts]].any() or _EDGE_DOUBT[self.bytes[ends - 1]].any():
                return True
        return False


def factorize(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(code of each row, first row of each code) for rows of words, codes numbered in the
    order of their sorted keys. Wide rows are hashed to one word, then every row is compared
    with its code's first row, so a collision declines rather than merges two values.

    The distinct keys are first taken from an evenly spaced sample and every row is looked up
    among them (binary search, no sort of the whole column); only when some row is not found
    is the whole column sorted."""
    key = words[:, 0]
    for j in range(1, words.shape[1]):
        key = key * _MIX ^ words[:, j]
    n = len(key)
    distinct = np.unique(key[::max(1, n // 65536)])
    codes = np.searchsorted(distinct, key)
    np.minimum(codes, len(distinct) - 1, out=codes)
    if not np.array_equal(distinct[codes], key):
        distinct, codes = np.unique(key, return_inverse=True)
        codes = codes.reshape(-1)
    first = np.full(len(distinct), n, dtype=np.int64)
    np.minimum.at(first, codes, np.arange(n))
    if words.shape[1] > 1:
        owner = first[codes]  # each row's code's first row; compared a word at a time to spare memory
        if not all(np.array_equal(words[owner, j], words[:, j]) for j in range(words.shape[1])):
            raise _Declined("hash collision")
    return codes, first


def split_cells(buffer: bytearray, size: int) -> tuple[list[str], Cells]:
    """The header's names and the body's cells of a plain CSV read by read_padded, or
    _Declined. A final newline may be added in the buffer's spare bytes."""
    start = len(codecs.BOM_UTF8) if buffer.startswith(codecs.BOM_UTF8) else 0
    if start == size:
        raise _Declined("an empty file")
    if buffer.find(b'"', start, size) >= 0 or buffer.find(b"\x00", start, size) >= 0:
        raise _Declined("quotes or NUL bytes: csv.reader's rules apply")
    crlf = buffer.find(b"\r", start, size) >= 0
    if crlf and buffer.count(b"\r", start, size) != buffer.count(b"\r\n", start, size):
        raise _Declined("bare carriage returns: csv.reader's rules apply")
    if buffer[size - 1] != ord("\n"):
        buffer[size] = ord("\n")
        size += 1
    raw = np.frombuffer(buffer, dtype=np.uint8, count=size)
    if raw[start:].max() >= 0x80:
        try:
            codecs.utf_8_decode(memoryview(buffer)[start:size], "strict", True)
        except UnicodeDecodeError:
            raise _Declined("not UTF-8") from None
    header_end = buffer.index(b"\n", start)
    header = buffer[start:header_end].decode("utf-8").rstrip("\r").split(",")
    width, lines = len(header), buffer.count(b"\n", start, size)
    # With every line as wide as the header (checked below), a line of two or more cells is
    # never empty; a one-column table needs the look for empty lines.
    if width < 2 and (buffer[start] in b"\r\n" or buffer.find(b"\n\n", start, size) >= 0
                      or buffer.find(b"\n\r\n", start, size) >= 0):
        raise _Declined("empty lines")
    if size >= 1 << 31:
        raise _Declined("a file over 2 GiB")
    if lines < 2 or buffer.count(b",", start, size) + lines != lines * width:
        raise _Declined("no body, or rows of different widths")
    ends = np.empty(lines * width, dtype=np.int32)
    filled = 0
    for at in range(start, size, _CHUNK):
        chunk = raw[at:at + _CHUNK]
        found = np.flatnonzero((chunk == ord(",")) | (chunk == ord("\n")))
        ends[filled:filled + len(found)] = found
        ends[filled:filled + len(found)] += np.int32(at)
        filled += len(found)
    ends = ends.reshape(lines, width)
    if not (raw[ends[:, -1]] == ord("\n")).all():
        raise _Declined("rows of different widths")  # with `lines` newlines in all, each ends a row
    return header, Cells(buffer, size, ends[1:], int(ends[0, -1]) + 1, crlf)
