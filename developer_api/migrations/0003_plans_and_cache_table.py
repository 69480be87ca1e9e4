"""Create the `paid` and `unlimited` plans (SPEC §3.2) and the database cache table."""

from django.core.management import call_command
from django.db import migrations

PLANS = [
    {"name": "paid", "weekly_limit": 300, "monthly_limit": 1000, "hourly_limit": 100, "enabled": True},
    {"name": "unlimited", "weekly_limit": -1, "monthly_limit": -1, "hourly_limit": -1, "enabled": True},
]


def create_plans(apps, schema_editor):
    Plan = apps.get_model("developer_api", "Plan")
    for plan in PLANS:
        Plan.objects.get_or_create(name=plan["name"], defaults=plan)


def create_cache_table(apps, schema_editor):
    # The embedded default keeps its shared cache in the database (pam_cache); a no-op when
    # the table exists or REDIS_URL selects Redis.
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("developer_api", "0002_initial")]

    operations = [
        migrations.RunPython(create_plans, migrations.RunPython.noop),
        migrations.RunPython(create_cache_table, migrations.RunPython.noop),
    ]
