"""Content-Security-Policy on every response (issue 17; Django 5.2 has no built-in CSP).

The policy is strict: everything from PAM's own origin, no inline scripts or styles, no
plugins, no framing. The other security headers come from Django's SecurityMiddleware
(nosniff, Referrer-Policy, Cross-Origin-Opener-Policy, HSTS when configured) and
XFrameOptionsMiddleware (DENY).
"""

from __future__ import annotations

from typing import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase

CSP_HEADER = "Content-Security-Policy"


class ContentSecurityPolicyMiddleware:
    """Adds settings.PAM_CONTENT_SECURITY_POLICY unless the view set its own policy. Placed
    before WhiteNoise so static files carry it too."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if CSP_HEADER not in response:
            response[CSP_HEADER] = settings.PAM_CONTENT_SECURITY_POLICY
        return response
