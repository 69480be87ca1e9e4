"""The `json` kind: objects as "Key: value" bullets and sections, arrays as one bullet each."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Callable

from memory.models import Fact, PipelineRun
from tests.memory.sources.conftest import documents, errors, read

ACCOUNT = {
    "title": "Northwind Retail account",
    "updated_at": "2025-02-10T08:00:00Z",
    "account_owner": "Lena Park",
    "tier": "Tier-1",
    "renewal": {"date": "2026-01-01", "notice_days": 90},
    "contacts": [
        {"name": "Jo Bloggs", "role": "CFO", "address": {"city": "Leeds"}},
        {"name": "Al Wu", "role": "CTO"},
    ],
    "regions": ["UK", "Ireland"],
}


def test_an_object_becomes_bullets_and_sections(tmp_path: Path) -> None:
    (tmp_path / "northwind.json").write_text(json.dumps(ACCOUNT))

    doc = documents(read("json", tmp_path))["northwind.json"]

    assert doc.title == "Northwind Retail account"
    assert doc.doc_date == dt.date(2025, 2, 10)
    assert doc.fmt == "markdown"
    lines = doc.text.splitlines()
    assert lines[0] == "# Northwind Retail account"
    for line in [
        "- Account owner: Lena Park",
        "- Tier: Tier-1",
        "- Regions: UK, Ireland",
        "## Renewal",
        "- Notice days: 90",
        "## Contacts",
        "- Name: Jo Bloggs; Role: CFO; Address.City: Leeds",
        "- Name: Al Wu; Role: CTO",
    ]:
        assert line in lines


def test_an_array_and_json_lines_give_one_bullet_per_record(tmp_path: Path) -> None:
    people = [{"name": "Ana Ruiz", "team": "Platform"}, {"name": "Bo Chen", "team": "Data"}]
    (tmp_path / "people.json").write_text(json.dumps(people))
    (tmp_path / "events.jsonl").write_text("\n".join(json.dumps(p) for p in people) + "\n")

    docs = documents(read("json", tmp_path))

    for path in ("people.json", "events.jsonl"):
        assert "- Name: Ana Ruiz; Team: Platform\n- Name: Bo Chen; Team: Data" in docs[path].text
    assert docs["people.json"].title == "People"


def test_invalid_json_binary_junk_and_utf_16_files(tmp_path: Path) -> None:
    (tmp_path / "good.json").write_text(json.dumps(ACCOUNT))
    (tmp_path / "broken.json").write_text('{"title": "half a document", ')
    (tmp_path / "junk.json").write_bytes(bytes(range(256)) * 8)
    (tmp_path / "wide.json").write_bytes(json.dumps({"title": "Zoë's list"}, ensure_ascii=False).encode("utf-16"))

    items = read("json", tmp_path)

    assert set(documents(items)) == {"good.json", "wide.json"}
    assert documents(items)["wide.json"].title == "Zoë's list"
    assert set(errors(items)) == {"broken.json", "junk.json"}
    assert "not valid JSON" in errors(items)["broken.json"]


def test_it_works_end_to_end(tmp_path: Path, sync: Callable[..., PipelineRun]) -> None:
    (tmp_path / "northwind.json").write_text(json.dumps(ACCOUNT))

    run = sync(tmp_path, kind="json")

    assert run.status == PipelineRun.Status.COMPLETED, run.errors
    contact = Fact.objects.get(statement__contains="Name: Jo Bloggs; Role: CFO")
    assert contact.heading_path == "Northwind Retail account > Contacts"
    assert contact.effective_date == dt.date(2025, 2, 10)
