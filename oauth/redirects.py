"""The trusted redirect URIs of SPEC §4: who may register as an OAuth client.

Registration is open (RFC 7591 without an initial access token), so the redirect URI is what
keeps authorization codes away from strangers: only the known browser LLM callbacks, native
loopback URIs (RFC 8252 §7.3, any port) and the operator's own additions pass.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from django.conf import settings

TRUSTED_EXACT = (
    "https://claude.ai/api/mcp/auth_callback",
    "https://claude.com/api/mcp/auth_callback",
)
# https://chatgpt.com/connector/oauth/{id}: one path segment of URL-safe characters.
CHATGPT_CALLBACK = re.compile(r"https://chatgpt\.com/connector/oauth/[A-Za-z0-9_-]{1,128}")
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
MAX_URI_LENGTH = 2000


def is_loopback(uri: str) -> bool:
    """RFC 8252 §7.3: an http URI on a loopback host, with or without a port."""
    parts = urlsplit(uri)
    return parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS


def redirect_uri_trusted(uri: str) -> bool:
    if not isinstance(uri, str) or not uri or len(uri) > MAX_URI_LENGTH:
        return False
    if "#" in uri or any(ch.isspace() for ch in uri):
        return False  # RFC 6749 §3.1.2: no fragment; DOT stores the list space-separated
    try:
        parts = urlsplit(uri)
        parts.port  # a malformed port raises ValueError
    except ValueError:
        return False
    if "@" in parts.netloc:
        return False  # userinfo would let "https://claude.ai@evil.example/" pass a prefix test
    if uri in TRUSTED_EXACT or CHATGPT_CALLBACK.fullmatch(uri):
        return True
    if is_loopback(uri):
        return True
    return uri in settings.PAM_OAUTH_REDIRECT_URIS
