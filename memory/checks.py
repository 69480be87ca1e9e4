"""System checks of the memory app: the dense stage's model is where `PAM_DENSE_MODEL` says
(docs/configuration.md), so a missing download is reported by `manage.py check`, `runserver`
and `migrate`, not by the first index build."""

from __future__ import annotations

from typing import Any

from django.core.checks import Error, register

from memory.engine import dense


@register()
def dense_model_installed(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    missing = dense.missing_model() if dense.enabled() else None
    return [Error(missing, id="memory.E001")] if missing else []
