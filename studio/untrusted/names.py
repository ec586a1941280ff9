"""File names from an agent's tree are bytes: shown escaped wherever they are printed or sent."""

from __future__ import annotations

import os
import unicodedata

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def shown(name: str | bytes) -> str:
    """`name` as printable UTF-8 text: bytes that are not UTF-8 as \\xNN, control and format characters
    (terminal escapes, newlines, bidirectional overrides) as \\xNN, \\uNNNN, \\n, and a backslash doubled,
    so two different names never show alike and nothing in a name can act on a terminal."""
    raw = name if isinstance(name, bytes) else os.fsencode(name)
    text = raw.decode("utf-8", errors="surrogateescape")
    out = []
    for char in text:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8
            out.append(f"\\x{code - 0xDC00:02x}")
        elif char in _NAMED:
            out.append(_NAMED[char])
        elif unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp"):
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(char)
    return "".join(out)
