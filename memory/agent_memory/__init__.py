"""Agent memory (SPEC §2.4): what XMemo `remember` writes and `forget` removes, and the reads
of `recall`, `recall_context` and `search_memory` over it and the company facts; the REST
memory API `/v1/memory` (docs/api/memory.md) uses the same modules.

    capture.py    the workspace's capture policy (what `remember` refuses)
    drafts.py     the checks of a memory's fields (remember, POST/PATCH /v1/memory, import)
    services.py   remember (create, semantic-key upsert, near-duplicate merge), forget, and
                  for /v1/memory: patch (history kept), forget/restore one, import one line
    selectors.py  recall (tolerant), search (strict, exact filters), context_pack (budgeted)
    browse.py     the REST list's filters, one memory by reference
    jsonl.py      JSON Lines export and import

Rows are `memory.models.AgentMemory` (history: `AgentMemoryVersion`; audit:
`AgentMemoryAudit`); the call-time read is `memory.engine.live`.
"""
