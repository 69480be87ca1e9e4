"""The forms of the Setup page (SPEC §6, §7): connect a source by upload or server-side
path, and try a prompt. Kinds come from the source registry, so a new kind shows up here."""

from __future__ import annotations

from django import forms

from memory.sources.registry import kind_names

KIND_LABELS = {
    "auto": "Detect automatically",
    "folder": "Folder of files",
    "git": "Git checkout",
    "markdown": "Markdown",
    "text": "Plain text",
    "html": "HTML",
    "pdf": "PDF",
    "docx": "Word (.docx)",
    "csv": "CSV table",
    "json": "JSON",
    "email": "Email messages (.eml)",
    "mbox": "Mail archive (mbox)",
    "slack": "Slack export (zip)",
    "notion": "Notion export",
    "confluence": "Confluence export",
}
PROMPT_MAX_CHARS = 4000


def kind_choices() -> list[tuple[str, str]]:
    return [(name, KIND_LABELS.get(name, name)) for name in kind_names()]


class _SourceForm(forms.Form):
    kind = forms.ChoiceField(choices=kind_choices, initial="auto", label="Kind")
    name = forms.CharField(required=False, max_length=200, label="Name (optional)")


class UploadForm(_SourceForm):
    file = forms.FileField(label="File or zip archive")


class PathForm(_SourceForm):
    path = forms.CharField(max_length=4096, label="Folder or file on the server")


class TryPromptForm(forms.Form):
    prompt = forms.CharField(max_length=PROMPT_MAX_CHARS, widget=forms.Textarea(attrs={"rows": 3}), label="Prompt")


def form_problems(form: forms.Form) -> str:
    """One line naming every problem of an invalid form, for a page message."""
    return " ".join(
        f"{form[name].label if name in form.fields else 'Form'}: {' '.join(str(error) for error in errors)}"
        for name, errors in form.errors.items()
    )
