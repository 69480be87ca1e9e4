"""A workspace's memory: sources, their pipeline runs, documents and what is derived from them.

Everything derived from a source (documents, facts, relationships) cascades from it, so
deleting a source deletes its memory. Sections and entities are shared by all the sources of a
workspace and are rebuilt by the pipeline's tree stage.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.db import models
from django.utils import timezone

from .workspace import Workspace


def uploads_dir(workspace_id: int) -> Path:
    """Where PAM stores a workspace's uploaded files and pushed items."""
    return Path(settings.PAM_DATA_DIR) / "uploads" / f"ws_{workspace_id}"


class Source(models.Model):
    class Status(models.TextChoices):
        IDLE = "idle"
        SYNCING = "syncing"
        READY = "ready"
        FAILED = "failed"
        # DELETE /v1/dev/sources/{id} answered: retrieval hides its facts until its removal
        # run has published memory without them (then the row goes, with its runs).
        DELETING = "deleting"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="sources")
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=32)
    # Where the source reads from: an absolute server path, an upload path, or "" (pushed items).
    location = models.CharField(max_length=1000, blank=True, default="")
    config = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.IDLE)
    created_at = models.DateTimeField(default=timezone.now)
    last_synced_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "location"],
                condition=~models.Q(location=""),
                name="source_unique_location_per_workspace",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"

    @property
    def stored_by_pam(self) -> bool:
        """An upload or pushed items, stored under PAM_DATA_DIR (deleted with the source); a
        server-side folder is never touched."""
        return uploads_dir(self.workspace_id) in Path(self.location).parents


class PipelineRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        COMPLETED = "completed"
        FAILED = "failed"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="pipeline_runs")
    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="runs")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    stage = models.CharField(max_length=32, default="queued")
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    errors = models.JSONField(default=list, blank=True)  # [{"document", "message"}]
    skipped = models.JSONField(default=list, blank=True)  # [{"document", "reason"}]
    llm_calls = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # A run holds a lease that its worker renews; an expired lease means the worker died.
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)  # claims so far; the reaper gives up at 3
    queued_at = models.DateTimeField(default=timezone.now)  # last time a task was sent for it

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["workspace", "-id"]), models.Index(fields=["source", "-id"])]


class Document(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="documents")
    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="documents")
    path = models.CharField(max_length=1000)  # inside its source, e.g. "docs/refund-policy.md"
    title = models.CharField(max_length=500)
    content_hash = models.CharField(max_length=64)
    text = models.TextField()
    doc_date = models.DateField(null=True, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    # The bookkeeping of incremental sync lives in the rows, not in a worker's memory: the
    # last run that found the document in its source (the others are removed at its end), and
    # whether its facts still wait to be compared with the workspace's for supersession (set
    # when they are extracted, cleared when compared; a run that died in between leaves it
    # for the next).
    synced_run = models.PositiveBigIntegerField(null=True, blank=True)
    supersession_pending = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "path"], name="document_unique_path_per_source")
        ]
        indexes = [models.Index(fields=["workspace"])]

    def __str__(self) -> str:
        return self.path


class Section(models.Model):
    """A node of the context tree: an area ("Projects") or a topic under it."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="sections")
    parent = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="children"
    )
    title = models.CharField(max_length=300)
    tree_path = models.CharField(max_length=700)  # "Company Context > Projects > Meridian"
    file_path = models.CharField(max_length=700)  # "company_context/projects/meridian.md"
    markdown = models.TextField(blank=True, default="")  # the section's context document
    fact_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["tree_path"]
        constraints = [
            models.UniqueConstraint(fields=["workspace", "tree_path"], name="section_unique_path")
        ]

    def __str__(self) -> str:
        return self.tree_path


class Entity(models.Model):
    class Type(models.TextChoices):
        PERSON = "person"
        ORGANIZATION = "organization"
        TEAM = "team"
        PROJECT = "project"
        PRODUCT = "product"
        OTHER = "other"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="entities")
    label = models.CharField(max_length=300)
    key = models.CharField(max_length=300)  # normalised label, merges mentions across sources
    type = models.CharField(max_length=16, choices=Type.choices)
    properties = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["workspace", "key"], name="entity_unique_key")]

    def __str__(self) -> str:
        return self.label


class Fact(models.Model):
    """A self-contained statement with its provenance and effective date."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="facts")
    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="facts")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="facts")
    section = models.ForeignKey(
        Section, on_delete=models.SET_NULL, null=True, blank=True, related_name="facts"
    )
    statement = models.TextField()
    heading_path = models.CharField(max_length=1000, blank=True, default="")
    position = models.PositiveIntegerField(default=0)  # order inside its document
    # Where in its document the statement came from, when the source names it: a chat
    # message's id (Slack ts, a pushed message's id, a conversation's dialogue id), a mail's
    # Message-ID. Kept as provenance so an answer can be traced to the exact message.
    locator = models.CharField(max_length=200, blank=True, default="")
    subject = models.CharField(max_length=300, blank=True, default="")
    effective_date = models.DateField(null=True, blank=True)
    superseded_by = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="supersedes"
    )
    entities = models.ManyToManyField(Entity, blank=True, related_name="facts")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["workspace", "section"]),
            models.Index(fields=["document", "position"]),
        ]

    def __str__(self) -> str:
        return self.statement[:80]


