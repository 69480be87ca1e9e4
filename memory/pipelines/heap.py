"""A pipeline worker's native memory: hand what a stage freed back to the operating system.

glibc's malloc raises its mmap threshold whenever a large block is freed (up to 32 MB); from
then on blocks of that size come from the heap instead, and a heap only shrinks from its top.
A publication frees tantivy's 1 MB indexing pages and its merge buffers, supersession frees a
chunk's term index: each left 10-30 MB allocated but unused, so every run started higher than
the last (bench/README.md). `tune()` fixes the threshold at glibc's own default (which also
turns the sliding off) and `release()` returns free pages after a heavy stage. Elsewhere than
glibc (musl, macOS) both do nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from typing import Any

_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD = 128 * 1024  # glibc's default: larger blocks are mapped and unmapped on free


def _load() -> Any:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


_libc = _load()
_tuned = False


def tune() -> bool:
    """Fix malloc's mmap threshold for this process (once); True where it took effect."""
    global _tuned
    if _libc is None:
        return False
    if not _tuned:
        _tuned = bool(_libc.mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD))
    return _tuned


def release() -> None:
    """Give the heap's free pages back to the operating system."""
    if _libc is not None:
        _libc.malloc_trim(0)
