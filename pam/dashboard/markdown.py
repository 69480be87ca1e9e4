"""Markdown answers shown in the dashboard (SPEC §6: try a prompt on Setup, the Request Log
detail): CommonMark with raw HTML off, so an answer quoting `<script>` shows it as text."""

from __future__ import annotations

from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

_RENDERER = MarkdownIt("commonmark", {"html": False})


def render_markdown(text: str) -> SafeString:
    """The HTML of `text`: every HTML tag in the source is escaped, links keep only safe
    schemes (markdown-it's own validation)."""
    return mark_safe(_RENDERER.render(text))  # noqa: S308 - html is off: the output is escaped
