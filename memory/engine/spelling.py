"""British and American spellings of a word as one term (SPEC §2.3 retrieval; issue 16,
companies the engine has never seen): an agent asking about the "authorization limit" or the
"organization chart" finds the "authorisation limit" and the "organisation chart" a British,
Irish or Australian company writes, and the other way round. Snowball stems the two apart
(organis / organiz, authoris / author, colour / color, centr / center, licenc / licens), so
`text.stem` writes each word the American way first (`american`).

Only spellings that are the same word both ways are joined: -ise verbs and their -isation
nouns, except the words whose -ise is not a suffix (advise, exercise, premise, otherwise);
-yse verbs; and short lists for -our, -re, -ence, -ogue, -amme and -ement, where a rule would
also catch other words ("four", "genre", "fence", "vogue"). Words spelt alike in both stay as
they are; -lled and -lling already stem alike (travelled, traveled → travel).
"""

from __future__ import annotations

import re

# Words ending in -ise that are not the -ize suffix, in any of their forms.
_ISE_WORDS = frozenset(
    """advise apprise arise chastise circumcise comprise compromise concise demise despise devise
    disguise enterprise excise exercise expertise franchise improvise incise merchandise mortise
    paradise praise precise premise promise raise reprise revise rise supervise surmise surprise
    televise treatise valise anise cruise bruise noise poise guise""".split()
)
_ISE = re.compile(r"^([a-z]{3,}[^aeiouw])is(e|es|ed|ing|er|ers|ation|ations|able)$")
_YSE = re.compile(r"^([a-z]*ly)s(e|es|ed|ing|er|ers)$")  # analyse, paralyse, catalyse
# Stems spelt differently, with their forms each way (British, American): every form of a
# family is written out, so that nothing but these words changes ("four", "genre", "fence").
_OUR = tuple((f"our{e}", f"or{e}") for e in (
    "", "s", "ed", "ing", "ite", "ites", "ful", "able", "ably", "al", "er", "ers", "less", "hood",
    "ly", "y", "ism", "ist", "ists",
))
_FAMILIES: tuple[tuple[tuple[str, ...], tuple[tuple[str, str], ...]], ...] = (
    (
        ("col", "fav", "behavi", "hon", "lab", "neighb", "harb", "rum", "hum", "flav", "vap", "arm",
         "endeav", "sav", "savi", "val", "vig", "od", "parl", "tum", "clam", "splend", "cand", "ard", "rig"),
        _OUR,
    ),
    (
        ("cent", "theat", "met", "kilomet", "centimet", "millimet", "lit", "fib", "calib", "somb",
         "spect", "lust", "meag", "sab"),
        (("re", "er"), ("res", "ers"), ("red", "ered"), ("ring", "ering")),
    ),
    (("man",), (("oeuvre", "euver"), ("oeuvres", "euvers"), ("oeuvred", "euvered"), ("oeuvring", "euvering"))),
    (("lic", "def", "off", "pret"), (("ence", "ense"), ("ences", "enses"))),
    (
        ("catal", "dial", "anal", "monol", "prol", "epil"),
        (("ogue", "og"), ("ogues", "ogs"), ("ogued", "oged"), ("oguing", "oging")),
    ),
    (("program",), (("me", ""), ("mes", "s"))),
    (("judg", "acknowledg", "abridg", "lodg"), (("ement", "ment"), ("ements", "ments"))),
    (("skil", "wil"), (("ful", "lful"), ("fully", "lfully"))),
)
_WORDS = {stem + british: stem + american for stems, forms in _FAMILIES for stem in stems for british, american in forms}
# Greek ae and oe written e ("paediatrician", "anaesthetist", "haemorrhage", "oestrogen"), and
# grey: where the word starts so.
_PREFIXES = {"paediatr": "pediatr", "orthopaed": "orthoped", "anaesthe": "anesthe", "haem": "hem",
             "oestrogen": "estrogen", "grey": "gray"}


def american(word: str) -> str:
    """The lower-case word spelt the American way where it is the same word both ways
    ("organisation" → organization, "colours" → colors, "centre" → center), else itself."""
    match = _ISE.match(word)
    if match:
        base = match.group(1) + "ise"
        if base not in _ISE_WORDS and not base.endswith("wise"):
            return f"{match.group(1)}iz{match.group(2)}"
        return word
    match = _YSE.match(word)
    if match:
        return f"{match.group(1)}z{match.group(2)}"
    if word in _WORDS:
        return _WORDS[word]
    for british, us in _PREFIXES.items():
        if word.startswith(british):
            return us + word[len(british):]
    return word
