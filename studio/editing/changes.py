"""What an edit touched: the project files and the object ids, so views refresh only those."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Changes:
    """Files (relative to the project folder) and object ids an edit changed."""

    files: frozenset[str] = frozenset()
    ids: frozenset[str] = frozenset()

    @classmethod
    def of(cls, file: str, *ids: str | None) -> Changes:
        return cls(frozenset((file,)), frozenset(i for i in ids if i))

    def __or__(self, other: Changes) -> Changes:
        return Changes(self.files | other.files, self.ids | other.ids)

    def __bool__(self) -> bool:
        return bool(self.files or self.ids)
