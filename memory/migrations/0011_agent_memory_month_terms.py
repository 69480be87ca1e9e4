"""Agent memories' analysed terms written again: a memory's content now also holds the name of
each month it writes in figures (`text.document_terms`: "2026-03" → march), as the published
facts do from index schema 10. The same pass as 0009's."""

from importlib import import_module

from django.db import migrations


def reanalyse_memories(apps, schema_editor):
    import_module("memory.migrations.0009_agent_memory_terms_reanalysed").reanalyse_memories(apps, schema_editor)


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0010_agent_memory_hyphenated_terms"),
    ]

    operations = [
        migrations.RunPython(reanalyse_memories, migrations.RunPython.noop),
    ]
