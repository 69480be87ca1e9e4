"""The one domain error: code + human message, mapped to each surface at its edge."""

from __future__ import annotations


class PamError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
