"""OAuth 2.1 edges DOT lacks or that PAM shapes (SPEC §4): discovery with CORS, open dynamic
registration, the sign-in and consent pages, rate limits (SPEC §3).

Token (RFC 6749 §3.2), revocation (RFC 7009) and the metadata documents (RFC 8414, RFC 9728)
are DOT's own views, mounted by oauth.urls at SPEC's paths with CORS (and, for the token
endpoint, a rate limit and JSON errors).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django import forms
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from oauth2_provider import views as dot_views
from oauth2_provider.exceptions import OAuthToolkitError
from oauth2_provider.models import Application
from oauth2_provider.views.mixins import OAuthLibMixin
from oauthlib.oauth2.rfc6749.errors import CustomOAuth2Error, InvalidRequestError

from oauth.registration import RegistrationError, client_register, parse_client_metadata
from oauth.validators import resource_error
from pam.ratelimit import Rate, RateLimited, client_address, enforce

CORS_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
    "Access-Control-Allow-Headers": "Authorization, Content-Type, MCP-Protocol-Version",
    "Access-Control-Max-Age": "86400",
}
# What the consent page says each scope lets the client do.
SCOPE_SENTENCES = {
    "memory:read": "read your company memory",
    "memory:write": "write agent memories",
}


def _limited(scope: str, rate: str, request: HttpRequest) -> int | None:
    """Count this attempt (SPEC §3 rate limits, per client address): seconds to wait, or None."""
    try:
        enforce(scope, client_address(request), Rate.parse(rate))
    except RateLimited as exc:
        return exc.retry_after
    return None


def _too_many(retry_after: int) -> JsonResponse:
    # The OAuth error members clients parse (RFC 6749 §5.2, RFC 7591 §3.2.2) with SPEC's code.
    response = JsonResponse(
        {"error": "rate_limited", "error_description": f"Too many attempts; retry in {retry_after} seconds."},
        status=429,
    )
    response["Retry-After"] = str(retry_after)
    return response


class CorsOpen:
    """Browser clients read discovery and call registration and tokens cross-origin; none of
    these endpoints uses cookies, so every origin may (and preflights are answered)."""

    def options(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return HttpResponse(status=204)

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response: HttpResponse = super().dispatch(request, *args, **kwargs)  # type: ignore[misc]
        for name, value in CORS_HEADERS.items():
            response[name] = value
        return response


class AuthorizationServerMetadataView(CorsOpen, dot_views.OAuthServerMetadataView):
    """RFC 8414. Client ID Metadata Documents are not supported: said by omission (SPEC §4)."""

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = super().get(request, *args, **kwargs)
        data = json.loads(response.content)
        data.pop("client_id_metadata_document_supported", None)
        return JsonResponse(data)


class ProtectedResourceMetadataView(CorsOpen, dot_views.OAuthProtectedResourceMetadataView):
    """RFC 9728: the MCP endpoint, at the root and at the path-inserted location (§3.1)."""


class TokenView(CorsOpen, dot_views.TokenView):
    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        retry_after = _limited("oauth-token", settings.PAM_RATE_LIMIT_OAUTH_TOKEN, request)
        if retry_after is not None:
            return _too_many(retry_after)
        response = super().post(request, *args, **kwargs)
        # oauthlib leaves errors raised from the validator (RFC 8707 `invalid_target`) without
        # headers, so DOT would send their JSON as text/html (RFC 6749 §5.2 says JSON).
        if response.content.startswith(b"{") and not response["Content-Type"].startswith("application/json"):
            response["Content-Type"] = "application/json"
            response["Cache-Control"] = "no-store"
        return response


class RevokeTokenView(CorsOpen, dot_views.RevokeTokenView):
    pass


class RegistrationView(CorsOpen, dot_views.DynamicClientRegistrationView):
    """RFC 7591 §3, open to any client whose redirect URIs are trusted (oauth.redirects).

    No registration access token is issued: RFC 7592 client management is not offered.
    """

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        retry_after = _limited("oauth-register", settings.PAM_RATE_LIMIT_OAUTH_REGISTER, request)
        if retry_after is not None:
            return _too_many(retry_after)
        try:
            data = json.loads(request.body)
        except (ValueError, UnicodeDecodeError):
            data = None
        try:
            answer = client_register(metadata=parse_client_metadata(data))
        except RegistrationError as exc:
            return JsonResponse(exc.as_json(), status=400)
        except ValidationError as exc:
            error = "invalid_redirect_uri" if "redirect_uris" in getattr(exc, "message_dict", {}) else (
                "invalid_client_metadata"
            )
            return JsonResponse(
                {"error": error, "error_description": "; ".join(exc.messages)[:500]}, status=400
            )
        response = JsonResponse(answer, status=201)
        response["Cache-Control"] = "no-store"  # RFC 7591 §3.2.1: it may carry a secret
        return response


class SignInForm(AuthenticationForm):
    """Email and password, the same account as POST /v1/auth/token."""

    username = forms.EmailField(label="Email", max_length=254, widget=forms.EmailInput(attrs={"autofocus": True, "autocomplete": "email"}))

    def clean_username(self) -> str:
        return str(self.cleaned_data["username"]).strip().lower()


class SignInView(LoginView):
    template_name = "oauth/sign_in.html"
    form_class = SignInForm

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        # The same budget as POST /v1/auth/token: one password guess is one attempt either way.
        retry_after = _limited("auth-token", settings.PAM_RATE_LIMIT_AUTH_TOKEN, request)
        if retry_after is None:
            return super().post(request, *args, **kwargs)
        # An unbound form: binding it would check the password, the very attempt refused here.
        form = SignInForm(request, initial={"username": str(request.POST.get("username", ""))[:254]})
        refusal = f"Too many sign-in attempts. Try again in {retry_after} seconds."
        response = self.render_to_response(self.get_context_data(form=form, refusal=refusal), status=429)
        response["Retry-After"] = str(retry_after)
        return response

    def get_success_url(self) -> str:
        return self.get_redirect_url() or reverse("oauth-sign-in")


def _with_iss(url: str) -> str:
    """RFC 9207 §2: error responses carry `iss` too (DOT adds it only to successful ones)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    if any(name == "iss" for name, _ in query):
        return url
    query.append(("iss", settings.PAM_PUBLIC_BASE_URL))  # the RFC 8414 issuer
    return urlunsplit(parts._replace(query=urlencode(query)))


