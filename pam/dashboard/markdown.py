"""Markdown shown on the dashboard (SPEC §6): CommonMark with raw HTML switched off, so a
document's text can never inject markup or scripts into the page."""

from __future__ import annotations

from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

_RENDERER = MarkdownIt("commonmark", {"html": False})


def render_markdown(text: str) -> SafeString:
    return mark_safe(_RENDERER.render(text))  # noqa: S308 - raw HTML is escaped by the renderer
