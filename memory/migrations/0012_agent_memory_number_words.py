"""Agent memories' analysed terms written again: a number written as a word is now its figure
(`text.NUMBER_WORDS`: "three-year" → 3 year), as in the published facts from index schema 11.
The same pass as 0009's."""

from importlib import import_module

from django.db import migrations


def reanalyse_memories(apps, schema_editor):
    import_module("memory.migrations.0009_agent_memory_terms_reanalysed").reanalyse_memories(apps, schema_editor)


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0011_agent_memory_month_terms"),
    ]

    operations = [
        migrations.RunPython(reanalyse_memories, migrations.RunPython.noop),
    ]
