"""Evaluation datasets as PAM corpora: what to import, and the questions with their gold.

Each loader yields `Corpus` objects, one per throwaway workspace: a conversation (LoCoMo), a
meeting (QMSum), or the demo company. Conversations are pushed as items of the `items` source
kind, one item per session with one message per turn, each message keeping its dialogue id as
its `id`: the pipeline stores it as the fact's `locator`, so recall is scored against the
dataset's own evidence ids. The data is read from where it lies (`../shared/data` or
`--data`); nothing of it is copied into the repository.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = REPO.parent / "shared" / "data"

DEFAULT_PATHS = {
    "locomo": SHARED_DATA / "locomo" / "locomo10.json",
    "qmsum": SHARED_DATA / "qmsum" / "test.jsonl",
    "demo": REPO / "demo" / "questions.jsonl",
    "harbourline": REPO / "eval" / "harbourline" / "questions.jsonl",
    "wrenfield": REPO / "eval" / "wrenfield" / "questions.jsonl",
    "corvane": REPO / "eval" / "corvane" / "questions.jsonl",
    "meridian": REPO / "eval" / "meridian" / "questions.jsonl",
    "tasmanlight": REPO / "eval" / "tasmanlight" / "questions.jsonl",
    "pelhamridge": REPO / "eval" / "pelhamridge" / "questions.jsonl",
    "oakmere": REPO / "eval" / "oakmere" / "questions.jsonl",
    "saltmarsh": REPO / "eval" / "saltmarsh" / "questions.jsonl",
    "brackenfold": REPO / "eval" / "brackenfold" / "questions.jsonl",
    "followups": REPO / "eval" / "followups" / "prompts.jsonl",  # not a corpus: see followups.py
    "companies": REPO / "eval" / "sets" / "held-out.json",  # a named set of companies' question files
}

# Halves kept apart (issue 16): the engine may be tuned on TUNE only; TEST is reported, never
# tuned on. The demo company, developed against in full, is all tuning data.
TUNE, TEST = "tune", "test"
LOCOMO_TUNING_CONVERSATIONS = 5  # conversations 1-5 tune, 6-10 test

LOCOMO_CATEGORIES = {1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop", 5: "adversarial"}


@dataclass
class Case:
    question: str
    category: str
    gold: list[str]  # locators (evidence ids) or, for `substrings` scoring, expected texts
    unanswerable: bool = False  # the memory does not hold the answer: coverage must say so
    half: str = TUNE  # TUNE or TEST


@dataclass
class Corpus:
    name: str
    cases: list[Case]
    items: list[dict[str, Any]] = field(default_factory=list)  # pushed as an `items` source
    folder: Path | None = None  # or imported from a folder (the demo corpus)
    scoring: str = "locators"  # "locators" | "substrings"
    any_gold: bool = False  # recall counts a question found when any gold unit is found
    sessions: bool = False  # locators are "D<session>:<turn>": also score at session level


def session_of(locator: str) -> str:
    """LoCoMo's "D3:12" (session 3, turn 12) → "D3"."""
    return locator.split(":", 1)[0]


# --- LoCoMo ---------------------------------------------------------------------------------

_LOCOMO_TIME = re.compile(r"(\d{1,2}):(\d\d)\s*([ap]m)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", re.IGNORECASE)


def locomo_time(text: str) -> dt.datetime | None:
    """ "1:56 pm on 8 May, 2023" → 2023-05-08 13:56 UTC."""
    match = _LOCOMO_TIME.search(text or "")
    if not match:
        return None
    hour, minute, half, day, month, year = match.groups()
    try:
        stamp = dt.datetime.strptime(f"{hour}:{minute} {half.upper()} {day} {month} {year}", "%I:%M %p %d %B %Y")
    except ValueError:
        return None
    return stamp.replace(tzinfo=dt.timezone.utc)


def locomo_evidence(raw: list[Any], known: set[str]) -> list[str]:
    """The file's evidence ids, normalised: "D8:6; D9:17" and "D9:1 D4:4" are split, ids that
    name no turn ("D", "D30:05", a turn that does not exist) are dropped."""
    out: list[str] = []
    for entry in raw or []:
        for part in re.split(r"[;\s]+", str(entry)):
            part = part.strip()
            if part in known and part not in out:
                out.append(part)
    return out


