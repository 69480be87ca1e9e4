"""Static files load with DEBUG off and no `collectstatic` (issue 17 defect 9): the admin's
stylesheets come through WhiteNoise as 200 text/css."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from django.test import Client


def test_the_stylesheets_the_admin_login_page_links_to_load(db: None, settings: Any, tmp_path: Path) -> None:
    assert not settings.DEBUG
    settings.STATIC_ROOT = tmp_path / "staticfiles"  # a fresh install: nothing collected
    settings.STATIC_ROOT.mkdir()
    client = Client()  # its handler builds the middleware, WhiteNoise included, from these settings
    page = client.get("/admin/login/")
    assert page.status_code == 200
    stylesheets = re.findall(r'<link rel="stylesheet" href="([^"]+)"', page.content.decode())
    assert "/static/admin/css/base.css" in stylesheets

    for href in stylesheets:
        response = client.get(href)
        assert response.status_code == 200, href
        assert response["Content-Type"].startswith("text/css"), (href, response["Content-Type"])
        assert b"".join(response.streaming_content)  # type: ignore[attr-defined]
