"""Agent memories' analysed terms written again: a memory's content now also holds each of
its hyphenated words joined as one term (`text.document_terms`: "e-mailed" → email), as the
published facts do from index schema 9. The same pass as 0009's."""

from importlib import import_module

from django.db import migrations


def reanalyse_memories(apps, schema_editor):
    import_module("memory.migrations.0009_agent_memory_terms_reanalysed").reanalyse_memories(apps, schema_editor)


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0009_agent_memory_terms_reanalysed"),
    ]

    operations = [
        migrations.RunPython(reanalyse_memories, migrations.RunPython.noop),
    ]
