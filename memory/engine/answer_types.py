"""What kind of value a prompt asks for, and whether a fact holds one (SPEC §2.3 ranking).

"How quickly must I report a lost laptop?" asks for a duration; its answer ("within 1 hour")
holds none of the prompt's words but the one that matters to it: a span of time. The words
that ask for the kind ("how long", "how often", "how much does … cost", "what time") are not
words of the answer, so a fact holding a value of that kind is what they are asking for.
Rules, no model; a prompt may ask for several kinds ("how much and how often").
"""

from __future__ import annotations

import re
from functools import lru_cache

from memory.engine.text import CAPITALS, terms

DURATION, FREQUENCY, MONEY, TIME_OF_DAY, PERCENT, SPEED, DATE = (
    "duration", "frequency", "money", "time", "percent", "speed", "date"
)

_UNIT = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|nights?|weeks?|fortnights?|months?|years?|yrs?)"
_PERIOD = (
    r"(?:second|minute|hour|day|night|week|fortnight|month|quarter|year|morning|evening|shift|weekday|weekend|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
)
_NUMBER_WORD = (
    r"(?:an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
    r"forty|fifty|sixty|ninety|a couple of|a few|several|half an?)"
)
_SPAN = r"(?:working |business |calendar |full |clear )?"
_MONTH = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\b"
)

# What the prompt asks for: the words asking for each kind.
_ASKS = {
    DURATION: re.compile(
        rf"\bhow (?:long|quickly|soon|far in advance|much (?:notice|time))\b|\bhow many {_SPAN}{_UNIT}\b|"
        r"\bwithin what\b|\bwhat notice\b|\bnotice period\b|\bretention period\b|\bturnaround\b",
        re.IGNORECASE,
    ),
    FREQUENCY: re.compile(r"\bhow (?:often|frequently)\b|\bhow many times (?:a|an|per|each)\b", re.IGNORECASE),
    MONEY: re.compile(
        r"\bhow much (?!notice\b|time\b|of\b)|\b(?:cost|costs|price|priced|pricing|fee|fees|charge|charged|"
        r"charges|reimburse\w*|allowance|budget|salary|spend limit|spending limit|rate card|pay for|paid for|"
        r"pay towards|pay anything)\b",
        re.IGNORECASE,
    ),
    TIME_OF_DAY: re.compile(
        r"\bwhat time\b|\b(?:opening|office|support|business|trading|working) (?:hours|times)\b|\bcut-?off\b|"
        r"\b(?:open|opens|close|closes|closed) (?:until|till|at)\b",
        re.IGNORECASE,
    ),
    PERCENT: re.compile(r"\bpercent\w*\b|\bwhat (?:share|proportion|fraction)\b|\bhow much of\b", re.IGNORECASE),
    SPEED: re.compile(r"\bhow fast\b|\bspeed\b|\bmph\b", re.IGNORECASE),
    DATE: re.compile(
        r"\b(?:(?:through|until|till|by) )?(?:what|which) (?:date|day)\b|\buntil when\b|\bby when\b|\bexpir\w*\b",
        re.IGNORECASE,
    ),
}

_WHO = re.compile(r"\s*(?:who|whom|whose)\b", re.IGNORECASE)

# The values a statement holds, by kind.
_HOLDS = {
    DURATION: re.compile(
        rf"\b\d+(?:[.,]\d+)?(?:\s*(?:-|–|to)\s*\d+(?:[.,]\d+)?)?[\s-]*{_SPAN}{_UNIT}\b|"
        rf"\b{_NUMBER_WORD}[\s-]+{_SPAN}{_UNIT}\b|\b\d+\s*(?:h|d|wk|mo)\b",
        re.IGNORECASE,
    ),
    FREQUENCY: re.compile(
        rf"\bevery (?:other |\d+ |few |{_NUMBER_WORD} )?{_PERIOD}\b|"
        r"\b(?:hourly|daily|nightly|weekly|fortnightly|monthly|quarterly|annually|yearly|biannually)\b|"
        rf"\b(?:once|twice|\d+ times|{_NUMBER_WORD} times)\s+(?:a|an|per|each|every)\b|\bper {_PERIOD}\b",
        re.IGNORECASE,
    ),
    MONEY: re.compile(
        r"[£$€¥₹]\s?\d|\b\d+(?:[.,]\d+)*\s?(?:p|pence|cents?|usd|eur|gbp|pln|dollars?|euros?|pounds?)\b"
        r"|\bfree of charge\b|\bno charge\b|\bat cost\b|\bnot (?:charged|billed)\b",
        re.IGNORECASE,
    ),
    TIME_OF_DAY: re.compile(
        r"\b\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b(?:[01]?\d|2[0-3]):[0-5]\d\b|"
        r"\bnoon\b|\bmidday\b|\bmidnight\b",
        re.IGNORECASE,
    ),
    PERCENT: re.compile(r"\d\s?%|\bper ?cent\b", re.IGNORECASE),
    SPEED: re.compile(
        r"\b\d+(?:\.\d+)?\s*(?:mph|km/h|kph|kmh|miles per hour|kilometres per hour|kilometers per hour)\b",
        re.IGNORECASE,
    ),
    DATE: re.compile(
        rf"\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b|"
        rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}",
        re.IGNORECASE,
    ),
}


