"""Output serializers of the REST memory API `/v1/memory` (SPEC §2.4, issue 14): each answer's
shape, read by drf-spectacular for the OpenAPI document. A memory is
`memory.agent_memory.jsonl.memory_record`'s dict (the export writes the same object per line).
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from developer_api.serializers import ErrorSerializer, McpRequestPageSerializer, ObjectField

STATUSES = ["live", "forgotten", "expired"]


class FieldErrorSerializer(serializers.Serializer[Any]):
    field = serializers.CharField(allow_blank=True)
    message = serializers.CharField()


class InvalidArgumentsSerializer(ErrorSerializer):
    """HTTP 422: `invalid_arguments` with `errors`, field by field (SPEC §2.4), or
    `capture_refused` with the capture policy's reason (no `errors`)."""

    errors = FieldErrorSerializer(many=True, required=False)  # type: ignore[assignment]  # a field, not .errors


class MemoryVersionSerializer(serializers.Serializer[Any]):
    """Values a change replaced: what the memory held from `valid_from` to `replaced_at`."""

    version = serializers.IntegerField()
    action = serializers.CharField()
    path = serializers.CharField()
    content = serializers.CharField()
    memory_type = serializers.CharField()
    metadata = ObjectField()
    confidence = serializers.FloatField(allow_null=True)
    importance = serializers.FloatField(allow_null=True)
    expires_at = serializers.CharField(allow_null=True)
    valid_from = serializers.CharField()
    replaced_at = serializers.CharField()
    replaced_by = serializers.CharField(allow_blank=True)


class MemoryAuditSerializer(serializers.Serializer[Any]):
    action = serializers.CharField()
    credential = serializers.CharField(allow_blank=True)
    reason = serializers.CharField(allow_blank=True)
    request_id = serializers.CharField(allow_blank=True)
    created_at = serializers.CharField()


class MemorySerializer(serializers.Serializer[Any]):
    reference = serializers.CharField()
    path = serializers.CharField()
    bucket = serializers.CharField()
    team = serializers.CharField(allow_blank=True)
    project = serializers.CharField(allow_blank=True)
    memory_type = serializers.CharField()
    content = serializers.CharField()
    confidence = serializers.FloatField(allow_null=True)
    importance = serializers.FloatField(allow_null=True)
    expires_at = serializers.CharField(allow_null=True)
    semantic_key = serializers.CharField(allow_blank=True)
    metadata = ObjectField()
    source_path = serializers.CharField()
    credential = serializers.CharField(allow_blank=True, help_text="who wrote it: key prefix, oauth:<id> or user:<id>")
    provenance = ObjectField()
    status = serializers.ChoiceField(STATUSES)
    created_at = serializers.CharField()
    updated_at = serializers.CharField()
    deleted_at = serializers.CharField(allow_null=True)


class MemoryDetailSerializer(MemorySerializer):
    """A memory with its history (oldest first) and audit rows."""

    history = MemoryVersionSerializer(many=True)
    audit = MemoryAuditSerializer(many=True)


class MemoryWrittenSerializer(serializers.Serializer[Any]):
    """POST /v1/memory: what `remember` did (created, updated by semantic_key, merged into a
    near-duplicate) and the memory as it now is."""

    action = serializers.ChoiceField(["created", "updated", "merged"])
    memory = MemoryDetailSerializer()


class MemoryPageSerializer(McpRequestPageSerializer):
    """A `developer_api.selectors.Page` of memories (the envelope of /v1/dev/mcp-requests)."""

    items = MemorySerializer(many=True)  # type: ignore[assignment]  # the same envelope, other items


class ImportErrorSerializer(serializers.Serializer[Any]):
    line = serializers.IntegerField(help_text="1 for the file's first line (blank lines count)")
    error_code = serializers.CharField()
    message = serializers.CharField()
    errors = FieldErrorSerializer(many=True, required=False)  # type: ignore[assignment]  # a field, not .errors


class ImportReportSerializer(serializers.Serializer[Any]):
    lines = serializers.IntegerField(help_text="non-blank lines read")
    created = serializers.IntegerField()
    updated = serializers.IntegerField()
    skipped = serializers.IntegerField(help_text="unchanged, forgotten or expired")
    refused = serializers.IntegerField(help_text="refused by the capture policy")
    failed = serializers.IntegerField(help_text="invalid lines")
    errors = ImportErrorSerializer(many=True)  # type: ignore[assignment]  # a field, not .errors
    errors_truncated = serializers.BooleanField(help_text="more lines failed than `errors` lists")
