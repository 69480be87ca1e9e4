"""Token counts (memory/engine/tokens.py): a real, offline cl100k_base BPE count, used by
recall_context's budget and retrieve_memory's diagnostics.estimated_tokens."""

from __future__ import annotations

from memory.engine.tokens import ENCODING, count_tokens, estimate_tokens, truncate_to_tokens
from memory.models import Workspace
from tests.conftest import Mcp


def test_it_counts_cl100k_base_tokens() -> None:
    assert ENCODING == "cl100k_base"
    # Reference counts of the cl100k_base encoding (tiktoken gives the same).
    assert count_tokens("hello world, this is a test") == 7
    assert count_tokens("") == 0
    assert count_tokens("<|endoftext|>") > 1  # counted as text, never refused as a special token
    assert estimate_tokens("hello world") == count_tokens("hello world") == 2


def test_it_counts_text_longer_than_one_encoder_call() -> None:
    assert count_tokens("hello world " * 300_000) == 600_001


def test_truncation_stays_within_the_budget_and_never_splits_a_character() -> None:
    text = "naïve café 数据 🚀 " * 20
    for budget in range(0, 40):
        cut = truncate_to_tokens(text, budget)
        assert count_tokens(cut) <= budget
        assert text.startswith(cut) and "\ufffd" not in cut


def test_retrieve_memory_reports_the_same_count(imported_workspace: Workspace, mcp: Mcp) -> None:
    result = mcp.call({"prompt": "Who owns the Meridian rollout?"})
    report = result["content"][0]["text"]
    assert result["structuredContent"]["diagnostics"]["estimated_tokens"] == count_tokens(report)
