"""The markdown report agents read (`content[0].text`), in the layout of SPEC §2.3."""

from __future__ import annotations

from memory.engine.types import Retrieval

ROOT_PREFIX = "Company Context > "


def _short(tree_path: str) -> str:
    return tree_path[len(ROOT_PREFIX) :] if tree_path.startswith(ROOT_PREFIX) else tree_path


def render_report(prompt: str, retrieval: Retrieval) -> str:
    searched = [t.tree_path for t in retrieval.phase1.targeted_sections]
    lines = [
        "# Retrieved Company Context",
        "",
        f"**Query:** {prompt}",
        "",
        f"**Summary:** {retrieval.context_summary or 'No company context is needed for this prompt.'}",
        "",
        "## How This Context Was Found",
        f"**Reasoning:** {retrieval.triage.reasoning}",
        f"**Sections searched:** {', '.join(_short(p) for p in searched) if searched else 'none'}",
    ]
    if retrieval.facts:
        lines += ["", "## Relevant Facts", ""]
        for fact in retrieval.facts:
            dated = f", {fact.effective_date}" if fact.effective_date else ""
            if fact.superseded:
                dated += "; superseded by a newer statement"
            lines.append(
                f"- [{round(fact.relevance_score * 100)}%] **{fact.statement}** "
                f"(source: {fact.section}{dated})"
            )
    if retrieval.entities:
        lines += ["", "## Entities", ""]
        for entity in retrieval.entities:
            props = ", ".join(f"{k}: {v}" for k, v in entity.properties.items())
            lines.append(f"- **{entity.label}** ({entity.type}{'; ' + props if props else ''})")
    if retrieval.relationships:
        lines += ["", "## Relationships", ""]
        for rel in retrieval.relationships:
            lines.append(f"- {rel.source} —{rel.type}→ {rel.target}")
    if retrieval.documents:
        lines += ["", "## Source Excerpts", ""]
        for doc in retrieval.documents:
            lines.append(f"### {doc.title} ({doc.source_path})")
            lines.append("")
            lines.append(f"> {doc.excerpt}")
            lines.append("")
    lines += [
        "",
        "---",
        f"*Retrieved {retrieval.total_items} items | "
        f"Avg relevance: {round(retrieval.avg_relevance_score * 100)}% | "
        f"Coverage: {retrieval.coverage_assessment}*",
    ]
    return "\n".join(lines)
