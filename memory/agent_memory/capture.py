"""The capture policy of `remember` (SPEC §2.4): secrets never become durable memory.

The default policy refuses API keys, access tokens, passwords, private keys and connection
strings with credentials. A workspace adjusts it in `Workspace.capture_policy`:

    {"enabled": false}                         capture everything (not recommended)
    {"disabled_rules": ["password"]}           turn named rules off
    {"extra_patterns": [{"name": "ticket", "pattern": "SECRET-[0-9]+"}]}   refuse more

A refusal is a `PamError("capture_refused", <reason>)`; the reason names the rule, never the
matched text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

from memory.models import Workspace
from pam.errors import PamError

CAPTURE_REFUSED = "capture_refused"
MAX_EXTRA_PATTERNS = 20


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    what: str  # what the rule found, for the reason


RULES: tuple[Rule, ...] = (
    Rule(
        "private_key",
        re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"),
        "a private key",
    ),
    Rule(
        "api_key",
        re.compile(
            r"\b(?:pam_mkey_[A-Za-z0-9]{16,}|sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}"
            r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|xox[abposr]-[A-Za-z0-9-]{10,}"
            r"|AIza[0-9A-Za-z_-]{35}|sk_live_[0-9A-Za-z]{20,}|rk_live_[0-9A-Za-z]{20,})"
            r"|\b(?:api[_ -]?key|secret[_ -]?key|client[_ -]?secret|access[_ -]?key)\b\s*[:=]\s*\S{8,}",
            re.IGNORECASE,
        ),
        "an API key",
    ),
    Rule(
        "token",
        re.compile(
            r"\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
            r"|\b(?:access|auth|refresh|session)[_ -]?token\b\s*[:=]\s*\S{8,}",
            re.IGNORECASE,
        ),
        "an access token",
    ),
    Rule(
        "password",
        re.compile(
            r"\b(?:password|passwd|pwd|passphrase|mot de passe|senha)\b"
            r"(?:\s*[:=]\s*\S{4,}|\s+is\s+[\"'`]?(?=\S*[0-9!@#$%^&*_])\S{6,})",
            re.IGNORECASE,
        ),
        "a password",
    ),
    Rule(
        "connection_string",
        re.compile(
            r"\b[a-z][a-z0-9+.-]*://[^\s/:@]+:[^\s/@]+@|\b(?:Password|Pwd)\s*=\s*[^;\s]+\s*;|AccountKey=[A-Za-z0-9+/=]{20,}",
            re.IGNORECASE,
        ),
        "a connection string with credentials",
    ),
)
RULE_NAMES = tuple(rule.name for rule in RULES)


def _extra_rules(policy: dict[str, Any]) -> list[Rule]:
    rules = []
    for item in (policy.get("extra_patterns") or [])[:MAX_EXTRA_PATTERNS]:
        if not isinstance(item, dict) or not isinstance(item.get("pattern"), str):
            continue
        try:
            pattern = re.compile(item["pattern"])
        except re.error:
            continue  # a broken admin pattern never blocks every write
        name = str(item.get("name") or "custom")[:40]
        rules.append(Rule(name, pattern, f"text matching the workspace rule '{name}'"))
    return rules


def capture_check(*, workspace: Workspace, texts: Iterable[str]) -> None:
    """Refuse (`capture_refused`) when any of `texts` holds what the workspace's policy
    forbids."""
    policy = workspace.capture_policy if isinstance(workspace.capture_policy, dict) else {}
    if policy.get("enabled") is False:
        return
    disabled = set(policy.get("disabled_rules") or [])
    rules = [rule for rule in RULES if rule.name not in disabled] + _extra_rules(policy)
    for text in texts:
        for rule in rules:
            if rule.pattern.search(text):
                raise PamError(
                    CAPTURE_REFUSED,
                    f"Not remembered: the capture policy refuses {rule.what} (rule '{rule.name}'). "
                    "Store a reference to where the secret is kept instead of the secret itself.",
                )
