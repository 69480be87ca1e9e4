"""Workspace-level writes shared by commands, APIs and the admin."""

from __future__ import annotations

from django.db import transaction

from developer_api.models import Plan
from memory.models import User, Workspace
from pam.errors import PamError


def workspace_create(
    *, slug: str, admin_email: str, admin_password: str, plan_name: str = "paid", name: str = ""
) -> Workspace:
    """Create a workspace and its first admin (who logs in with the email)."""
    plan = Plan.objects.filter(name=plan_name).first()
    if plan is None:
        known = ", ".join(Plan.objects.order_by("name").values_list("name", flat=True))
        raise PamError("unknown_plan", f"Unknown plan {plan_name!r} (known plans: {known}).")
    if Workspace.objects.filter(slug=slug).exists():
        raise PamError("workspace_exists", f"Workspace {slug!r} already exists.")
    email = admin_email.strip().lower()
    if User.objects.filter(email=email).exists():
        raise PamError("user_exists", f"A user with the email {email!r} already exists.")
    with transaction.atomic():
        workspace = Workspace.objects.create(slug=slug, name=name or slug, plan=plan)
        User.objects.create_user(email, admin_password, workspace=workspace, is_staff=True)
    return workspace
