"""Follow-up detection measured on a labelled set (issue 16 point 5).

`eval/followups/prompts.jsonl` holds prompts labelled by hand: `follow_up` is true when the
prompt cannot stand alone (a pronoun, demonstrative or ellipsis with nothing in the prompt to
resolve it), false when it can, however short it is or whatever pronouns it uses for things it
names itself; each line has its `half` (tune or test, as the other sets). Each prompt is put to
the engine's triage after one earlier, unrelated prompt of the same session; the engine
"detects" a follow-up when it expands the prompt with that history. Precision and recall are
counted with follow-ups as the positive class.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from memory.engine.triage import triage
from memory.evaluation.datasets import TEST, TUNE

# The session's earlier prompt every labelled prompt follows: a question about something else.
PREVIOUS_PROMPT = "Tell me about the Meridian platform rollout"


@dataclass
class LabelledPrompt:
    prompt: str
    follow_up: bool
    half: str
    note: str = ""


@dataclass
class DetectionScore:
    half: str
    prompts: int
    true_positives: int
    false_positives: int
    false_negatives: int
    errors: list[LabelledPrompt]

    @property
    def precision(self) -> float:
        found = self.true_positives + self.false_positives
        return self.true_positives / found if found else 1.0

    @property
    def recall(self) -> float:
        wanted = self.true_positives + self.false_negatives
        return self.true_positives / wanted if wanted else 1.0


def load(path: Path) -> list[LabelledPrompt]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        half = str(row.get("half") or TUNE)
        if half not in (TUNE, TEST):
            raise ValueError(f"{row.get('prompt', '?')!r}: half must be {TUNE!r} or {TEST!r}, not {half!r}")
        out.append(LabelledPrompt(str(row["prompt"]), bool(row["follow_up"]), half, str(row.get("note") or "")))
    return out


def engine_expands(prompt: str) -> bool:
    """Whether triage expands `prompt` with the session's earlier prompt."""
    return triage(prompt, [PREVIOUS_PROMPT]).history_used > 0


def measure(
    prompts: list[LabelledPrompt], half: str, detect: Callable[[str], bool] = engine_expands
) -> DetectionScore:
    group = [p for p in prompts if p.half == half]
    tp = fp = fn = 0
    errors = []
    for item in group:
        detected = detect(item.prompt)
        tp += detected and item.follow_up
        fp += detected and not item.follow_up
        fn += not detected and item.follow_up
        if detected != item.follow_up:
            errors.append(item)
    return DetectionScore(half, len(group), tp, fp, fn, errors)


def render(prompts: list[LabelledPrompt]) -> list[str]:
    lines = []
    for half in (TUNE, TEST):
        score = measure(prompts, half)
        positives = sum(1 for p in prompts if p.half == half and p.follow_up)
        lines.append(
            f"followups[{half}]: {score.prompts} prompts ({positives} follow-ups) "
            f"precision={score.precision:.3f} recall={score.recall:.3f} "
            f"(tp {score.true_positives}, fp {score.false_positives}, fn {score.false_negatives})"
        )
        for item in score.errors:
            wrong = "missed follow-up" if item.follow_up else "standalone expanded"
            lines.append(f"  {wrong}: {item.prompt!r} ({item.note})")
    return lines
