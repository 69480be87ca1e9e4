"""Agent memories' analysed terms written again by this release's analyzer
(memory/engine/text.py): accents folded ("Kraków" is krakow, no longer krak and w) and British
spellings written the American way ("organisation" is organization). The live layer compares
a question's terms with the terms each memory stored when it was written, so a memory written
before would not be found by the words that now analyse differently. A later change to the
analyzer needs a migration like this one, as the published indexes need a new schema
(memory/engine/index.py)."""

from django.db import migrations

BATCH = 1000
MAX_TERM_LENGTH = 200
CONTENT, CONTEXT = 1, 2  # AgentMemoryTerm.Field


def reanalyse_memories(apps, schema_editor):
    """Every memory's content and context terms, and their postings, from its text again."""
    from memory.engine.live import memory_terms

    AgentMemory = apps.get_model("memory", "AgentMemory")
    AgentMemoryTerm = apps.get_model("memory", "AgentMemoryTerm")
    batch = []
    for memory in AgentMemory.objects.order_by("pk").iterator(chunk_size=BATCH):
        memory_terms(memory)  # reads the text fields and sets the two term fields, nothing else
        batch.append(memory)
        if len(batch) == BATCH:
            _save(AgentMemory, AgentMemoryTerm, batch)
            batch = []
    _save(AgentMemory, AgentMemoryTerm, batch)


def _save(AgentMemory, AgentMemoryTerm, memories):
    AgentMemory.objects.bulk_update(memories, ["content_terms", "context_terms"])
    AgentMemoryTerm.objects.filter(memory_id__in=[m.pk for m in memories]).delete()
    AgentMemoryTerm.objects.bulk_create(
        [
            AgentMemoryTerm(workspace_id=m.workspace_id, memory_id=m.pk, term=term, field=field)
            for m in memories
            for field, text in ((CONTENT, m.content_terms), (CONTEXT, m.context_terms))
            for term in sorted(set(text.split()))
            if len(term) <= MAX_TERM_LENGTH
        ],
        batch_size=BATCH,
    )


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0008_agent_memory_versions"),
    ]

    operations = [
        migrations.RunPython(reanalyse_memories, migrations.RunPython.noop),
    ]
