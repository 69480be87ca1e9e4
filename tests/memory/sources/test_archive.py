"""Safe zip reading (memory/sources/archive.py), through the kinds that read archives.

An archive is untrusted: unsafe names, links, bombs and corrupt files each cost one
per-document error, and everything else in the archive and beside it still comes in.
"""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path
from typing import Any, Callable

import pytest

from memory.models import Document, PipelineRun
from memory.sources import archive
from tests.memory.sources.conftest import documents, errors, read, skipped


def page(number: int, padding: int = 0) -> str:
    return f"# Page {number}\n\nPage {number} records the decision about the roadmap.\n" + "\n" * padding


def make_zip(path: Path, members: dict[str, str | bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content in members.items():
            zf.writestr(name, content)
    return path


def mark_encrypted(path: Path, name: str) -> None:
    """Set the "encrypted" flag of a member, in its local header and its central directory
    entry (zipfile cannot write encrypted members)."""
    data = bytearray(path.read_bytes())
    encoded = name.encode()
    for signature, flags_at, name_at in ((b"PK\x03\x04", 6, 30), (b"PK\x01\x02", 8, 46)):
        start = 0
        while (start := data.find(signature, start)) >= 0:
            if data[start + name_at : start + name_at + len(encoded)] == encoded:
                data[start + flags_at] |= 0x1
            start += 4
    path.write_bytes(bytes(data))


def test_members_that_climb_out_or_are_absolute_are_refused(tmp_path: Path) -> None:
    archive_path = make_zip(
        tmp_path / "export.zip",
        {"../evil.md": page(1), "/etc/cron.md": page(2), "docs/../../up.md": page(3), "docs/good.md": page(4)},
    )

    items = read("notion", archive_path)

    assert set(documents(items)) == {"docs/good.md"}
    found = errors(items)
    assert set(found) == {"../evil.md", "/etc/cron.md", "docs/../../up.md"}
    assert all("unsafe path" in reason for reason in found.values())
    assert not (tmp_path.parent / "evil.md").exists()


def test_symbolic_links_and_encrypted_members_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w") as zf:
        link = zipfile.ZipInfo("link.md")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "/etc/passwd")
        zf.writestr("locked.md", page(1))
        zf.writestr("good.md", page(2))
    mark_encrypted(path, "locked.md")

    items = read("notion", path)

    assert set(documents(items)) == {"good.md"}
    assert "symbolic link" in errors(items)["link.md"]
    assert "encrypted" in errors(items)["locked.md"]


def test_nested_archives_are_listed_but_not_expanded(tmp_path: Path) -> None:
    inner = make_zip(tmp_path / "inner.zip", {"secret.md": page(1)})
    outer = make_zip(tmp_path / "outer.zip", {"inner.zip": inner.read_bytes(), "good.md": page(2)})

    items = read("auto", outer)

    assert set(documents(items)) == {"good.md"}
    assert skipped(items) == {"inner.zip": "nested archives are not expanded"}
    assert errors(items) == {}


def test_a_zip_bomb_stops_at_the_expansion_limit_and_keeps_what_came_before(
    tmp_path: Path, settings: Any, sync: Callable[..., PipelineRun]
) -> None:
    settings.PAM_MAX_UPLOAD_BYTES = 1_000_000
    members = {f"page-{n}.md": page(n, padding=300_000) for n in range(1, 6)}
    bomb = make_zip(tmp_path / "bomb.zip", members)
    assert bomb.stat().st_size < 50_000  # tiny on disk, 1.5 MB expanded

    run = sync(bomb, kind="notion")

    assert run.status == PipelineRun.Status.COMPLETED
    assert set(Document.objects.values_list("path", flat=True)) == {"page-1.md", "page-2.md", "page-3.md"}
    assert [e["document"] for e in run.errors] == ["bomb.zip"]
    assert "expands beyond the 1000000-byte limit" in run.errors[0]["message"]


def test_a_member_over_the_file_limit_is_refused_before_it_is_expanded(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "export.zip", {"huge.md": page(1, padding=2_000_000), "good.md": page(2)})

    items = read("notion", path, max_bytes=1_000_000)

    assert set(documents(items)) == {"good.md"}
    assert "larger than the 1000000-byte limit" in errors(items)["huge.md"]


def test_a_corrupt_zip_is_one_error_and_the_folder_around_it_still_comes_in(tmp_path: Path) -> None:
    (tmp_path / "broken.zip").write_bytes(b"PK\x03\x04" + bytes(range(256)) * 4)
    good = make_zip(tmp_path / "good.zip", {"a.md": page(1)})
    (tmp_path / "truncated.zip").write_bytes(good.read_bytes()[:-30])
    (tmp_path / "notes.md").write_text(page(2))

    items = read("auto", tmp_path)

    assert set(documents(items)) == {"good.zip/a.md", "notes.md"}
    assert set(errors(items)) == {"broken.zip", "truncated.zip"}
    assert "corrupt archive" in errors(items)["broken.zip"]


def test_a_corrupt_member_is_one_error(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "export.zip", {"bad.md": page(1, padding=5000), "good.md": page(2)})
    data = bytearray(path.read_bytes())
    header = data.index(b"bad.md") + len("bad.md")
    data[header + 5 : header + 15] = b"\xff" * 10  # damage the compressed bytes of bad.md
    path.write_bytes(bytes(data))

    items = read("notion", path)

    assert set(documents(items)) == {"good.md"}
    assert "corrupt archive member" in errors(items)["bad.md"]


def test_too_many_members_refuse_the_archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "MAX_MEMBERS", 3)
    path = make_zip(tmp_path / "export.zip", {f"p{n}.md": page(n) for n in range(5)})

    items = read("notion", path)

    assert documents(items) == {}
    assert "limit is 3" in errors(items)["export.zip"]


def test_an_archive_over_the_upload_limit_on_disk_is_refused(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "export.zip", {"a.md": page(1), "b.bin": os.urandom(5000)})

    items = read("notion", path, max_bytes=2_000)

    assert errors(items) == {"export.zip": "file is larger than the 2000-byte limit"}


@pytest.mark.parametrize(
    ("name", "safe"),
    [
        ("docs/a.md", "docs/a.md"),
        ("./docs//a.md", "docs/a.md"),
        ("docs\\a.md", "docs/a.md"),
        ("../a.md", None),
        ("docs/../../a.md", None),
        ("/abs.md", None),
        ("C:\\win.md", None),
        ("a\x00.md", None),
    ],
)
def test_safe_name(name: str, safe: str | None) -> None:
    assert archive.safe_name(name) == safe