def locomo(path: Path) -> Iterator[Corpus]:
    data = json.loads(path.read_text(encoding="utf-8"))
    for number, sample in enumerate(data):
        half = TUNE if number < LOCOMO_TUNING_CONVERSATIONS else TEST
        conversation = sample["conversation"]
        speakers = f"{conversation.get('speaker_a', '')} and {conversation.get('speaker_b', '')}"
        items: list[dict[str, Any]] = []
        known: set[str] = set()
        sessions = sorted(
            (int(key.split("_")[1]), key)
            for key in conversation
            if re.fullmatch(r"session_\d+", key) and isinstance(conversation[key], list)
        )
        for number, key in sessions:
            when_text = str(conversation.get(f"{key}_date_time") or "")
            when = locomo_time(when_text)
            messages = []
            for turn in conversation[key]:
                text = str(turn.get("text") or "").strip()
                caption = str(turn.get("blip_caption") or "").strip()
                if caption:
                    # The turn shares a photo: its caption is part of what was said.
                    text = f"{text} [shares a photo: {caption}]".strip()
                if not text:
                    continue
                known.add(turn["dia_id"])
                messages.append(
                    {
                        "text": text,
                        "author": turn.get("speaker", ""),
                        "sent_at": when.isoformat() if when else None,
                        "id": turn["dia_id"],
                    }
                )
            items.append(
                {
                    "external_id": f"{sample['sample_id']}/session_{number}",
                    "title": f"Conversation of {speakers}, session {number} ({when_text})",
                    "created_at": when.isoformat() if when else None,
                    "messages": messages,
                }
            )
        cases = []
        for qa in sample["qa"]:
            category = int(qa.get("category", 0))
            gold = locomo_evidence(qa.get("evidence") or [], known)
            unanswerable = category == 5
            if not gold and not unanswerable:
                continue  # a few category-3 questions name no evidence: nothing to score
            cases.append(
                Case(str(qa["question"]), LOCOMO_CATEGORIES.get(category, str(category)), gold, unanswerable, half)
            )
        yield Corpus(name=str(sample["sample_id"]), cases=cases, items=items, sessions=True)


# --- QMSum ----------------------------------------------------------------------------------


def qmsum(path: Path) -> Iterator[Corpus]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        meeting = json.loads(line)
        turns = meeting.get("meeting_transcripts") or []
        messages = [
            {"text": str(t.get("content") or "").strip(), "author": str(t.get("speaker") or ""), "id": str(i)}
            for i, t in enumerate(turns)
            if str(t.get("content") or "").strip()
        ]
        topics = [t.get("topic", "") for t in meeting.get("topic_list") or []]
        title = f"Meeting {number}: " + "; ".join(topics[:3]) if topics else f"Meeting {number}"
        cases = []
        for query in meeting.get("specific_query_list") or []:
            gold: list[str] = []
            for span in query.get("relevant_text_span") or []:
                try:
                    start, end = int(span[0]), int(span[-1])
                except (ValueError, TypeError, IndexError):
                    continue
                gold.extend(str(i) for i in range(start, end + 1) if i < len(turns))
            if gold:
                cases.append(Case(str(query["query"]), "specific", list(dict.fromkeys(gold))))
        yield Corpus(
            name=f"meeting-{number}",
            cases=cases,
            items=[{"external_id": f"meeting-{number}", "title": title[:500], "messages": messages}],
            any_gold=True,
        )


# --- companies: the demo and the evaluation companies -----------------------------------------


def company(path: Path) -> Iterator[Corpus]:
    """A company's `questions.jsonl` beside its `corpus/` folder. Each question lists the
    substrings its evidence must show (`expected`, every one of them; none for a question the
    corpus does not answer) and, optionally, its `half` (`tune` when absent)."""
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        q = json.loads(line)
        expected = [str(e) for e in q.get("expected") or []]
        half = str(q.get("half") or TUNE)
        if half not in (TUNE, TEST):
            raise ValueError(f"question {q.get('id', '?')}: half must be {TUNE!r} or {TEST!r}, not {half!r}")
        cases.append(Case(q["question"], q["category"], expected, unanswerable=not expected, half=half))
    yield Corpus(name=path.parent.name, cases=cases, folder=path.parent / "corpus", scoring="substrings")


def company_set(path: Path) -> Iterator[Corpus]:
    """A named set of question files over several companies (`eval/sets/*.json`), each company
    imported once for all its files: `{"sets": [{"folder": "../corvane", "files":
    ["holdout8.jsonl"]}, …]}`, each folder relative to the set file, holding `corpus/` and the
    files named (file names only). A company's corpus is named after its folder."""
    data = json.loads(path.read_text(encoding="utf-8"))
    entries = data["sets"]
    if not isinstance(entries, list) or not entries:
        raise ValueError("'sets' must be a non-empty list of {folder, files}")
    corpora = []  # every entry read before the first company is imported
    for entry in entries:
        folder = (path.parent / str(entry["folder"])).resolve()
        files = [str(f) for f in entry["files"]]
        if not (folder / "corpus").is_dir():
            raise ValueError(f"{entry['folder']} holds no corpus/ folder")
        if not files or any(Path(f).name != f or not (folder / f).is_file() for f in files):
            raise ValueError(f"{entry['folder']}: 'files' must name question files in that folder: {files}")
        cases = [case for f in files for corpus in company(folder / f) for case in corpus.cases]
        corpora.append(Corpus(name=folder.name, cases=cases, folder=folder / "corpus", scoring="substrings"))
    yield from corpora


LOADERS = {
    "locomo": locomo,
    "qmsum": qmsum,
    "demo": company,
    "harbourline": company,
    "wrenfield": company,
    "corvane": company,
    "meridian": company,
    "tasmanlight": company,
    "pelhamridge": company,
    "oakmere": company,
    "saltmarsh": company,
    "brackenfold": company,
    "companies": company_set,
}