class Relationship(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="relationships")
    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="relationships")
    fact = models.ForeignKey(Fact, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    subject = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="outgoing")
    type = models.CharField(max_length=40)
    target = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="incoming")
    properties = models.JSONField(default=dict, blank=True)

    class Meta:
        indexes = [models.Index(fields=["workspace", "type"])]



MAX_TERM_LENGTH = 200  # longer analysed terms (URLs, hashes) are not indexed


class AgentMemory(models.Model):
    """A durable memory written by an agent with XMemo `remember` (SPEC §2.4).

    It is a fact of the workspace's built-in `agent` source: answers place it at
    `company_context/agent_memory/<bucket>.md` and serve it from the live layer
    (`memory.engine.live`), read at call time, so it is found on the very next call from any
    process. `forget` is a soft delete (`deleted_at`) with an `AgentMemoryAudit` row.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="agent_memories")
    reference = models.CharField(max_length=40, unique=True)  # "mem_<hex>", opaque to clients
    path = models.CharField(max_length=700)  # where the agent filed it, e.g. "projects/pam/decisions"
    bucket = models.CharField(max_length=100, default="public")
    team = models.CharField(max_length=100, blank=True, default="")
    project = models.CharField(max_length=100, blank=True, default="")
    memory_type = models.CharField(max_length=40, default="note")
    content = models.TextField()
    confidence = models.FloatField(null=True, blank=True)
    importance = models.FloatField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    semantic_key = models.CharField(max_length=200, blank=True, default="")
    metadata = models.JSONField(default=dict, blank=True)
    # The analysed terms (memory.engine.text), " term term … ", written with the content: the
    # live layer selects candidates with one LIKE per query term and scores without stemming.
    content_terms = models.TextField(blank=True, default="")
    context_terms = models.TextField(blank=True, default="")  # path, project, team, type, key
    # Who wrote it: the credential's label (key prefix or "oauth:<connection id>"), which also
    # decides who sees the `private` bucket; `provenance` adds the kind, time and request id.
    credential = models.CharField(max_length=100, blank=True, default="")
    provenance = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    deleted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["workspace", "deleted_at", "-updated_at"], name="agent_memory_live"),
            models.Index(fields=["workspace", "path"], name="agent_memory_path"),
            models.Index(fields=["workspace", "semantic_key"], name="agent_memory_semantic_key"),
        ]

    def __str__(self) -> str:
        return self.reference


class AgentMemoryTerm(models.Model):
    """One posting of the agent-memory term index (SPEC §2.4; docs/architecture.md, "Agent
    memory"): an analysed term of a memory's content or of its context (path, project, team,
    type, key), written in the same transaction as the memory. It is the incremental segment
    beside the published index: `memory.engine.live` ranks every visible memory that holds a
    query term with one grouped query over it, so memories never wait for a publication.
    """

    class Field(models.IntegerChoices):
        CONTENT = 1
        CONTEXT = 2

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+", db_index=False)
    memory = models.ForeignKey(AgentMemory, on_delete=models.CASCADE, related_name="postings")
    term = models.CharField(max_length=MAX_TERM_LENGTH)
    field = models.PositiveSmallIntegerField(choices=Field.choices)

    class Meta:
        # Covering: the ranking query reads postings from the index alone.
        indexes = [models.Index(fields=["workspace", "term", "field", "memory"], name="agent_memory_term")]


class AgentMemoryAudit(models.Model):
    """Who did what to an agent memory, when and why (`forget` writes one; so do writes)."""

    class Action(models.TextChoices):
        CREATED = "created"
        UPDATED = "updated"
        MERGED = "merged"
        FORGOTTEN = "forgotten"
        RESTORED = "restored"
        IMPORTED = "imported"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    memory = models.ForeignKey(AgentMemory, on_delete=models.CASCADE, related_name="audit")
    action = models.CharField(max_length=16, choices=Action.choices)
    credential = models.CharField(max_length=100, blank=True, default="")
    reason = models.TextField(blank=True, default="")
    request_id = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]


class AgentMemoryVersion(models.Model):
    """The history of an agent memory: one row per change (a PATCH of /v1/memory, a
    `remember` upsert or merge, an import), holding the values the change replaced. The live
    row always holds the current values, so the live layer never reads this table."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    memory = models.ForeignKey(AgentMemory, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField()  # 1 for the first values the memory held
    path = models.CharField(max_length=700)
    content = models.TextField()
    metadata = models.JSONField(default=dict, blank=True)
    confidence = models.FloatField(null=True, blank=True)
    importance = models.FloatField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    memory_type = models.CharField(max_length=40, default="note")
    valid_from = models.DateTimeField()  # when these values were written (the memory's updated_at then)
    replaced_at = models.DateTimeField(default=timezone.now)
    replaced_by = models.CharField(max_length=100, blank=True, default="")  # the credential that changed it
    action = models.CharField(max_length=16, choices=AgentMemoryAudit.Action.choices)

    class Meta:
        ordering = ["memory", "version"]
        constraints = [
            models.UniqueConstraint(fields=["memory", "version"], name="agent_memory_version_unique")
        ]


class IndexVersion(models.Model):
    """One build of a workspace's search index; only a `published` one is ever served."""

    class Status(models.TextChoices):
        BUILDING = "building"
        PUBLISHED = "published"
        FAILED = "failed"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="index_versions")
    version = models.PositiveIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.BUILDING)
    fact_count = models.PositiveIntegerField(default=0)
    section_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    published_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace", "version"], name="index_version_unique")
        ]
        indexes = [models.Index(fields=["workspace", "status", "-version"])]
