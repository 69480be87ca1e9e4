"""JSON request bodies with bounded nesting, for every surface (SPEC §2.1 -32700, §3 400).

The standard parser recurses once per nesting level and raises ``RecursionError`` (not a
``ValueError``) past the interpreter's limit, and a body just under that limit can still
overflow whatever walks it afterwards (serializers, ``json.dumps`` into a JSON column). So a
body nested deeper than ``MAX_JSON_DEPTH`` is refused as malformed, whatever its size.
"""

from __future__ import annotations

import json
import re
from typing import Any

# Code points no database stores as text (PostgreSQL refuses NUL and lone surrogates).
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")

# Far beyond any real request (tool arguments, Developer API bodies), far below the stack.
MAX_JSON_DEPTH = 64


class JsonTooDeep(ValueError):
    """The document nests arrays/objects deeper than MAX_JSON_DEPTH."""


def json_depth_check(value: Any, limit: int = MAX_JSON_DEPTH) -> None:
    """Raise JsonTooDeep when `value` nests containers deeper than `limit` (iterative walk)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            raise JsonTooDeep(f"JSON nested deeper than {limit} levels")
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))


def json_loads(data: bytes | str) -> Any:
    """json.loads that raises ValueError (never RecursionError) for any malformed or too
    deeply nested document; UnicodeDecodeError is a ValueError too."""
    try:
        value = json.loads(data)
    except RecursionError as exc:
        raise JsonTooDeep(f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from exc
    json_depth_check(value)
    return value
