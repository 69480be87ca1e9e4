"""Agent memory (SPEC §2.4): what XMemo `remember` writes and `forget` removes, and the reads
of `recall`, `recall_context` and `search_memory` over it and the company facts.

    capture.py    the workspace's capture policy (what `remember` refuses)
    services.py   remember (create, semantic-key upsert, near-duplicate merge), forget
    selectors.py  recall (tolerant), search (strict, exact filters), context_pack (budgeted)

Rows are `memory.models.AgentMemory`; the call-time read is `memory.engine.live`.
"""
