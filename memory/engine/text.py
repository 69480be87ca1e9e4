"""The one analyzer shared by indexing and querying: lower-case words with their accents
folded, stop words dropped, British spellings written the American way (spelling.py), then
Snowball English stems. Tantivy indexes these pre-analyzed terms with its plain tokenizer, so
Python-side scoring and the index always agree on what a term is.
"""

from __future__ import annotations

import calendar
import re
import threading
import unicodedata
from functools import lru_cache
from typing import Any

import snowballstemmer

from memory.engine.days import written_months
from memory.engine.spelling import american

_LATIN = [*range(0xC0, 0x250), *range(0x1E00, 0x1F00)]  # Latin-1 and Latin Extended A, B, Additional
# Capital and small letters of the Latin alphabets, accented ones included, for a character
# class: a name is written "Seán", "Zielińska" or "Nguyễn" as often as "Sean".
CAPITALS = "A-Z" + "".join(chr(c) for c in _LATIN if chr(c).isupper())
SMALLS = "a-z" + "".join(chr(c) for c in _LATIN if chr(c).islower())
# The titles written before a name, not part of it ("Dr. Phelan", "Dr Ines Carvalho"), for an
# alternation: the entities read and the names a sentence says alone leave them out alike.
NAME_TITLES = "Dr|Prof|Mr|Mrs|Ms|Mx"
_WORD = re.compile(r"[0-9a-z]+(?:[.,][0-9]+)*", re.IGNORECASE)
# A word written with a hyphen between two runs of letters ("e-mail", "on-call", "re-booked"; not
# "T-118" or "2025-26").
_HYPHENATED = re.compile(r"(?<![\w-])([a-z]+)-([a-z]+)(?![\w-])", re.IGNORECASE)
# Letters that no Unicode decomposition takes to a plain Latin one, written as a reader without
# them on their keyboard writes them ("Łukasz" → Lukasz, "Søren" → Soren, "Straße" → Strasse).
_UNDECOMPOSED = str.maketrans(
    {"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "ħ": "h", "Ħ": "H",
     "ı": "i", "ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "þ": "th", "Þ": "Th"}
)
# A Snowball stemmer object keeps state while it stems: one per thread (threaded gunicorn
# workers stem concurrently; a shared one raced and raised IndexError).
_local = threading.local()


def _stemmer() -> Any:
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = snowballstemmer.stemmer("english")
    return stemmer

STOP_WORDS = frozenset(
    """a an the and or but if then else of to in on at by for with from into onto about as is
    are was were be been being am do does did doing done have has had having i me my mine we us
    our ours you your yours he him his she her hers it its they them their theirs this that these
    those there here what which who whom whose when where why how can could should would will
    shall may might must not no nor so than too very just also any all some such each every both
    either neither other own same more most much many few again further once only up down out
    over under off s t d ll m re ve y tell know let lets please give show find get got say said
    anything something someone somebody thing things currently current now today still ever
    """.split()
)


# Irregular forms the stemmer cannot join to their base word ("met" → meet, "bought" → buy),
# so "how did they meet?" finds "we met in college".
IRREGULAR = {
    form: base
    for base, forms in {
        "become": "became", "begin": "began begun", "bring": "brought",
        "build": "built", "buy": "bought", "catch": "caught", "choose": "chose chosen",
        "come": "came", "draw": "drew drawn", "drive": "drove driven", "eat": "ate eaten",
        "fall": "fell fallen", "feel": "felt", "fight": "fought", "fly": "flew flown",
        "forget": "forgot forgotten", "go": "went gone", "grow": "grew grown", "hear": "heard",
        "hold": "held", "keep": "kept", "lead": "led", "leave": "left", "lose": "lost",
        "make": "made", "mean": "meant", "meet": "met", "pay": "paid", "ride": "rode ridden",
        "run": "ran", "see": "saw seen", "sell": "sold", "send": "sent", "sing": "sang sung",
        "sit": "sat", "sleep": "slept", "speak": "spoke spoken", "spend": "spent",
        "stand": "stood", "swim": "swam swum", "take": "took taken", "teach": "taught",
        "think": "thought", "throw": "threw thrown", "understand": "understood",
        "wake": "woke woken", "wear": "wore worn", "win": "won", "write": "wrote written",
        "child": "children", "man": "men", "woman": "women", "mouse": "mice",
    }.items()
    for form in forms.split()
}


def stem(word: str) -> str:
    # Snowball's rules all take letter suffixes off: a word that ends in a digit ("p1234",
    # "2026", "sev1") is its own stem. Such words stay out of the cache, where identifiers
    # would pile up with the corpus (one project id per document in the pipeline benchmark).
    if word[-1:].isdigit():
        return word
    return _stem_word(word)


# The most recently used stems: about 160 bytes each (10 MB when full). A corpus's vocabulary
# keeps growing with its names and typos; the cache stops at this bound.
@lru_cache(maxsize=65_536)
def _stem_word(word: str) -> str:
    return str(_stemmer().stemWord(american(IRREGULAR.get(word, word))))


def fold(text: str) -> str:
    """The text with its letters' accents taken off ("Kraków" → Krakow, "Zoë" → Zoe, "Nguyễn" →
    Nguyen), and compatibility forms written plainly ("ﬁ" → fi, "²" → 2): a question typed
    without them finds what a document wrote with them, and a name keeps all its letters as a
    term ("Kraków" was the terms krak and w)."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text.translate(_UNDECOMPOSED))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def words(text: str) -> list[str]:
    """Lower-cased word tokens, accents folded; numbers stay one token (1,200 → 1200, 99.9 →
    99p9) so the index tokenizer, which splits on punctuation, keeps them whole."""
    return [match.group(0).lower().replace(",", "").replace(".", "p") for match in _WORD.finditer(fold(text))]


def terms(text: str) -> list[str]:
    """Analyzed terms in order, stop words removed."""
    return [stem(word) for word in words(text) if word not in STOP_WORDS]


def term_set(text: str) -> set[str]:
    return set(terms(text))


def document_terms(text: str) -> list[str]:
    """A document's terms (a fact's statement, an agent memory's content): `terms`, and each
    word written with a hyphen joined as one more term ("e-mailed" → email, "call-outs" →
    callout, "re-booked" → rebook), so a question that writes the word whole finds it, and
    the name of each month written in figures (`days.written_months`: "month: 2026-03" →
    march), so a question asking about "March 2026" finds it. A question keeps its own terms
    alone: its "on-call" must still find a document's "on call"."""
    joined = (m.group(1) + m.group(2) for m in _HYPHENATED.finditer(fold(text)))
    months = [stem(calendar.month_name[month].lower()) for month in written_months(text)]
    return terms(text) + [stem(word) for word in (j.lower() for j in joined) if word not in STOP_WORDS] + months
