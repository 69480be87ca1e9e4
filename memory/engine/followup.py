"""Can a prompt stand alone, or does it lean on the conversation? (issue 16 point 5)

A prompt is a follow-up only on evidence in its own words: an ellipsis ("what about Berlin?",
"and for Q3?", "why?", "tell me more"), or a pronoun or demonstrative ("it", "their", "that",
"this project", "the other one") with nothing before it in the prompt that it could refer to.
"What city is Acme based in, and when did it sign?" stands alone: "it" has Acme. Neither its
length nor sharing no words with the previous prompt makes a prompt a follow-up.

Rules over closed word classes, no tagger: a noun phrase that could be an antecedent is a
capitalised word inside the sentence, a word with a digit or an acronym, or a content word
after a determiner, a possessive, "which/what" or an auxiliary ("is Acme", "do trial users").
Some slips are accepted for that simplicity: a name that precedes a pronoun resolves it even
when the pronoun means something else ("what did Priya say about them?"), and a pronoun before
its antecedent ("before it shipped, who reviewed the spec?") is only resolved in a leading
clause. Measured on `eval/followups/prompts.jsonl` (`manage.py evaluate followups`).
"""

from __future__ import annotations

import re

from memory.engine.text import STOP_WORDS

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’&.\-]*|[?!.,;:—–]")
_CLAUSE_END = frozenset("?!.,;:—–")
_SENTENCE_END = frozenset("?!.")

# An ellipsis: the prompt names a new subject for the previous question and no predicate.
_ELLIPTIC_LEAD = re.compile(
    r"^\s*(?:(?:and|so|ok(?:ay)?)[\s,]+)?(?:what about|how about|what of|same for|same question for|ditto for|"
    r"same with)\b",
    re.IGNORECASE,
)
_CONJUNCTION_LEAD = frozenset({"and", "also", "plus", "or", "but", "then", "so"})
ELLIPSIS_MAX_WORDS = 4  # "and the Berlin office headcount?": a verbless remainder this short
# Words a prompt may consist of alone and still ask something only the conversation can answer:
# "why?", "who else?", "tell me more", "go on".
_BARE_WORDS = STOP_WORDS | frozenset(
    {"more", "else", "elaborate", "details", "detail", "continue", "expand", "exactly", "come", "go", "explain", "why"}
)

_PERSONAL = frozenset({"he", "him", "his", "she", "her", "hers"})
_PRONOUNS = frozenset({"it", "its", "it's", "they", "them", "their", "theirs"}) | _PERSONAL
# "he" and "she" need a person: a name (capitalised, or a title such as CFO) or one of these.
_PERSON_NOUNS = frozenset(
    """person people manager employee customer user engineer lead head director owner founder contractor
    candidate hire rep agent member colleague lawyer designer analyst admin""".split()
)
_RELATIVES = frozenset({"that", "which", "who", "whom", "where"})
_DEMONSTRATIVES = frozenset({"this", "that", "these", "those"})
# Noun phrases that point back by themselves: "the other one", "the latter", "the same".
_ANAPHORIC_NOUNS = frozenset({"one", "ones", "former", "latter", "rest", "others", "same"})
# "this year", "this quarter": the present, not something said before.
_TIME_NOUNS = frozenset(
    {"year", "quarter", "month", "week", "morning", "afternoon", "evening", "time", "sprint", "cycle", "season",
     "weekend", "fiscal", "days", "semester", "term"}
)
# "is it possible to …", "how long does it take …": "it" that stands for nothing.
_EXPLETIVE_AFTER_IT = frozenset(
    {"take", "takes", "took", "possible", "true", "ok", "okay", "allowed", "necessary", "mandatory", "required",
     "worth", "fine", "safe", "legal", "likely", "better", "cost", "costs"}
)
_AUXILIARIES = frozenset(
    """is are was were be been am do does did has have had can could will would should shall may might must
    's 're""".split()
)
_DETERMINERS = frozenset(
    """the a an our my your each every any some all no which what whose both either neither another
    several many few""".split()
)
_PREPOSITIONS = frozenset(
    """of in on at to for with about from by into onto over under behind after before during since until
    against between among through without within""".split()
)
_SUBJECTS = frozenset({"i", "we", "you", "he", "she", "they", "it", "there", "the", "a", "an", "our", "my", "your"})
_SUBORDINATORS = frozenset({"before", "after", "when", "once", "since", "if", "although", "while", "until", "unless"})
_POINTING = frozenset({"this", "that", "other", "same"})
NOUN_PHRASE_REACH = 3  # words after a determiner that can still be its noun ("the new Berlin office")


