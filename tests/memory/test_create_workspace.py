"""python manage.py create_workspace SLUG --admin-email EMAIL --admin-password PASSWORD
[--plan NAME] [--exists-ok] (SPEC §7)."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from memory.models import User, Workspace

PASSWORD = "s3cret-Passw0rd"


def create(slug: str, *args: str, email: str | None = None, password: str = PASSWORD) -> str:
    out = StringIO()
    call_command(
        "create_workspace",
        slug,
        "--admin-email",
        email or f"owner@{slug}.example",
        "--admin-password",
        password,
        *args,
        stdout=out,
        stderr=StringIO(),
    )
    return out.getvalue()


def login(email: str, password: str = PASSWORD) -> Any:
    return Client().post("/v1/auth/token", {"email": email, "password": password}, content_type="application/json")


def test_it_works(db: None) -> None:
    out = create("initech", "--plan", "unlimited")

    workspace = Workspace.objects.get(slug="initech")
    assert workspace.plan.name == "unlimited"
    assert workspace.disabled is False
    admin = User.objects.get(email="owner@initech.example")
    assert admin.workspace == workspace
    assert admin.check_password(PASSWORD)
    assert "initech" in out


def test_a_new_workspace_gets_the_paid_plan_unless_told_otherwise(db: None) -> None:
    create("initech")

    assert Workspace.objects.get(slug="initech").plan.name == "paid"


def test_the_admin_logs_in_with_the_email(db: None) -> None:
    create("initech", "--plan", "paid")

    response = login("owner@initech.example")

    assert response.status_code == 200, response.content
    assert set(response.json()) == {"access", "refresh", "expires_in"}


def test_the_admin_logs_in_whatever_the_case_of_the_email_given(db: None) -> None:
    create("initech", email="Owner@Initech.Example")

    assert User.objects.filter(email="owner@initech.example").exists()
    assert login("owner@initech.example").status_code == 200


def test_the_admins_token_opens_its_own_workspace(db: None) -> None:
    create("initech")
    access = login("owner@initech.example").json()["access"]

    response = Client().get("/v1/dev/readiness", headers={"Authorization": f"Bearer {access}"})

    assert response.status_code == 200
    assert response.json()["state"] == "waiting_for_sources"


def test_it_rejects_an_unknown_plan(db: None) -> None:
    with pytest.raises(CommandError) as excinfo:
        create("initech", "--plan", "platinum")

    assert "platinum" in str(excinfo.value)
    assert excinfo.value.returncode == 1
    assert not Workspace.objects.filter(slug="initech").exists()
    assert not User.objects.filter(email="owner@initech.example").exists()


def test_it_rejects_an_existing_slug(workspace: Workspace) -> None:
    with pytest.raises(CommandError) as excinfo:
        create("acme", "--plan", "paid", email="someone-else@acme.example")

    assert "acme" in str(excinfo.value)
    assert "exists" in str(excinfo.value)
    assert excinfo.value.returncode == 1
    assert not User.objects.filter(email="someone-else@acme.example").exists()


def test_with_exists_ok_an_existing_slug_succeeds_and_nothing_changes(workspace: Workspace) -> None:
    before_users = list(User.objects.values_list("email", "password", "workspace_id"))

    out = create("acme", "--plan", "paid", "--exists-ok", email="other@acme.example", password="a-new-password")

    workspace.refresh_from_db()
    assert workspace.plan.name == "unlimited"
    assert list(User.objects.values_list("email", "password", "workspace_id")) == before_users
    assert Workspace.objects.count() == 1
    assert "exists" in out
    assert login("admin@acme.example", "pw-123456789").status_code == 200
    assert login("other@acme.example", "a-new-password").status_code == 401


def test_with_exists_ok_a_new_slug_is_created(db: None) -> None:
    create("initech", "--exists-ok")

    assert Workspace.objects.filter(slug="initech").exists()


def test_it_rejects_an_email_that_already_belongs_to_a_user(workspace: Workspace) -> None:
    with pytest.raises(CommandError) as excinfo:
        create("initech", email="admin@acme.example")

    assert "admin@acme.example" in str(excinfo.value)
    assert not Workspace.objects.filter(slug="initech").exists()
    assert User.objects.get(email="admin@acme.example").workspace == workspace


@pytest.mark.parametrize("slug", ["not a slug", "bad/slug", ""])
def test_it_rejects_an_invalid_slug(db: None, slug: str) -> None:
    with pytest.raises(CommandError):
        create(slug, email="owner@initech.example")

    assert not Workspace.objects.exists()


def test_it_rejects_an_invalid_email(db: None) -> None:
    with pytest.raises(CommandError):
        create("initech", email="not-an-email")

    assert not Workspace.objects.exists()


def test_it_requires_the_admin_email_and_password(db: None) -> None:
    with pytest.raises(CommandError):
        call_command("create_workspace", "initech", stdout=StringIO(), stderr=StringIO())

    assert not Workspace.objects.exists()
