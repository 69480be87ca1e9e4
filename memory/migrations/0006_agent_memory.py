"""SPEC §2.4: agent memories (XMemo `remember`/`forget`) replace the placeholder model, which
never held rows; their audit trail; and the workspace's capture policy."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0005_source_status_deleting"),
    ]

    operations = [
        migrations.DeleteModel(name="AgentMemory"),
        migrations.CreateModel(
            name="AgentMemory",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("reference", models.CharField(max_length=40, unique=True)),
                ("path", models.CharField(max_length=700)),
                ("bucket", models.CharField(default="public", max_length=100)),
                ("team", models.CharField(blank=True, default="", max_length=100)),
                ("project", models.CharField(blank=True, default="", max_length=100)),
                ("memory_type", models.CharField(default="note", max_length=40)),
                ("content", models.TextField()),
                ("confidence", models.FloatField(blank=True, null=True)),
                ("importance", models.FloatField(blank=True, null=True)),
                ("expires_at", models.DateTimeField(blank=True, null=True)),
                ("semantic_key", models.CharField(blank=True, default="", max_length=200)),
                ("metadata", models.JSONField(blank=True, default=dict)),
                ("content_terms", models.TextField(blank=True, default="")),
                ("context_terms", models.TextField(blank=True, default="")),
                ("credential", models.CharField(blank=True, default="", max_length=100)),
                ("provenance", models.JSONField(blank=True, default=dict)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("updated_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("deleted_at", models.DateTimeField(blank=True, null=True)),
                (
                    "workspace",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="agent_memories", to="memory.workspace"
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(fields=["workspace", "deleted_at", "-updated_at"], name="agent_memory_live"),
                    models.Index(fields=["workspace", "path"], name="agent_memory_path"),
                    models.Index(fields=["workspace", "semantic_key"], name="agent_memory_semantic_key"),
                ],
            },
        ),
        migrations.CreateModel(
            name="AgentMemoryAudit",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "action",
                    models.CharField(
                        choices=[
                            ("created", "Created"),
                            ("updated", "Updated"),
                            ("merged", "Merged"),
                            ("forgotten", "Forgotten"),
                        ],
                        max_length=16,
                    ),
                ),
                ("credential", models.CharField(blank=True, default="", max_length=100)),
                ("reason", models.TextField(blank=True, default="")),
                ("request_id", models.CharField(blank=True, default="", max_length=64)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "memory",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="audit", to="memory.agentmemory"
                    ),
                ),
                (
                    "workspace",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="memory.workspace"
                    ),
                ),
            ],
            options={"ordering": ["id"]},
        ),
        migrations.AddField(
            model_name="workspace",
            name="capture_policy",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