def _tokens(prompt: str) -> list[str]:
    return _TOKEN.findall(prompt.replace("’", "'"))


def _is_word(token: str) -> bool:
    return token not in _CLAUSE_END


def _content(lower: str) -> bool:
    return lower not in STOP_WORDS and lower not in _ANAPHORIC_NOUNS and lower not in _AUXILIARIES


def _antecedents(tokens: list[str]) -> list[bool]:
    """For each token, whether it could be a noun phrase a later pronoun refers to."""
    out = [False] * len(tokens)
    sentence_start = True
    opener = -NOUN_PHRASE_REACH - 1  # position of the last determiner, auxiliary or "which"
    for i, token in enumerate(tokens):
        lower = token.lower()
        if not _is_word(token):
            sentence_start = token in _SENTENCE_END
            opener = -NOUN_PHRASE_REACH - 1 if token in _SENTENCE_END else opener
            continue
        if lower in _DETERMINERS or lower in _AUXILIARIES or lower.endswith("'s"):
            opener = i
        elif lower in _RELATIVES:
            opener = -NOUN_PHRASE_REACH - 1  # "the document that describes it": a verb follows
        if lower in _PRONOUNS | _DEMONSTRATIVES or lower == "i":
            sentence_start = False
            continue
        if any(c.isdigit() for c in token) or (len(token) > 1 and token.isupper()):
            out[i] = True
        elif token[0].isupper() and not sentence_start and _content(lower):
            out[i] = True
        elif _content(lower) and i - opener <= NOUN_PHRASE_REACH and not lower.endswith(("ed", "ible", "able")):
            out[i] = True
        if token[0].isupper() and lower.endswith("'s") and not sentence_start:
            out[i] = True  # "Maria's role"
        sentence_start = False
    return out


def _anaphors(tokens: list[str]) -> list[int]:
    """Positions of the pronouns, demonstratives and anaphoric noun phrases that need a referent."""
    found = []
    for i, token in enumerate(tokens):
        lower = token.lower()
        before = tokens[i - 1].lower() if i else ""
        after = tokens[i + 1].lower() if i + 1 < len(tokens) else ""
        if lower in ("it", "it's"):
            if after not in _EXPLETIVE_AFTER_IT:
                found.append(i)
        elif lower in _PRONOUNS:
            found.append(i)
        elif lower == "there":
            # "are there …", "there is …": existential, not a place.
            if before not in _AUXILIARIES and after not in _AUXILIARIES:
                found.append(i)
        elif lower == "this":
            if after not in _TIME_NOUNS:
                found.append(i)
        elif lower in ("these", "those"):
            if after not in ("who", "that", "which", "with", "days") and after not in _TIME_NOUNS:
                found.append(i)
        elif lower == "that":
            if _demonstrative_that(before, after, tokens[i + 2].lower() if i + 2 < len(tokens) else ""):
                found.append(i)
        elif lower in _ANAPHORIC_NOUNS and (before in _POINTING or before in _DETERMINERS):
            found.append(i)  # "the other one", "the latter", "this one"
    return found