def _membership_problem(user: Any) -> str | None:
    if not user.is_active:
        return "This account is disabled."
    workspace = getattr(user, "workspace", None)
    if workspace is None:
        return (
            f"The account {user.email} belongs to no workspace, so there is no company memory to "
            "connect. Ask your workspace admin to add you, then try again."
        )
    if workspace.disabled:
        return f"The workspace {workspace.name} is disabled. Ask your workspace admin to renew it."
    return None


class AuthorizeView(dot_views.AuthorizationView):
    """GET/POST /v1/oauth/authorize: sign-in (login_url), then the consent page.

    PKCE with S256 only (RFC 7636, OAuth 2.1 §4.1.1); RFC 8707 `resource`, when sent, must be
    the MCP endpoint; `state` and the redirect URI come back exactly; Allow redirects with the
    code and `iss` (RFC 9207), Cancel with `error=access_denied`, the state and `iss`.
    """

    template_name = "oauth/authorize.html"

    def get_login_url(self) -> str:
        return reverse("oauth-sign-in")

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.user.is_authenticated:
            problem = _membership_problem(request.user)
            if problem:
                return render(request, "oauth/error.html", {"title": "Cannot connect", "message": problem}, status=403)
        if "approval_prompt" in request.GET:
            # DOT lets `approval_prompt=auto` skip the consent page for a client already
            # authorized; PAM asks every time (REQUEST_APPROVAL_PROMPT = "force").
            query = request.GET.copy()
            query.pop("approval_prompt")
            request.GET = query  # type: ignore[assignment]
        return super().dispatch(request, *args, **kwargs)

    def validate_authorization_request(self, request: HttpRequest) -> Any:
        scopes, credentials = super().validate_authorization_request(request)
        state = credentials.get("state")
        if credentials.get("code_challenge_method") != "S256":
            raise OAuthToolkitError(
                error=InvalidRequestError(description="code_challenge_method must be S256.", state=state),
                redirect_uri=credentials["redirect_uri"],
            )
        problem = resource_error(request.GET.getlist("resource")) if "resource" in request.GET else None
        if problem:
            raise OAuthToolkitError(
                error=CustomOAuth2Error(error="invalid_target", description=problem, state=state),
                redirect_uri=credentials["redirect_uri"],
            )
        return scopes, credentials

    def redirect(self, redirect_to: str, application: Any) -> HttpResponse:
        return super().redirect(_with_iss(redirect_to), application)

    def error_response(self, error: Any, application: Any, **kwargs: Any) -> HttpResponse:
        # OAuthLibMixin's decision, rendered with PAM's error page instead of DOT's template.
        redirect, error_response = OAuthLibMixin.error_response(self, error, **kwargs)
        if redirect:
            return self.redirect(error_response["url"], application)
        oauth_error = error_response["error"]
        return render(
            self.request,
            "oauth/error.html",
            {"title": "This connection request is not valid", "message": oauth_error.description or oauth_error.error},
            status=oauth_error.status_code,
        )

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        application: Application | None = context.get("application")
        user = self.request.user
        redirect_uri = str(context.get("redirect_uri") or "")
        context["workspace"] = getattr(user, "workspace", None)
        context["client_name"] = application.name if application and application.name else "An application"
        context["redirect_host"] = urlsplit(redirect_uri).hostname or redirect_uri
        context["abilities"] = [SCOPE_SENTENCES.get(scope, scope) for scope in context.get("scopes", [])]
        return context
