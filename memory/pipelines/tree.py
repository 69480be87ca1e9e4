"""The context tree: `Company Context > <Area> > <Topic>`, one context markdown per topic.

Area names follow SPEC §5. A document's area comes from its folder and title words; its topic
is its title. Each topic section's markdown lists its facts, grouped by heading, with their
source document and date; it is also the `source_path` that facts report.
"""

from __future__ import annotations

import re
from django.db import transaction

from memory.models import Fact, Section, Workspace

ROOT = "Company Context"
AREAS = [
    ("People and Teams", r"\b(people|team|teams|org|organi[sz]ation|staff|hiring|headcount|roles?|employees?)\b"),
    ("Relationships", r"\b(clients?|customers?|accounts?|partners?|vendors?|suppliers?)\b"),
    ("Projects", r"\b(projects?|roadmap|initiatives?|migration|launch)\b"),
    ("Financials", r"\b(finance|financials?|revenue|budget|pricing|prices?|invoic\w*|arr|mrr)\b"),
    ("Strategy", r"\b(strategy|strategic|priorities|okrs?|vision|goals?|plan)\b"),
    ("Decisions", r"\b(decisions?|adr|rfc)\b"),
    ("Meetings", r"\b(meetings?|notes|minutes|standup|sync|retro\w*|postmortem|review)\b"),
    ("Glossary", r"\b(glossary|terms|acronyms|terminology|dictionary)\b"),
    ("Processes", r"\b(process\w*|polic\w*|handbook|runbooks?|guides?|onboarding|how-?to|procedures?|on-call)\b"),
    ("Operations", r"\b(operations|status|ops|weekly|incidents?|vendors?)\b"),
]


def slug(name: str) -> str:
    """"People and Teams" → "people_and_teams": lower-case, other runs of characters → "_"."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "general"


def area_for(path: str, title: str) -> str:
    """The area of a document: its folders decide first, then its file name and title."""
    parts = path.lower().replace("-", " ").replace("_", " ").split("/")
    for candidate in [" ".join(parts[:-1]), f"{parts[-1]} {title.lower()}"]:
        for area, pattern in AREAS:
            if candidate and re.search(pattern, candidate):
                return area
    return "Operations"


def topic_for(title: str) -> str:
    topic = re.sub(r"\s+", " ", title.replace(">", "-")).strip()
    return topic[:200] or "General"


def section_paths(area: str, topic: str) -> tuple[str, str]:
    return f"{ROOT} > {area} > {topic}", f"company_context/{slug(area)}/{slug(topic)}.md"


def ensure_section(workspace: Workspace, area: str, topic: str) -> Section:
    area_path = f"{ROOT} > {area}"
    area_section, _ = Section.objects.get_or_create(
        workspace=workspace,
        tree_path=area_path,
        defaults={"title": area, "file_path": f"company_context/{slug(area)}/index.md"},
    )
    tree_path, file_path = section_paths(area, topic)
    section, _ = Section.objects.get_or_create(
        workspace=workspace,
        tree_path=tree_path,
        defaults={"title": topic, "file_path": file_path, "parent": area_section},
    )
    return section


def _section_markdown(title: str, tree_path: str, rows: list[tuple[str, str, str, str]]) -> str:
    lines = [f"# {title}", "", f"*{tree_path}*", ""]
    current = None
    for heading, statement, doc_path, eff in rows:
        group = heading.split(" > ", 1)[-1] if " > " in heading else heading
        if group != current:
            lines += ["", f"## {group}", ""] if current is not None or group else []
            current = group
        lines.append(f"- {statement} (source: {doc_path}{', ' + eff if eff else ''})")
    return "\n".join(lines).strip() + "\n"


def tree_rebuild(*, workspace: Workspace) -> int:
    """Write every topic's context markdown and counts; drop sections left without facts.

    Streams the facts in section order, each with its section's title and path, and holds one
    section's rows at a time: no table of the workspace's sections is kept, so memory stays
    flat however large the workspace grows."""
    topics = Section.objects.filter(workspace=workspace, parent__isnull=False)
    facts = (
        Fact.objects.filter(workspace=workspace, section__isnull=False)
        .order_by("section_id", "document_id", "position")
        .values_list(
            "section_id",
            "section__workspace_id",
            "section__parent_id",
            "section__title",
            "section__tree_path",
            "heading_path",
            "statement",
            "document__path",
            "effective_date",
        )
    )
    with transaction.atomic():
        written = 0
        current: tuple[int, str, str] | None = None  # the topic section whose rows these are
        rows: list[tuple[str, str, str, str]] = []

        def flush() -> None:
            nonlocal written
            if current is None or not rows:
                return
            sid, title, tree_path = current
            topics.filter(pk=sid).update(markdown=_section_markdown(title, tree_path, rows), fact_count=len(rows))
            written += 1

        current_sid: int | None = None
        for sid, ws_id, parent_id, title, tree_path, heading, statement, doc_path, effective in facts.iterator(
            chunk_size=5000
        ):
            if sid != current_sid:
                flush()
                current_sid, rows = sid, []
                # Only the workspace's topic sections get a markdown, as before.
                current = (sid, title, tree_path) if ws_id == workspace.pk and parent_id is not None else None
            rows.append((heading, statement, doc_path, effective.isoformat() if effective else ""))
        flush()
        # Topic sections none of the workspace's facts are filed under any more.
        filed = Fact.objects.filter(workspace=workspace, section__isnull=False).values("section_id")
        topics.exclude(pk__in=filed).delete()
        for area in Section.objects.filter(workspace=workspace, parent__isnull=True).only("id", "title"):
            lines = [f"# {area.title}", ""]
            total = 0
            children = area.children.order_by("title").values_list("title", "file_path", "fact_count")
            for title, path, count in children.iterator(chunk_size=5000):
                lines.append(f"- [{title}]({path.rsplit('/', 1)[-1]}) ({count} facts)")
                total += count
            if len(lines) == 2:
                area.delete()
                continue
            Section.objects.filter(pk=area.pk).update(markdown="\n".join(lines) + "\n", fact_count=total)
    return written
