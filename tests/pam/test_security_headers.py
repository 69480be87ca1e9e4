"""Every page carries the Content-Security-Policy and Django's security headers, renders
under that policy (no inline script, style or handler), and every POST form has its CSRF
token (issue 17 "Secrets"). The pages are generated: every admin page of every registered
model (list, add, change, history, delete) plus one answer of each API surface and a static
file, so a new model admin is covered without a new test."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.conf import settings
from django.contrib import admin
from django.test import Client
from django.urls import reverse

from memory.models import Workspace

STRICT = {"default-src": "'self'", "script-src": "'self'", "style-src": "'self'", "frame-ancestors": "'none'"}
INLINE = [
    (re.compile(r"<script(?![^>]*\bsrc=)[^>]*>\s*\S", re.I), "inline <script>"),
    (re.compile(r"<style[\s>]", re.I), "<style> element"),
    (re.compile(r"\sstyle\s*=", re.I), "style= attribute"),
    (re.compile(r"\son[a-z]+\s*=", re.I), "on…= handler"),
    (re.compile(r"javascript:", re.I), "javascript: URL"),
]
FORM = re.compile(r"<form\b[^>]*>.*?</form>", re.I | re.S)


def admin_pages() -> list[str]:
    pages = [reverse("admin:index"), reverse("admin:password_change")]
    for model in admin.site._registry:
        info = (model._meta.app_label, model._meta.model_name)
        pages.append(reverse("admin:%s_%s_changelist" % info))
        pages.append(reverse("admin:%s_%s_add" % info))  # 403 where adding is not allowed
        first = model._default_manager.order_by("pk").first()
        if first is not None:
            for view in ("change", "history", "delete"):
                pages.append(reverse(f"admin:%s_%s_{view}" % info, args=[first.pk]))
    return pages


def assert_headers(response: Any, where: str) -> None:
    policy = dict(part.strip().split(" ", 1) for part in response["Content-Security-Policy"].split(";"))
    for directive, value in STRICT.items():
        assert policy.get(directive) == value, (where, directive, policy)
    assert "unsafe-inline" not in response["Content-Security-Policy"]
    assert response["X-Content-Type-Options"] == "nosniff", where
    if not where.startswith(settings.STATIC_URL):  # a stylesheet is not framed: CSP covers it
        assert response["X-Frame-Options"] == "DENY", where
    assert response["Referrer-Policy"] == "same-origin", where


@pytest.fixture
def staff(imported_workspace: Workspace) -> Client:
    user = imported_workspace.users.get()
    user.is_staff = user.is_superuser = True
    user.save()
    client = Client()
    client.force_login(user)
    return client


def test_every_admin_page_is_strict_and_its_forms_carry_csrf(staff: Client) -> None:
    pages = admin_pages()
    checked = 0
    for page in pages:
        response = staff.get(page)
        assert response.status_code in (200, 302, 403), (page, response.status_code)
        assert_headers(response, page)
        if response.status_code != 200:
            continue
        html = response.content.decode()
        for pattern, what in INLINE:
            match = pattern.search(html)
            assert match is None, f"{page}: {what} (blocked by the CSP): {html[max(0, match.start() - 80):match.end() + 80] if match else ''}"
        for form in FORM.findall(html):
            if re.search(r'method=["\']?post', form, re.I):
                assert 'name="csrfmiddlewaretoken"' in form, f"{page}: a POST form without its CSRF token"
        checked += 1
    print(f"\n{checked} admin pages of {len(admin.site._registry)} model admins checked ({len(pages)} URLs)")
    assert checked >= len(admin.site._registry)


def test_a_post_without_the_csrf_token_is_refused(imported_workspace: Workspace) -> None:
    user = imported_workspace.users.get()
    user.is_staff = user.is_superuser = True
    user.save()
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)

    response = client.post(reverse("admin:password_change"), {"old_password": "pw-123456789"})

    assert response.status_code == 403


@pytest.mark.parametrize(
    "method, path",
    [
        ("get", "/admin/login/"),
        ("get", "/static/admin/css/base.css"),
        ("post", "/v1/mcp/memory"),
        ("get", "/v1/dev/readiness"),
        ("post", "/v1/auth/token"),
        ("get", "/v1/nowhere"),
        ("get", "/nowhere"),
    ],
)
def test_every_surface_answers_with_the_security_headers(db: None, method: str, path: str) -> None:
    response = getattr(Client(), method)(path)

    assert_headers(response, path)
