"""Dynamic client registration (RFC 7591) under PAM's trusted-redirect policy (SPEC §4).

Registration needs no initial access token: any client may register, as Claude.ai and ChatGPT
do on every connect, but only with redirect URIs on the trusted list (oauth.redirects). Public
clients (`token_endpoint_auth_method: none`) and confidential ones (`client_secret_post`,
`client_secret_basic`) are both accepted; DOT hashes the secret on save.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from oauth2_provider.models import Application

from oauth.models import RegisteredClient
from oauth.redirects import is_loopback, redirect_uri_trusted

AUTH_METHODS = ("none", "client_secret_post", "client_secret_basic")
# RFC 7591 §2: the default when the client names none.
DEFAULT_AUTH_METHOD = "client_secret_basic"
GRANT_TYPES = ("authorization_code", "refresh_token")
RESPONSE_TYPES = ("code",)
MAX_REDIRECT_URIS = 10
MAX_NAME_LENGTH = 255


class RegistrationError(Exception):
    """An RFC 7591 §3.2.2 error: `invalid_redirect_uri` or `invalid_client_metadata`."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(description)
        self.error = error
        self.description = description

    def as_json(self) -> dict[str, str]:
        return {"error": self.error, "error_description": self.description}


@dataclass(frozen=True)
class ClientMetadata:
    redirect_uris: list[str]
    client_name: str
    token_endpoint_auth_method: str
    application_type: str
    scope: str


def _metadata_error(description: str) -> RegistrationError:
    return RegistrationError("invalid_client_metadata", description)


def _string_list(data: dict[str, Any], name: str, default: list[str]) -> list[str]:
    value = data.get(name, default)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _metadata_error(f"{name} must be an array of strings.")
    return value


def parse_client_metadata(data: Any) -> ClientMetadata:
    """The registration request's metadata, checked; unknown fields are ignored (RFC 7591 §2)."""
    if not isinstance(data, dict):
        raise _metadata_error("The request body must be a JSON object.")

    if "redirect_uris" not in data:
        raise RegistrationError("invalid_redirect_uri", "redirect_uris is required.")
    redirect_uris = _string_list(data, "redirect_uris", [])
    if not redirect_uris or len(redirect_uris) > MAX_REDIRECT_URIS:
        raise RegistrationError("invalid_redirect_uri", f"redirect_uris must hold 1 to {MAX_REDIRECT_URIS} URIs.")
    for uri in redirect_uris:
        if not redirect_uri_trusted(uri):
            raise RegistrationError(
                "invalid_redirect_uri",
                f"The redirect URI {uri[:200]!r} is not trusted by this server "
                "(Claude, ChatGPT, loopback or the operator's PAM_OAUTH_REDIRECT_URIS).",
            )

    grant_types = _string_list(data, "grant_types", list(GRANT_TYPES))
    if "authorization_code" not in grant_types or not set(grant_types) <= set(GRANT_TYPES):
        raise _metadata_error("grant_types must include authorization_code and may add only refresh_token.")
    response_types = _string_list(data, "response_types", list(RESPONSE_TYPES))
    if response_types != ["code"]:
        raise _metadata_error('response_types must be ["code"].')

    method = data.get("token_endpoint_auth_method", DEFAULT_AUTH_METHOD)
    if method not in AUTH_METHODS:
        raise _metadata_error(f"token_endpoint_auth_method must be one of {', '.join(AUTH_METHODS)}.")

    supported = list(settings.PAM_OAUTH_SCOPES)
    scope = data.get("scope") or ""
    if not isinstance(scope, str):
        raise _metadata_error("scope must be a space-separated string.")
    # RFC 7591 §2: the server may replace requested values. Scopes PAM does not know (openid,
    # offline_access: refresh tokens come anyway) are dropped rather than failing a connect;
    # none left, or none asked for, means every scope. The answer says what was granted.
    granted = [name for name in dict.fromkeys(scope.split()) if name in supported] or supported

    default_type = "native" if all(is_loopback(uri) for uri in redirect_uris) else "web"
    application_type = data.get("application_type", default_type)
    if application_type not in RegisteredClient.ApplicationType.values:
        raise _metadata_error('application_type must be "web" or "native".')

    name = data.get("client_name")
    if name is not None and (not isinstance(name, str) or len(name) > MAX_NAME_LENGTH):
        raise _metadata_error(f"client_name must be a string of at most {MAX_NAME_LENGTH} characters.")
    # Strict clients expect a client_name back; the consent page needs one to show.
    client_name = (name or "").strip() or (urlsplit(redirect_uris[0]).hostname or "unnamed client")

    return ClientMetadata(
        redirect_uris=redirect_uris,
        client_name=client_name,
        token_endpoint_auth_method=method,
        application_type=application_type,
        scope=" ".join(granted),
    )


@transaction.atomic
def client_register(*, metadata: ClientMetadata) -> dict[str, Any]:
    """Create the client; the RFC 7591 §3.2.1 answer (the secret appears here only)."""
    confidential = metadata.token_endpoint_auth_method != "none"
    application = Application(
        name=metadata.client_name,
        redirect_uris=" ".join(metadata.redirect_uris),
        client_type=Application.CLIENT_CONFIDENTIAL if confidential else Application.CLIENT_PUBLIC,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        registration_source=Application.RegistrationSource.DCR,
    )
    raw_secret = application.client_secret  # generated by DOT; hashed when saved
    application.full_clean()
    application.save()
    RegisteredClient.objects.create(
        application=application,
        application_type=metadata.application_type,
        token_endpoint_auth_method=metadata.token_endpoint_auth_method,
        scope=metadata.scope,
    )
    answer: dict[str, Any] = {
        "client_id": application.client_id,
        "client_id_issued_at": int((application.created or timezone.now()).timestamp()),
        "client_name": metadata.client_name,
        "redirect_uris": metadata.redirect_uris,
        "grant_types": list(GRANT_TYPES),
        "response_types": list(RESPONSE_TYPES),
        "token_endpoint_auth_method": metadata.token_endpoint_auth_method,
        "scope": metadata.scope,
        "application_type": metadata.application_type,
    }
    if confidential:
        answer["client_secret"] = raw_secret
        answer["client_secret_expires_at"] = 0  # RFC 7591 §3.2.1: required with a secret; 0 = never
    return answer
