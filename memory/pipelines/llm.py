"""Optional fact extraction through any OpenAI-compatible chat-completions API.

Off unless LLM_BASE_URL and LLM_MODEL are set; PAM never needs it. When on, each document is
sent once (cut to MAX_INPUT_CHARS) and the model returns self-contained statements as JSON.
Any failure falls back to the local extractor for that document and is recorded on the run.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from django.conf import settings

MAX_INPUT_CHARS = 12_000
TIMEOUT_S = 60
SYSTEM_PROMPT = (
    "You extract facts from a company document for a company memory. Return JSON "
    '{"facts": ["…"]}: every fact one self-contained sentence that names its subject '
    "(people, teams, projects, clients by name, never 'he', 'it' or 'this'), keeps numbers and "
    "dates exactly, and states only what the document says. No commentary."
)


class LlmError(Exception):
    pass


def llm_enabled() -> bool:
    return bool(settings.LLM_BASE_URL and settings.LLM_MODEL)


def llm_extract(title: str, text: str) -> list[str]:
    """Statements for one document; raises LlmError on any failure."""
    body = {
        "model": settings.LLM_MODEL,
        "temperature": 0,
        "response_format": {"type": "json_object"},
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": f"Title: {title}\n\n{text[:MAX_INPUT_CHARS]}"},
        ],
    }
    request = urllib.request.Request(
        settings.LLM_BASE_URL.rstrip("/") + "/chat/completions",
        data=json.dumps(body).encode("utf-8"),
        headers={"Content-Type": "application/json", **_auth()},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:  # noqa: S310 (operator URL)
            payload: Any = json.loads(response.read())
        content = payload["choices"][0]["message"]["content"]
        facts = json.loads(content)["facts"]
    except (urllib.error.URLError, OSError, ValueError, KeyError, IndexError, TypeError) as exc:
        raise LlmError(f"LLM extraction failed: {type(exc).__name__}") from exc
    if not isinstance(facts, list):
        raise LlmError("LLM extraction failed: 'facts' is not a list")
    return [str(f).strip() for f in facts if isinstance(f, str) and f.strip()]


def _auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {settings.LLM_API_KEY}"} if settings.LLM_API_KEY else {}
