"""A text column kept compressed when it is big, read back as the same text.

For a run's scenario snapshot (74 MB of YAML at 5,000 nodes x 150,000 pods). SQLite keeps a
row as one record, so an UPDATE of any column rewrites the whole record: every worker commit
updates the run's progress (head step, last event, clock), and with the snapshot in that row
each Step read and wrote 74 MB again and appended them to the write-ahead log (0.3-0.4 s of a
Step at the envelope). Compressed (zlib level 1, 0.14 s once at the start; YAML shrinks about
70 times) the record is about 1 MB. PostgreSQL keeps big values out of line, where this only
saves space.

The stored form of a text of COMPRESS_AT characters or more is one header line, then the
compressed text in base64 (a TEXT column holds it on every database):

    #!zlib-base64 words=Lesson,urlPrefix
    eJzs...

`words`: which of the field's `flag_words` the text contains. Callers ask the database whether
a snapshot may contain one of them without reading it (`scenario_yaml__contains="Lesson"`: is
there a lesson to show?), and that question still answers for a compressed snapshot: the word
is in the header exactly when it is in the text (base64 might spell it by chance, which only
makes the caller read the text to find it is not there). Smaller texts are stored as they are.
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Iterable
from typing import Any

from django.db import models

COMPRESS_AT = 1_000_000  # characters: a smaller text is stored as it is
HEADER = "#!zlib-base64 words="


def compress(text: str, flag_words: Iterable[str] = ()) -> str:
    """The stored form of `text` (see the module's docstring)."""
    words = ",".join(w for w in flag_words if w in text)
    payload = base64.b64encode(zlib.compress(text.encode("utf-8"), 1)).decode("ascii")
    return f"{HEADER}{words}\n{payload}"


def is_compressed(value: str) -> bool:
    return value.startswith(HEADER) and "\n" in value[: len(HEADER) + 1000]


def decompress(value: str) -> str:
    """The text a stored value holds (a value stored as it is comes back unchanged)."""
    if not is_compressed(value):
        return value
    _header, _, payload = value.partition("\n")
    return zlib.decompress(base64.b64decode(payload)).decode("utf-8")


class CompressedTextField(models.TextField):
    """A TextField whose big values are stored compressed; `flag_words`: the words whose
    `__contains` lookups must keep answering for them. Migrations see a plain TextField (the
    column is the same)."""

    def __init__(self, *args: Any, flag_words: Iterable[str] = (), **kwargs: Any) -> None:
        self.flag_words = tuple(flag_words)
        super().__init__(*args, **kwargs)

    def deconstruct(self) -> Any:
        name, _path, args, kwargs = super().deconstruct()
        return name, "django.db.models.TextField", args, kwargs

    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        if isinstance(value, str) and len(value) >= COMPRESS_AT and not is_compressed(value):
            return compress(value, self.flag_words)
        return value

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        return decompress(value) if isinstance(value, str) else value

    def to_python(self, value: Any) -> Any:
        value = super().to_python(value)
        return decompress(value) if isinstance(value, str) else value
