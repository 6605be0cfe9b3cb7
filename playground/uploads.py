"""An uploaded scenario file's text: plain YAML or JSON, or the same compressed with gzip.

A cluster dump at the Kubernetes envelope (5,000 nodes, 150,000 pods) is ~70 MB of YAML and a
tenth of that or less gzipped, so the upload forms accept either; a gzip file is recognised by
its magic bytes, whatever its name. Both limits are the scenario byte limit
(PLAYGROUND_MAX_BYTES): the file as sent, then the text it decompresses to. A gzip file's
trailer states its (last member's) size modulo 4 GiB; when that alone passes the limit (and
deflate could reach it from the file's size) the file is refused before any decompression
(microseconds: the usual "zip bomb"). Otherwise decompression is bounded: it stops as soon as
the output passes the limit (never more than the limit plus one chunk is held), so even a bomb
with a forged trailer costs a fraction of a second and the limit's memory, and is refused like
any oversized file, naming the limit and its setting.
"""

from __future__ import annotations

import zlib
from typing import Any

__all__ = ["GZIP_MAGIC", "UploadRefused", "read_upload_text"]

GZIP_MAGIC = b"\x1f\x8b"
_GZIP_WBITS = 16 + zlib.MAX_WBITS  # gzip header and trailer, no zlib or raw streams
_CHUNK = 256 * 1024
# Deflate expands at most ~1,032-fold (a 258-byte match in at most 2 bits): a trailer stating more
# than that is not a trailer (a truncated or damaged file), and decompression tells what it is.
_MAX_RATIO = 1032


class UploadRefused(ValueError):
    """The upload cannot be used; the message names the file and what is wrong (and, for a size,
    `too_large` is True: the caller adds the limit and the setting that raises it)."""

    def __init__(self, message: str, *, too_large: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.too_large = too_large


def _peek(upload: Any, count: int) -> bytes:
    upload.seek(0)
    head = upload.read(count)
    upload.seek(0)
    return head


def _stated_size(upload: Any) -> int:
    """The gzip trailer's ISIZE: the last member's uncompressed size modulo 2**32 (the real size
    is at least this; 0 when the file is too short to have a trailer)."""
    if upload.size < 18:  # a 10-byte header, an empty deflate block, the 8-byte trailer
        return 0
    upload.seek(upload.size - 4)
    stated = int.from_bytes(upload.read(4), "little")
    upload.seek(0)
    return stated


def _gunzip(upload: Any, limit: int) -> bytes:
    """The decompressed bytes of a gzip upload (one member or several, as `gzip` writes them),
    stopping as soon as they pass `limit`."""
    name = upload.name
    stated = _stated_size(upload)
    if limit < stated <= _MAX_RATIO * upload.size:  # a broken file's "trailer" can be anything
        raise UploadRefused(
            f"{name}: the file decompresses to {stated:,} bytes (its gzip trailer says so)", too_large=True
        )
    out = bytearray()
    inflater = zlib.decompressobj(_GZIP_WBITS)
    fed = False  # whether the current member has been given any input
    read = 0
    for chunk in upload.chunks(_CHUNK):
        read += len(chunk)
        data = chunk
        while data:
            fed = True
            try:
                out += inflater.decompress(data, limit + 1 - len(out))
            except zlib.error as error:
                raise UploadRefused(
                    f"{name}: the file is not valid gzip ({error}; after {read:,} compressed bytes)."
                ) from None
            if len(out) > limit:
                raise UploadRefused(
                    f"{name}: the file decompresses to more than {limit:,} bytes (stopped after "
                    f"{read:,} of its {upload.size:,} compressed bytes)",
                    too_large=True,
                )
            if inflater.eof:  # a member ended; what follows is the next member
                data = inflater.unused_data
                inflater = zlib.decompressobj(_GZIP_WBITS)
                fed = False
            else:
                data = inflater.unconsumed_tail
    if fed and not inflater.eof:
        raise UploadRefused(f"{name}: the gzip file is truncated (it ends inside its compressed data).")
    return bytes(out)


def read_upload_text(upload: Any, *, limit: int) -> str:
    """`upload`'s text (UTF-8, a byte-order mark dropped), gunzipped first if it is gzip.
    Raises UploadRefused; nothing is decompressed or decoded beyond `limit` bytes."""
    name = upload.name
    if upload.size > limit:
        raise UploadRefused(f"{name}: the file is too large ({upload.size:,} bytes)", too_large=True)
    if _peek(upload, 2) == GZIP_MAGIC:
        data = _gunzip(upload, limit)
        what = "the decompressed file"
    else:
        data = upload.read(limit + 1)
        what = "the file"
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise UploadRefused(f"{name}: {what} is not UTF-8 text ({error.reason} at byte {error.start}).") from None
