"""Triage: does a prompt need company context, and what exactly should be searched?

Rules, no model: greetings, thanks, acknowledgements, arithmetic and generic coding or
translation requests need no company memory (`triage_only`). A follow-up that cannot stand
alone ("and who owns it?", "what about Beacon?": `followup.is_follow_up`) is rewritten with the
last session prompts so the search has its subject; a self-contained prompt is searched as it
is, whatever came before it in the session.
"""

from __future__ import annotations

import re

from memory.engine.followup import is_follow_up
from memory.engine.text import terms
from memory.engine.types import Triage

_SMALL_TALK = re.compile(
    r"^\s*(?:hi|hello|hey|hiya|yo|good (?:morning|afternoon|evening|night)|thanks?(?: you)?|"
    r"thank you(?: so much| very much)?|thx|ty|cheers|ok(?:ay)?|cool|great|nice|perfect|awesome|"
    r"got it|sounds good|bye|goodbye|see you|that'?s all(?: for now)?|no(?:pe)?|yes|yep|sure)"
    r"(?:[\s,.!?;:]+(?:thanks?|thank you|that'?s all(?: for now)?|for now|again|so much|"
    r"a lot|very much|pam|there|team|everyone|all|bye|cheers|great|ok(?:ay)?)?)*[\s!.?]*$",
    re.IGNORECASE,
)
_ARITHMETIC = re.compile(r"^\s*(?:what(?:'s| is)\s+)?[\d\s.+\-*/x×÷()^%=]+\??\s*$", re.IGNORECASE)
_GENERIC = re.compile(
    r"^\s*(?:please\s+)?(?:(?:write|generate|create)\s+(?:me\s+)?(?:a|an|some)\s+"
    r"(?:python|javascript|typescript|sql|bash|shell|regex|regular expression|haiku|poem|joke)\b"
    r"|translate\b|what(?:'s| is) the capital of\b|how do (?:i|you) (?:reverse|sort|center|"
    r"install|convert)\b|tell me a joke\b)",
    re.IGNORECASE,
)


def triage(prompt: str, history: list[str]) -> Triage:
    """Decide on `prompt`, given up to the last 3 prompts of its session (oldest first)."""
    text = prompt.strip()
    if _SMALL_TALK.match(text):
        return Triage(
            "triage_only",
            "The prompt is a greeting, thanks or acknowledgement and asks for no company information.",
            text,
        )
    if _ARITHMETIC.match(text) and re.search(r"\d", text):
        return Triage("triage_only", "The prompt is arithmetic and needs no company context.", text)
    if _GENERIC.match(text):
        return Triage(
            "triage_only",
            "The prompt is a general request (code, translation or general knowledge) that needs no company context.",
            text,
        )
    recent = [p for p in history[-3:] if p.strip()]
    if recent and is_follow_up(text):
        # Bring in the subject of the conversation: the most recent prompts.
        context = " ".join(recent[-2:])
        return Triage(
            "retrieve",
            "The prompt is a follow-up that cannot stand alone, so it was expanded with the recent prompts of its session before searching company memory.",
            f"{text} (context: {context})",
            history_used=len(recent[-2:]),
        )
    if not terms(text):
        return Triage("triage_only", "The prompt holds no words to search company memory for.", text)
    return Triage(
        "retrieve",
        "The prompt may depend on company-specific context, so company memory was searched.",
        text,
    )
