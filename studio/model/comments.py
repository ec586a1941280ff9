"""A comment thread on a subtask or criterion: comments/<thread-id>.yaml, one file per thread so that
experts opening threads at the same time never touch the same file."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Self

from pydantic import Field, StringConstraints, model_validator

from studio.model.base import Identifier, StrictModel

Text = Annotated[str, StringConstraints(min_length=1, pattern=r"\S")]


class CommentMessage(StrictModel):
    """One message of a thread: the opening question, or a reply."""

    author: Text = Field(description="Who wrote it (git user.name when it was written).")
    email: str | None = Field(default=None, description="The author's git user.email, when set.")
    at: datetime = Field(description="When it was written (ISO 8601, with the time zone).")
    text: Text


class CommentThread(StrictModel):
    """A thread of messages about one subtask or criterion, open until someone resolves it."""

    id: Identifier = Field(description="The thread's id; the file is comments/<id>.yaml.")
    target: Identifier = Field(description="The subtask id (T03) or criterion id (T03-C02) discussed.")
    opened_by: Text
    opened_at: datetime
    messages: list[CommentMessage] = Field(min_length=1, description="The opening message, then the replies in order.")
    resolved_by: str | None = None
    resolved_at: datetime | None = None

    @model_validator(mode="after")
    def _check_resolution(self) -> Self:
        if (self.resolved_by is None) != (self.resolved_at is None):
            raise ValueError("a resolved thread has both 'resolved_by' and 'resolved_at'; an open one has neither")
        return self

    @property
    def resolved(self) -> bool:
        return self.resolved_by is not None