def asked_kinds(prompt: str) -> dict[str, frozenset[str]]:
    """The kinds of value the prompt asks for (none for most prompts), each with the terms
    of the words that ask for it ("how *long*", "opening *hours*")."""
    asked: dict[str, frozenset[str]] = {}
    if _WHO.match(prompt):  # "Who approved the budget?" asks for a person, not an amount
        return asked
    for kind, pattern in _ASKS.items():
        found = [match.group(0) for match in pattern.finditer(prompt)]
        if found:
            asked[kind] = frozenset(terms(" ".join(found)))
    return asked


@lru_cache(maxsize=65_536)
def held_kinds(statement: str) -> frozenset[str]:
    """The kinds of value the statement holds."""
    return frozenset(kind for kind, pattern in _HOLDS.items() if pattern.search(statement))


# Contact details, asked for by name ("their mobile", "what address do we email them at"; the
# words of rank.CONTACT_ATTRIBUTES), not by a form of question: read only where a hop must bring
# one (search._brings), never in ranking. A phone number is not a date written with hyphens.
_CONTACTS = {
    "email": re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    "phone": re.compile(r"(?<![\w-])(?!\d{4}-\d\d-\d\d(?!\d))\+?\(?\d[\d ()-]{6,}\d(?![\w-])"),
}
CONTACT_NAMES = {"phone": "phone number", "email": "email address"}  # each kind, as an answer names it
_CONTACT_OF = {term: kind for word, kind in (("email", "email"), ("phone", "phone"), ("mobile", "phone")) for term in terms(word)}
# A contact detail asked for as the answer: "her mobile number", "their email address", "Dan's
# mobile?". Not a verb ("who emailed", "scheduling phones me"), a thing ("the mobile app",
# "the fake email") nor an extension ("phone extension": a record's short number, no phone
# number in this sense).
_CONTACT_ASKED = {
    "phone": re.compile(
        r"\b(?:tele)?phone (?:number|no\b)|\bmobile (?:phone )?(?:number|no\b)|\bcell (?:phone )?number\b|"
        r"(?:'s|\btheir|\bhis|\bher|\bmy|\byour) (?:mobile|cell)(?: phone)?\b(?! app| banking| deposit| device)",
        re.IGNORECASE,
    ),
    "email": re.compile(r"\be-?mail address|\baddress (?:do|should|can) (?:i|we) e-?mail\b", re.IGNORECASE),
}


def holds_contact(statement: str, term: str) -> bool:
    """Whether the statement holds a contact detail of the kind the term asks for (an email
    address for "email", a phone number for "phone" or "mobile"); False for other terms."""
    kind = _CONTACT_OF.get(term)
    return kind is not None and holds_contact_kind(statement, kind)


def holds_contact_kind(statement: str, kind: str) -> bool:
    """Whether the statement holds a contact detail of the kind ("phone", "email")."""
    return bool(_CONTACTS[kind].search(statement))


def contacts_asked(prompt: str) -> list[str]:
    """The kinds of contact detail ("phone", "email") the prompt asks for as its answer."""
    return [kind for kind, pattern in _CONTACT_ASKED.items() if pattern.search(prompt)]


# Whose contact detail is asked, when the prompt names them right beside it: "Corey Blake's
# mobile", "the phone number for the Rotterdam liaison desk", "the email address of FieldGuard".
# Not someone reached through another ("the mobile of the vet who emailed Ruairí"), and never
# the prompt's first word ("What's").
_HOLDER_NAME = rf"[{CAPITALS}][\w'’&.-]*(?:\s+(?:&\s+)?[{CAPITALS}][\w'’&.-]*)*"
_HOLDER = (
    re.compile(rf"(?<=\s)({_HOLDER_NAME})['’]s\s+(?:(?:tele)?phone|mobile|cell|e-?mail)\b"),
    re.compile(
        rf"\b(?:(?:tele)?phone|mobile|cell)(?: phone)? (?:number|no\b\.?) (?:for|of) (?:the |our )?({_HOLDER_NAME})"
    ),
    re.compile(rf"\be-?mail address (?:for|of) (?:the |our )?({_HOLDER_NAME})"),
)


def contact_holder(prompt: str) -> list[str]:
    """The terms of the name whose contact detail the prompt asks for (`_HOLDER`), if it names
    them beside it; else none."""
    for pattern in _HOLDER:
        match = pattern.search(prompt)
        if match:
            return terms(match.group(1))
    return []


def contacts_missing(asked: list[str], statements: list[str], holder: list[str] | None = None) -> list[str]:
    """The kinds of contact detail asked (`contacts_asked`) that none of the statements holds:
    a memory that records no phone number for someone cannot give theirs, however much it
    says about them. With the `holder` asked of (`contact_holder`), only a statement naming
    them counts: another person's number is not theirs."""
    named = set(holder or [])

    def gives(statement: str, kind: str) -> bool:
        return holds_contact_kind(statement, kind) and (not named or bool(named & set(terms(statement))))

    return [kind for kind in asked if not any(gives(s, kind) for s in statements)]
