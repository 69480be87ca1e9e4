"""The agent-memory buckets and teams a credential or a user carries (SPEC §2.4).

Buckets are names like "public", "eng", "private"; teams are free labels. An agent key, and a
user (for the REST memory API and their OAuth connections), carries at most `MAX_KEY_LABELS`
of each; an empty list means every bucket or team.
"""

from __future__ import annotations

import re
from typing import Any

from django.core.exceptions import ValidationError

BUCKET_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
MAX_KEY_LABELS = 50
MAX_TEAM_LENGTH = 100


def _labels(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValidationError(f"{what} must be a JSON list of strings (empty = all).")
    if len(value) > MAX_KEY_LABELS:
        raise ValidationError(f"{what}: at most {MAX_KEY_LABELS} entries.")
    return value


def validate_buckets(value: Any) -> None:
    for bucket in _labels(value, "Buckets"):
        if not BUCKET_PATTERN.match(bucket):
            raise ValidationError(
                f"Bucket {bucket[:80]!r} must be 1-64 lowercase letters, digits, '_' or '-', starting with a letter or digit."
            )


def validate_teams(value: Any) -> None:
    for team in _labels(value, "Teams"):
        if not team.strip() or len(team) > MAX_TEAM_LENGTH:
            raise ValidationError(f"Each team must be 1-{MAX_TEAM_LENGTH} characters.")
