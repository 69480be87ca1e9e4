"""The memories in the admin (issue 14 point 3; SPEC §6): the list with the REST filters, the
detail with history and audit rows, read-only; a workspace admin sees only their workspace, an
operator (superuser) every one."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.test import Client

from memory.agent_memory.services import Writer, memory_forget_one, memory_patch
from memory.engine.live import Viewer
from memory.models import AgentMemory, User, Workspace
from tests.memory_api.conftest import KEY, write

LIST = "/admin/memory/agentmemory/"


def signed_in(email: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(email=email))
    return client


def test_a_workspace_admin_sees_only_their_workspaces_memories(workspace: Workspace, other: Workspace) -> None:
    write(workspace, "Acme keeps invoices for seven years.")
    theirs = write(other, "Globex keeps invoices for ten years.")
    admin = signed_in("admin@acme.example")
    page = admin.get(LIST)
    assert page.status_code == 200
    assert b"acme" in page.content and theirs.reference.encode() not in page.content
    assert AgentMemory.objects.get(workspace=workspace).reference.encode() in page.content
    detail = admin.get(f"{LIST}{theirs.pk}/change/")
    assert detail.status_code == 302 and b"Globex" not in detail.content
    audit = admin.get("/admin/memory/agentmemoryaudit/").content
    assert theirs.reference.encode() not in audit and AgentMemory.objects.get(workspace=workspace).reference.encode() in audit


def test_an_operator_sees_every_workspace(workspace: Workspace, other: Workspace) -> None:
    mine, theirs = write(workspace, "Acme fact."), write(other, "Globex fact.")
    operator = Client()
    operator.force_login(User.objects.create_superuser("root@pam.example", "pw-123456789"))
    page = operator.get(LIST)
    assert mine.reference.encode() in page.content and theirs.reference.encode() in page.content
    assert operator.get(f"{LIST}?workspace__id__exact={other.pk}").content.count(mine.reference.encode()) == 0


def test_the_list_filters_like_the_rest_api(workspace: Workspace) -> None:
    eng = write(workspace, "Eng fact about deploys.", path="eng/deploys", bucket="eng", team="eng")
    public = write(workspace, "Public fact about lunch.", path="office/lunch")
    gone = write(workspace, "Forgotten fact.", path="old")
    memory_forget_one(workspace=workspace, viewer=Viewer(label=KEY), writer=Writer(KEY, "agent_key", ""), reference=gone.reference, reason="x")
    admin = signed_in("admin@acme.example")

    def shown(query: str) -> set[str]:
        content = admin.get(LIST + query).content
        return {m.reference for m in (eng, public, gone) if m.reference.encode() in content}

    assert shown("?bucket=eng") == {eng.reference}
    assert shown("?team=eng") == {eng.reference}
    assert shown("?state=forgotten") == {gone.reference}
    assert shown("?state=live") == {eng.reference, public.reference}
    assert shown(f"?credential={KEY}") == {eng.reference, public.reference, gone.reference}
    assert shown("?q=lunch") == {public.reference}


def test_the_detail_shows_history_and_audit_read_only(workspace: Workspace) -> None:
    memory = write(workspace, "The launch is in March.")
    memory_patch(
        workspace=workspace, viewer=Viewer(label=KEY), writer=Writer(KEY, "agent_key", ""), reference=memory.reference,
        changes={"content": "The launch moved to April."},
    )
    admin = signed_in("admin@acme.example")
    page = admin.get(f"{LIST}{memory.pk}/change/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "The launch moved to April." in text and "The launch is in March." in text  # live value and history
    assert "patched: content" in text and "created" in text  # audit rows
    assert 'name="_save"' not in text  # read-only
    response = admin.post(f"{LIST}{memory.pk}/change/", {"content": "hijack"})
    assert response.status_code == 403
    assert AgentMemory.objects.get(pk=memory.pk).content == "The launch moved to April."


def test_a_user_without_staff_sees_nothing(workspace: Workspace) -> None:
    User.objects.filter(email="admin@acme.example").update(is_staff=False)
    write(workspace, "Anything.")
    assert signed_in("admin@acme.example").get(LIST).status_code == 302


def test_a_users_buckets_and_teams_must_be_lists_of_names(workspace: Workspace) -> None:
    user = User.objects.get(email="admin@acme.example")
    user.memory_buckets, user.memory_teams = ["public", "eng"], ["platform"]
    user.full_clean()
    for buckets, teams in (("eng", []), (["Not A Bucket"], []), ([], [""]), ([], {"a": 1})):
        user.memory_buckets, user.memory_teams = buckets, teams
        with pytest.raises(ValidationError):
            user.full_clean()