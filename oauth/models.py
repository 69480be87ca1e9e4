"""OAuth 2.1 for browser LLM clients (SPEC §4): what django-oauth-toolkit does not store.

DOT keeps clients and tokens in its own tables. PAM adds the registration metadata DOT has no
column for (`RegisteredClient`) and the connected app the Developer API lists and revokes
(`OAuthConnection`, one per refresh-token family).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from oauth2_provider.models import Application

from memory.models import Workspace


class RegisteredClient(models.Model):
    """RFC 7591 metadata of a dynamically registered client that DOT's Application lacks."""

    class ApplicationType(models.TextChoices):
        WEB = "web"
        NATIVE = "native"

    application = models.OneToOneField(Application, on_delete=models.CASCADE, related_name="pam_client")
    application_type = models.CharField(max_length=16, choices=ApplicationType.choices)
    # client_secret_post and client_secret_basic are both "confidential" to DOT; clients want
    # back the method they registered with.
    token_endpoint_auth_method = models.CharField(max_length=32)
    scope = models.TextField()  # the scopes this client may ask for, space-separated

    def __str__(self) -> str:
        return f"{self.application} ({self.application_type})"


class OAuthConnection(models.Model):
    """A connected app: one refresh-token family of one user of one workspace (SPEC §3, §4).

    Its integer id names the credential in the request log (`oauth:<id>`) and stays the same
    across refreshes. Reconnecting the same client (same user, client name and redirect URIs)
    revokes the old family and reuses this row.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="oauth_connections")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="oauth_connections")
    application = models.ForeignKey(Application, on_delete=models.SET_NULL, null=True, related_name="+")
    client_id = models.CharField(max_length=255)
    client_name = models.CharField(max_length=255, blank=True)
    redirect_uris = models.TextField()  # space-separated, sorted
    # SHA-256 of the client name and sorted redirect URIs: "the same client" across
    # registrations, since every connect registers anew with a new client_id.
    client_key = models.CharField(max_length=64)
    scope = models.TextField()
    token_family = models.UUIDField(unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()  # when the current refresh token dies unused
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "client_key"], name="oauth_connection_one_per_client"
            )
        ]
        indexes = [models.Index(fields=["workspace", "-created_at"])]

    def __str__(self) -> str:
        return f"oauth:{self.pk} {self.client_name or self.client_id}"

    @property
    def status(self) -> str:
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at <= timezone.now():
            return "expired"
        return "active"
