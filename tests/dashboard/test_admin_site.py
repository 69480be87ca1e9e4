"""Who may open the dashboard and the stock admin (SPEC §6): workspace admins see their own
workspace's pages only, operators see every workspace and the model admin."""

from __future__ import annotations

from typing import Callable

import pytest
from django.test import Client

from memory.models import User, Workspace

PAGES = ["setup", "access", "usage", "requests", "memory", "sources"]
MODEL_ADMIN_PAGES = ["/admin/developer_api/requestlog/", "/admin/memory/workspace/", "/admin/memory/fact/"]


def signed_in(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


@pytest.fixture
def admin_of(make_workspace: Callable[..., Workspace]) -> Callable[[str], User]:
    def admin(slug: str) -> User:
        return make_workspace(slug).users.get()

    return admin


@pytest.mark.parametrize("page", PAGES)
def test_a_workspace_admin_opens_each_page_of_their_own_workspace(client: Client, admin_of: Callable[[str], User], page: str) -> None:
    admin_of("other")
    user = admin_of("mine")

    response = signed_in(client, user).get(f"/admin/dashboard/{page}/?workspace=other")

    assert response.status_code == 200
    assert response.context["workspace"].slug == "mine"  # ?workspace= means nothing to them


def test_the_admin_index_sends_a_workspace_admin_to_setup(client: Client, admin_of: Callable[[str], User]) -> None:
    response = signed_in(client, admin_of("mine")).get("/admin/")

    assert response.status_code == 302 and response["Location"] == "/admin/dashboard/setup/"


@pytest.mark.parametrize("url", MODEL_ADMIN_PAGES)
def test_a_workspace_admin_cannot_open_the_model_admin(client: Client, admin_of: Callable[[str], User], url: str) -> None:
    assert signed_in(client, admin_of("mine")).get(url).status_code == 403


@pytest.mark.parametrize("page", PAGES)
def test_a_signed_out_visitor_is_sent_to_sign_in(client: Client, db: None, page: str) -> None:
    response = client.get(f"/admin/dashboard/{page}/")

    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


def test_a_member_who_is_not_staff_is_sent_to_sign_in(client: Client, admin_of: Callable[[str], User]) -> None:
    user = admin_of("mine")
    user.is_staff = False
    user.save()

    assert signed_in(client, user).get("/admin/dashboard/setup/").status_code == 302


def test_a_staff_user_without_a_workspace_is_sent_to_sign_in(client: Client, db: None) -> None:
    user = User.objects.create_user("lost@example.com", "pw-123456789", is_staff=True)

    assert signed_in(client, user).get("/admin/dashboard/setup/").status_code == 302


def test_an_operator_picks_any_workspace_and_keeps_it_across_pages(client: Client, admin_of: Callable[[str], User]) -> None:
    admin_of("alpha")
    admin_of("beta")
    operator = User.objects.create_superuser("op@example.com", "pw-123456789")
    signed_in(client, operator)

    first = client.get("/admin/dashboard/usage/?workspace=beta")
    then = client.get("/admin/dashboard/setup/")

    assert first.context["workspace"].slug == "beta"
    assert then.context["workspace"].slug == "beta"
    assert [w.slug for w in then.context["pam_workspaces"]] == ["alpha", "beta"]
    assert client.get("/admin/memory/workspace/").status_code == 200


def test_an_operator_naming_an_unknown_workspace_gets_the_first_one(client: Client, admin_of: Callable[[str], User]) -> None:
    admin_of("alpha")
    operator = User.objects.create_superuser("op@example.com", "pw-123456789")

    response = signed_in(client, operator).get("/admin/dashboard/setup/?workspace=nope")

    assert response.status_code == 200 and response.context["workspace"].slug == "alpha"


def test_an_operator_with_no_workspace_yet_gets_a_404_saying_how_to_create_one(client: Client, db: None) -> None:
    operator = User.objects.create_superuser("op@example.com", "pw-123456789")

    assert signed_in(client, operator).get("/admin/dashboard/setup/").status_code == 404


def test_pages_carry_no_inline_script_or_style(client: Client, admin_of: Callable[[str], User]) -> None:
    html = signed_in(client, admin_of("mine")).get("/admin/dashboard/setup/").content.decode()

    assert "<script>" not in html and "<style" not in html and " style=" not in html
    assert "script-src 'self'" in client.get("/admin/dashboard/setup/")["Content-Security-Policy"]


def test_a_workspace_admin_granted_model_permissions_still_cannot_open_the_model_admin(client: Client, admin_of: Callable[[str], User]) -> None:
    from django.contrib.auth.models import Permission

    admin_of("other")
    user = admin_of("mine")
    user.user_permissions.set(Permission.objects.filter(codename__in=["view_workspace", "change_workspace", "view_requestlog"]))

    signed_in(client, User.objects.get(pk=user.pk))

    assert client.get("/admin/memory/workspace/").status_code == 403
    assert client.get("/admin/developer_api/requestlog/").status_code == 403
