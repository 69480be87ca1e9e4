"""Token estimates, offline: one documented estimator used everywhere.

We do not ship a tokenizer (tiktoken downloads its encodings on first use). English text
averages about 4 characters per token for the GPT/Claude tokenizers; we count
max(words * 1.3, characters / 4), which stays within ~15% of cl100k on prose and does not
under-count dense text such as numbers and code.
"""

from __future__ import annotations

import math


def estimate_tokens(text: str) -> int:
    if not text:
        return 0
    return int(math.ceil(max(len(text.split()) * 1.3, len(text) / 4)))
