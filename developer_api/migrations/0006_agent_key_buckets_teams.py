"""SPEC §2.4: agent keys carry the agent-memory buckets and teams they see (empty = all)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("developer_api", "0005_quota_counters_usage_hours"),
    ]

    operations = [
        migrations.AddField(
            model_name="agentkey",
            name="buckets",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name="agentkey",
            name="teams",
            field=models.JSONField(blank=True, default=list),
        ),
    ]
