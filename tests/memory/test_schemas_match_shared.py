"""The project's retrieve_memory schemas (memory/mcp/schemas/) are the product contract's
(SPEC §2.3, `../shared/schemas`), and every reference answer in `../shared/examples` validates
against them. Skips with a reason where `../shared` is absent, as in a user's fresh clone."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import SCHEMAS, SHARED

needs_shared = pytest.mark.skipif(
    not (SHARED / "schemas").is_dir(), reason=f"{SHARED} is absent: nothing to compare with"
)


def _json(path: Path) -> object:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_project_ships_a_result_and_an_error_schema() -> None:
    names = sorted(p.name for p in SCHEMAS.glob("*.json"))
    assert names == ["retrieve_memory.error.json", "retrieve_memory.result.json"]
    for name in names:
        jsonschema.Draft202012Validator.check_schema(_json(SCHEMAS / name))


@needs_shared
def test_each_schema_is_json_equal_to_the_contracts_copy() -> None:
    shared = sorted(p.name for p in (SHARED / "schemas").glob("*.json"))
    assert shared, "../shared/schemas holds no schema"
    for name in shared:
        assert _json(SCHEMAS / name) == _json(SHARED / "schemas" / name), name


@needs_shared
def test_every_reference_example_validates_against_the_projects_schemas() -> None:
    examples = sorted((SHARED / "examples").glob("retrieve_memory.*.json"))
    assert examples, "../shared/examples holds no retrieve_memory example"
    result = _json(SCHEMAS / "retrieve_memory.result.json")
    error = _json(SCHEMAS / "retrieve_memory.error.json")
    for path in examples:
        example = _json(path)
        answer = example.get("result", example) if isinstance(example, dict) else example
        structured = answer.get("structuredContent", answer) if isinstance(answer, dict) else answer
        schema = result if structured.get("status") == "ok" else error
        jsonschema.validate(structured, schema)
