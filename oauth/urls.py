"""OAuth 2.1 routes at SPEC §4's paths (no trailing slash), one DOT view at a time.

They keep DOT's `oauth2_provider` namespace and URL names: its metadata views reverse
`oauth2_provider:authorize`, `:token`, `:revoke-token` and `:dcr-register` to publish them.
Token, revocation and registration are called by clients, never by a browser form with a
session cookie, so they are CSRF-exempt (as DOT's own are).
"""

from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from oauth import views

METADATA_PATH = "v1/mcp/memory"  # RFC 9728 §3.1: the path-inserted document of the MCP endpoint

oauth2_provider_urlpatterns = [
    path(
        ".well-known/oauth-authorization-server",
        views.AuthorizationServerMetadataView.as_view(),
        name="oauth-server-metadata",
    ),
    path(
        ".well-known/oauth-protected-resource",
        views.ProtectedResourceMetadataView.as_view(),
        name="oauth-resource-metadata",
    ),
    path(
        f".well-known/oauth-protected-resource/{METADATA_PATH}",
        views.ProtectedResourceMetadataView.as_view(),
        name="oauth-resource-metadata-path",
    ),
    path("v1/oauth/authorize", views.AuthorizeView.as_view(), name="authorize"),
    path("v1/oauth/token", csrf_exempt(views.TokenView.as_view()), name="token"),
    path("v1/oauth/revoke", csrf_exempt(views.RevokeTokenView.as_view()), name="revoke-token"),
    path("v1/oauth/register", csrf_exempt(views.RegistrationView.as_view()), name="dcr-register"),
]

# The sign-in page is PAM's, outside DOT's namespace.
urlpatterns = [
    path("v1/oauth/sign-in", views.SignInView.as_view(), name="oauth-sign-in"),
]
