"""Names from an agent's tree are bytes: printed escaped, so nothing in a name acts on a terminal."""

from __future__ import annotations

import os

from studio.untrusted import shown


def test_plain_names_stay_as_they_are() -> None:
    assert shown("outputs/report – final é.md") == "outputs/report – final é.md"


def test_bytes_that_are_not_utf8_and_control_characters_are_escaped() -> None:
    assert shown(b"bad-\xff\xfe.txt") == "bad-\\xff\\xfe.txt"
    assert shown(os.fsdecode(b"bad-\xff.txt")) == "bad-\\xff.txt"  # the surrogate escape os.scandir gives
    assert shown("a\nb\r\t\x1b[31mred\x07") == "a\\nb\\r\\t\\x1b[31mred\\x07"
    assert shown("evil\u202etxt.exe") == "evil\\u202etxt.exe"  # a right-to-left override
    assert shown("back\\slash") == "back\\\\slash"  # so an escaped name never equals a real one
    assert shown("\x9b2J").startswith("\\x9b")  # the one-byte CSI of 8-bit terminals
    for name in ("a\nb", b"\xff", "\x1b]0;title\x07"):
        assert shown(name).isprintable()
