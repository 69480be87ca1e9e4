"""Workspace-level writes shared by commands, APIs and the admin."""

from __future__ import annotations

import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from memory.models import PipelineRun, Source, User, Workspace
from memory.models.memory import uploads_dir
from memory.pipelines.sync import Progress
from memory.sources.push import item_write
from memory.sources.registry import PUSHED_ITEMS, kind_names
from memory.tasks import run_enqueue, run_sync
from pam.errors import PamError


def workspace_create(
    *, slug: str, admin_email: str, admin_password: str, plan_name: str = "paid", name: str = ""
) -> Workspace:
    """Create a workspace and its first admin (who logs in with the email)."""
    # Plans are the Developer API's (SPEC §3.2), which imports this app: reached through the
    # relation, not an import, so the two apps import each other one way only.
    Plan: Any = Workspace._meta.get_field("plan").related_model
    plan = Plan.objects.filter(name=plan_name).first()
    if plan is None:
        known = ", ".join(Plan.objects.order_by("name").values_list("name", flat=True))
        raise PamError("unknown_plan", f"Unknown plan {plan_name!r} (known plans: {known}).")
    if Workspace.objects.filter(slug=slug).exists():
        raise PamError("workspace_exists", f"Workspace {slug!r} already exists.")
    email = admin_email.strip().lower()
    if User.objects.filter(email=email).exists():
        raise PamError("user_exists", f"A user with the email {email!r} already exists.")
    with transaction.atomic():
        workspace = Workspace.objects.create(slug=slug, name=name or slug, plan=plan)
        User.objects.create_user(email, admin_password, workspace=workspace, is_staff=True)
    return workspace


# --- sources -------------------------------------------------------------------------------


def _source_for_path(*, workspace: Workspace, resolved: Path, kind: str, name: str) -> tuple[Source, bool]:
    """The workspace's source for this path (created when new): one source per location."""
    return Source.objects.get_or_create(
        workspace=workspace, location=str(resolved), defaults={"name": (name or resolved.name)[:200], "kind": kind}
    )


def source_create_from_path(*, workspace: Workspace, path: str, kind: str = "auto", name: str = "") -> Source:
    """A server-side folder or file source; over REST only inside PAM_IMPORT_ROOTS."""
    resolved = Path(path).expanduser().resolve()
    roots = [Path(r) for r in settings.PAM_IMPORT_ROOTS]
    if not any(resolved == root or root in resolved.parents for root in roots):
        raise PamError("invalid_request", "path: must be inside one of the folders of PAM_IMPORT_ROOTS.")
    if not resolved.exists():
        raise PamError("invalid_request", "path: does not exist on the server.")
    _check_kind(kind)
    return _source_for_path(workspace=workspace, resolved=resolved, kind=kind, name=name)[0]


@dataclass(frozen=True)
class SourceImport:
    source: Source
    created: bool  # False: the path was imported before and this was a re-sync
    run: PipelineRun | None  # None when the source was deleted during the run


def source_import(
    *, workspace: Workspace, path: str | Path, kind: str = "auto", name: str = "", progress: Progress | None = None
) -> SourceImport:
    """Import a server-side folder or file and sync it in this process, with the pipeline code
    a Celery worker runs (SPEC §7 `import_source`). The same path again re-syncs its source
    (and a `kind` other than auto replaces the stored one). The run stays `queued` when
    another sync of the source is running: it starts when that one ends."""
    resolved = Path(path).expanduser().resolve()
    if not resolved.exists():
        raise PamError("invalid_request", f"{resolved} does not exist.")
    _check_kind(kind, also=(PUSHED_ITEMS,))  # a folder of pushed items may be imported too
    source, created = _source_for_path(workspace=workspace, resolved=resolved, kind=kind, name=name)
    if source.status == Source.Status.DELETING:
        raise PamError("invalid_request", f"{resolved} is a source being deleted: import it again once it is gone.")
    if not created and kind != "auto" and source.kind != kind:
        source.kind = kind
        source.save(update_fields=["kind"])
    run = PipelineRun.objects.create(workspace=workspace, source=source)
    return SourceImport(source=source, created=created, run=run_sync(run_id=run.pk, progress=progress))


def source_create_from_upload(*, workspace: Workspace, upload: UploadedFile, kind: str = "auto", name: str = "") -> Source:
    """Store an uploaded file (or archive) under PAM_DATA_DIR/uploads and make it a source."""
    _check_kind(kind)
    if upload.size is not None and upload.size > settings.PAM_MAX_UPLOAD_BYTES:
        raise PamError("payload_too_large", f"file: larger than {settings.PAM_MAX_UPLOAD_BYTES} bytes.")
    filename = Path(upload.name or "upload").name.replace("\x00", "") or "upload"
    folder = uploads_dir(workspace.pk) / uuid.uuid4().hex
    folder.mkdir(parents=True)
    target = folder / filename
    written = 0
    with target.open("wb") as out:
        for chunk in upload.chunks():
            written += len(chunk)
            if written > settings.PAM_MAX_UPLOAD_BYTES:
                out.close()
                shutil.rmtree(folder, ignore_errors=True)
                raise PamError("payload_too_large", f"file: larger than {settings.PAM_MAX_UPLOAD_BYTES} bytes.")
            out.write(chunk)
    return Source.objects.create(
        workspace=workspace, name=(name or filename)[:200], kind=kind, location=str(folder), config={"upload": True}
    )


def source_create_for_items(*, workspace: Workspace, name: str) -> Source:
    folder = uploads_dir(workspace.pk) / f"items-{uuid.uuid4().hex}"
    folder.mkdir(parents=True)
    return Source.objects.create(
        workspace=workspace, name=(name or "Pushed items")[:200], kind=PUSHED_ITEMS, location=str(folder)
    )


def source_items_push(*, source: Source, items: list[dict[str, Any]]) -> PipelineRun:
    """Write pushed items (same external_id = update) and queue a sync."""
    if source.kind != PUSHED_ITEMS:
        raise PamError("invalid_request", "items: this source does not accept pushed items (kind is not 'items').")
    folder = Path(source.location)
    for item in items:
        item_write(folder, item)
    return run_enqueue(source=source)


def source_delete(*, source: Source) -> PipelineRun:
    """Start deleting a source: from now on retrieval hides its facts, and the returned run
    (queued for a worker, in-process in the embedded default) removes its documents, facts,
    relationships and stored files, rebuilds the tree, publishes memory without them and
    finally deletes the source with its runs."""
    with transaction.atomic():
        Source.objects.filter(pk=source.pk).update(status=Source.Status.DELETING)
        source.status = Source.Status.DELETING
        return run_enqueue(source=source)  # a queued run, running on a deleting source, removes it


def _check_kind(kind: str, also: tuple[str, ...] = ()) -> None:
    if kind not in kind_names() and kind not in also:
        raise PamError("invalid_request", f"kind: unknown source kind {kind!r} (known: {', '.join(kind_names())}).")
