"""Chains found on Tasman Light's tuning half (eval/tasmanlight, issue 16 point 3), asked of the
company's own documents imported through the pipeline: a person's contact detail comes from
their record one link past the message naming them, and a table row whose column the prompt
names is followed though a long prompt leaves it little relevance."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from memory.engine import retrieve
from memory.models import Workspace
from tests.conftest import folder_import

CORPUS = Path(__file__).resolve().parents[2] / "eval" / "tasmanlight" / "corpus"


def _import(workspace: Workspace, tmp_path: Path) -> Workspace:
    shutil.copytree(CORPUS, tmp_path / "tasmanlight")
    folder_import(workspace, tmp_path / "tasmanlight")
    return workspace


def test_the_extension_of_the_person_a_job_names_comes_from_their_directory_row(
    workspace: Workspace, tmp_path: Path, settings: Any
) -> None:
    settings.PAM_DENSE = False  # the words alone: cosine may bring the record by chance
    # The job's row names the lead installer; his message about the job holds more of the
    # prompt than his record; only his record holds the extension asked.
    result = retrieve(
        _import(workspace, tmp_path),
        "What's the extension of the lead installer on the Carseldine job where the inverter isolator overheated?",
        limit=10,
    )

    assert any("Name: Tui Faleolo;" in f.statement and "Extension: 420" in f.statement for f in result.facts)


def test_the_branch_a_customer_s_row_names_leads_to_the_branch_s_row(workspace: Workspace, tmp_path: Path) -> None:
    # The dense stage on, as by default. The customer's row holds a quarter of this two-part
    # prompt; its `branch` column, which the prompt names, leads to Wollongong's row in the
    # branches table (its street address), which the table's other rows otherwise crowd out.
    result = retrieve(
        _import(workspace, tmp_path),
        "Which GM looks after the branch that services Illawarra Cold Storage, and what's that branch's street address?",
        limit=10,
    )

    assert any("street_address: 22 Five Islands Road" in f.statement for f in result.facts)


def test_a_question_in_other_words_of_the_fact_the_dense_stage_holds_clearly_nearest_is_reported_answered(
    workspace: Workspace, tmp_path: Path
) -> None:
    # The dense stage on, as by default. "Help a mate move house" is "other private use": the
    # prompt shares almost no word with the policy's sentence, whose relevance stays under
    # MINIMAL_BELOW, but the dense stage holds it clearly nearest, and it is returned.
    result = retrieve(
        _import(workspace, tmp_path),
        "Can I use the van I've been given to help a mate move house on the weekend?",
        limit=10,
    )

    assert any("Other private use is not permitted" in f.statement for f in result.facts)
    assert result.coverage_assessment == "partial"
    assert not result.context_summary.startswith("Only loosely related context")
