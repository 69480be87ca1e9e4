"""Acronyms a prompt uses for what the memory writes out in full (issue 16, class 3).

"Who is the CSM for our largest client?" asks for a Customer Success Manager; a memory whose
documents only ever write "Customer Success Manager" holds no fact with "CSM", so BM25 finds
nothing for the word and the name check takes it for something the memory has never heard
of. At publish the index collects the capitalised phrases its statements and headings hold
("Customer Success Manager", "Work Health and Safety") by their initials (`Collector`); at
query time an acronym of the prompt that no fact, heading or title holds reads as the words
of its most frequent phrase (`expand`). An acronym the memory itself uses is left alone.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Callable, Iterator

from memory.engine.text import terms

# Two to six capitalised words in a row, "and", "of", "for" or "&" allowed between them.
_PHRASE = re.compile(r"\b[A-Z][a-z]+(?:[ -](?:(?:and|of|for|&) )?[A-Z][a-z]+){1,5}\b")
_CONNECTORS = frozenset({"and", "of", "for", "&"})
# Words that are capitalised because they open the sentence or the phrase, not part of a name.
_OPENERS = frozenset({"The", "A", "An", "Our", "This", "That", "Every", "Each", "All", "If", "When"})
# An acronym as a prompt writes it: two to six capitals, a plural "s" allowed ("CSMs").
_ACRONYM = re.compile(r"\b([A-Z]{2,6})s?\b")
MIN_LETTERS = 2
MAX_PHRASES = 50_000  # distinct phrases counted per index build: bounds the build's memory


def phrases(text: str) -> Iterator[tuple[str, str]]:
    """(acronym, phrase) for each run of capitalised words of `text` and each run inside it
    ("Customer Success Manager for Halbrook" holds "Customer Success Manager"): ("csm",
    "Customer Success Manager"), ("whs", "Work Health and Safety")."""
    for match in _PHRASE.finditer(text):
        words = match.group(0).replace("-", " ").split()
        while words and words[0] in _OPENERS:
            words = words[1:]
        for start in range(len(words)):
            for end in range(start + MIN_LETTERS, len(words) + 1):
                run = words[start:end]
                if run[0] in _CONNECTORS or run[-1] in _CONNECTORS:
                    continue
                letters = [w[0] for w in run if w not in _CONNECTORS]
                if len(letters) >= MIN_LETTERS:
                    yield "".join(letters).lower(), " ".join(run)


class Collector:
    """Counts the phrases of the statements fed to it; `table()` keeps each acronym's most
    frequent phrase (ties: the first seen)."""

    def __init__(self) -> None:
        self._counts: dict[str, Counter[str]] = {}
        self._phrases = 0

    def add(self, text: str) -> None:
        for acronym, phrase in phrases(text):
            counts = self._counts.setdefault(acronym, Counter())
            if phrase not in counts:
                if self._phrases >= MAX_PHRASES:
                    continue
                self._phrases += 1
            counts[phrase] += 1

    def table(self) -> dict[str, str]:
        return {acronym: counts.most_common(1)[0][0] for acronym, counts in sorted(self._counts.items()) if counts}


def expand(prompt: str, table: dict[str, str], held: Callable[[str], bool]) -> dict[str, str]:
    """The prompt's acronyms that the memory never writes (`held` is false for the term the
    prompt's word analyses to) and writes out in full: that term -> the phrase."""
    out: dict[str, str] = {}
    for match in _ACRONYM.finditer(prompt):
        phrase = table.get(match.group(1).lower())
        written = terms(match.group(0))
        if phrase and written and not held(written[0]):
            out[written[0]] = phrase
    return out
