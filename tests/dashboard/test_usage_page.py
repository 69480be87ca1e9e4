"""The Usage page (SPEC §6, §3.2; issue 15): quota meters, daily calls by outcome, the
heatmap, the status breakdown and averages, for 7, 30 or 90 days."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Callable

from django.test import Client
from django.utils import timezone

from developer_api.quotas import quota_attempt, quota_reserve
from memory.models import User, Workspace
from tests.dashboard.conftest import admin_client, assert_no_inline_code, log_call

URL = "/admin/dashboard/usage/"


def test_it_shows_the_calls_of_the_range(make_workspace: Callable[..., Workspace]) -> None:
    workspace = make_workspace("acme")
    now = timezone.now()
    for _ in range(3):
        log_call(workspace, at=now, duration_ms=100, tokens=200)
    log_call(workspace, outcome="tool_error", at=now, duration_ms=300, tokens=0)
    log_call(workspace, at=now - timedelta(days=60))  # outside the default 30 days
    response = admin_client(workspace).get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    assert re.search(r'data-testid="total-calls">4<', html)
    assert re.search(r'data-testid="average-duration">150 ms<', html)
    assert re.search(r'data-testid="average-tokens">150<', html)
    table = html.split('data-testid="status-breakdown"')[1].split("</table>")[0]
    assert re.search(r"Success</td><td class=\"pam-num\">3</td><td class=\"pam-num\">75 %", table)
    assert re.search(r"Tool error</td><td class=\"pam-num\">1</td><td class=\"pam-num\">25 %", table)
    today = now.date().isoformat()
    assert f'data-date="{today}" data-calls="3"' in html and f'data-date="{today}" data-calls="1"' in html
    assert html.count('class="pam-heat ') == 7 * 24
    assert_no_inline_code(html)




def test_it_shows_quota_meters_with_their_resets(make_workspace: Callable[..., Workspace]) -> None:
    workspace = make_workspace("acme", plan="paid")  # 300 a week, 1,000 a month, 100 an hour
    for _ in range(2):
        quota_attempt(workspace=workspace)
        quota_reserve(workspace=workspace)
    html = admin_client(workspace).get(URL).content.decode()
    meters = re.findall(r"<meter [^>]*>", html)
    assert len(meters) == 3
    assert 'max="300"' in meters[0] and 'value="2"' in meters[0] and 'high="240"' in meters[0]
    assert 'max="1000"' in meters[1] and 'value="2"' in meters[1]
    assert 'max="100"' in meters[2] and 'value="2"' in meters[2]
    assert "298 left" in html and "998 left" in html and "98 left" in html
    assert html.count("Resets <time datetime=") == 3
    assert 'data-testid="quota-status">Within quota<' in html


def test_an_unlimited_plan_says_so_instead_of_a_meter(make_workspace: Callable[..., Workspace]) -> None:
    workspace = make_workspace("acme", plan="unlimited")
    html = admin_client(workspace).get(URL).content.decode()
    assert "<meter" not in html
    assert html.count(">Unlimited</span>") == 4  # the status and each window
    assert "No calls in the last 30 days" in html


def test_it_offers_7_30_and_90_days(make_workspace: Callable[..., Workspace]) -> None:
    workspace = make_workspace("acme")
    now = timezone.now()
    log_call(workspace, at=now - timedelta(days=10))
    client = admin_client(workspace)
    week = client.get(URL, {"days": "7"}).content.decode()
    assert 'aria-current="true">7 days<' in week and "No calls in the last 7 days" in week
    quarter = client.get(URL, {"days": "90"}).content.decode()
    assert re.search(r'data-testid="total-calls">1<', quarter)
    assert f"{(now - timedelta(days=89)).date().isoformat()} – {now.date().isoformat()}" in quarter


def test_a_bad_range_shows_the_default_with_a_message(make_workspace: Callable[..., Workspace]) -> None:
    client = admin_client(make_workspace("acme"))
    for bad in ("abc", "500", "-7", "14", ""):
        response = client.get(URL, {"days": bad})
        assert response.status_code == 200
        html = response.content.decode()
        assert "The range must be 7, 30 or 90 days" in html
        assert 'aria-current="true">30 days<' in html


def test_it_redirects_a_visitor_and_a_non_staff_user_to_sign_in(make_workspace: Callable[..., Workspace]) -> None:
    workspace = make_workspace("acme")
    assert Client().get(URL).url.startswith("/admin/login/")
    client = Client()
    client.force_login(User.objects.create_user("member@acme.example", "pw-123456789", workspace=workspace))
    assert client.get(URL).url.startswith("/admin/login/")


def test_an_operator_chooses_the_workspace(make_workspace: Callable[..., Workspace]) -> None:
    acme, other = make_workspace("acme"), make_workspace("other")
    log_call(other, at=timezone.now())
    log_call(other, at=timezone.now())
    client = Client()
    client.force_login(User.objects.create_superuser("op@pam.example", "pw-123456789"))
    assert re.search(r'data-testid="total-calls">2<', client.get(URL, {"workspace": "other"}).content.decode())
    assert re.search(r'data-testid="total-calls">0<', client.get(URL, {"workspace": acme.slug}).content.decode())