def _demonstrative_that(before: str, after: str, after_next: str) -> bool:
    """ "who approved that?", "when was that decided?", "that budget?" — not "the person that
    approved", "said that the launch moved"."""
    if not after or after in _CLAUSE_END:
        return True  # "who approved that?"
    if after in _SUBJECTS or after in _DETERMINERS:
        return False  # "said that the launch moved", "that we …"
    if before in _AUXILIARIES or before in _PREPOSITIONS or before in ("", "and", "is", "what", "why", "how"):
        return True  # "when was that decided?", "compare that with", "about that"
    # After an open-class word: a relative "the vendor that shipped late" unless a lone noun
    # closes the clause ("who approved that budget?").
    return not after_next or after_next in _CLAUSE_END


def _elliptic(tokens: list[str]) -> bool:
    words = [t.lower() for t in tokens if _is_word(t)]
    if not words:
        return False
    if all(w in _BARE_WORDS for w in words):
        return True  # "why?", "who else?", "tell me more"
    if words[0] in _CONJUNCTION_LEAD:
        rest = words[1:]
        has_verb = any(w in _AUXILIARIES for w in rest) or (rest and rest[0] in ("who", "what", "when", "where",
                                                                                   "why", "how", "which", "whose"))
        if not has_verb and len(rest) <= ELLIPSIS_MAX_WORDS:
            return True  # "and for Q3?", "and the other one?", "also the Slack export?"
    return False


def _named(token: str) -> bool:
    """A name or a possessor ("Melanie", "Acme's"): a referent wherever it stands."""
    return token[0].isupper() or token.lower().endswith("'s")


def _host_phrase(tokens: list[str], candidates: list[bool], end: int) -> set[int]:
    """The common-noun phrase ending at `end` ("the budget" of "the budget for it", "the
    document" of "the document that describes it"): what the pronoun's own phrase hangs on,
    so not its referent. Names and possessors stay referents ("Melanie feel about her")."""
    out: set[int] = set()
    k = end
    while k >= 0 and _is_word(tokens[k]) and _content(tokens[k].lower()) and not _named(tokens[k]):
        out.add(k)
        k -= 1
    return out


def _relative_hosts(tokens: list[str], candidates: list[bool]) -> dict[int, set[int]]:
    """For each word inside a relative clause ("the document that describes it"), the noun
    phrase the clause describes."""
    hosts: dict[int, set[int]] = {}
    for i, token in enumerate(tokens):
        if token.lower() in _RELATIVES and i and candidates[i - 1]:
            host = _host_phrase(tokens, candidates, i - 1)
            j = i + 1
            while j < len(tokens) and tokens[j] not in _CLAUSE_END:
                hosts[j] = host
                j += 1
    return hosts


def is_follow_up(prompt: str) -> bool:
    """Whether `prompt` needs its conversation to be understood (see the module docstring)."""
    if _ELLIPTIC_LEAD.match(prompt):
        return True
    tokens = _tokens(prompt)
    if _elliptic(tokens):
        return True
    candidates = _antecedents(tokens)
    lowered = [t.lower() for t in tokens]
    hosts = _relative_hosts(tokens, candidates)
    # A leading subordinate clause ("before it shipped, who …") may find its referent after it.
    lead_end = lowered.index(",") if lowered and lowered[0] in _SUBORDINATORS and "," in lowered else -1
    for i in _anaphors(tokens):
        found = candidates
        if lowered[i] in _PERSONAL:
            found = [c and (tokens[k][0].isupper() or lowered[k] in _PERSON_NOUNS) for k, c in enumerate(candidates)]
        if i < lead_end and any(found[lead_end:]):
            continue
        excluded = set(hosts.get(i, set()))
        if i and lowered[i - 1] in _PREPOSITIONS:
            # "the budget for it": the noun the pronoun's phrase hangs on is not its referent.
            excluded |= _host_phrase(tokens, candidates, i - 2)
        if not any(found[k] for k in range(i) if k not in excluded):
            return True
    return False
