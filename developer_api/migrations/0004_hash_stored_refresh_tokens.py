"""Refresh tokens issued before this release are kept only as their SHA-256 too
(developer_api.authentication.stored_token)."""

from typing import Any

from django.db import migrations


def hash_existing(apps: Any, schema_editor: Any) -> None:
    from developer_api.authentication import STORED_TOKEN_PREFIX, stored_token

    OutstandingToken = apps.get_model("token_blacklist", "OutstandingToken")
    rows = OutstandingToken.objects.using(schema_editor.connection.alias).exclude(token__startswith=STORED_TOKEN_PREFIX)
    for row in rows.only("pk", "token").iterator(chunk_size=1000):
        OutstandingToken.objects.using(schema_editor.connection.alias).filter(pk=row.pk).update(token=stored_token(row.token))


class Migration(migrations.Migration):
    dependencies = [
        ("developer_api", "0003_plans_and_cache_table"),
        ("token_blacklist", "0013_alter_blacklistedtoken_options_and_more"),
    ]

    operations = [migrations.RunPython(hash_existing, migrations.RunPython.noop)]
