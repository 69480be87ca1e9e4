"""The Usage page's server-rendered SVG charts (pam/dashboard/charts.py): bars stacked by
outcome and the weekday × hour heatmap, drawn from known usage stats."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pam.dashboard.charts import daily_calls_svg, heatmap_svg


def day(date: str, success: int = 0, tool_error: int = 0, quota: int = 0, blocked: int = 0) -> dict[str, Any]:
    return {
        "date": date, "total_calls": success + tool_error + quota + blocked, "successful_calls": success,
        "tool_error_calls": tool_error, "quota_exceeded_calls": quota, "entitlement_blocked_calls": blocked,
    }


def rects(svg: str, css_class: str) -> list[dict[str, str]]:
    return [dict(re.findall(r'([\w-]+)="([^"]*)"', tag)) for tag in re.findall(rf'<rect class="[^"]*\b{css_class}\b[^"]*"[^>]*>', svg)]


def test_each_day_is_a_stack_of_its_outcomes() -> None:
    svg = str(daily_calls_svg([day("2026-05-01", success=3, tool_error=1), day("2026-05-02"), day("2026-05-03", success=2, quota=2)]))
    success = rects(svg, "pam-outcome-success")
    assert [(r["data-date"], r["data-calls"]) for r in success] == [("2026-05-01", "3"), ("2026-05-03", "2")]
    assert [(r["data-date"], r["data-calls"]) for r in rects(svg, "pam-outcome-tool_error")] == [("2026-05-01", "1")]
    assert [(r["data-date"], r["data-calls"]) for r in rects(svg, "pam-outcome-quota_exceeded")] == [("2026-05-03", "2")]
    assert rects(svg, "pam-outcome-entitlement_blocked") == []
    # heights are proportional to the calls, and each outcome sits on the one below
    first_success, first_error = success[0], rects(svg, "pam-outcome-tool_error")[0]
    assert float(first_success["height"]) == pytest.approx(3 * float(first_error["height"]), abs=0.1)
    assert float(first_error["y"]) + float(first_error["height"]) == pytest.approx(float(first_success["y"]), abs=0.1)  # on top


def test_the_bar_chart_is_accessible() -> None:
    svg = str(daily_calls_svg([day("2026-05-01", success=3), day("2026-05-02", tool_error=2)]))
    assert 'role="img"' in svg
    assert 'aria-label="Daily calls by outcome, 2026-05-01 to 2026-05-02: 5 calls"' in svg
    assert "<title>2026-05-01: 3 success</title>" in svg and "<title>2026-05-02: 2 tool error</title>" in svg
    assert " style=" not in svg and "<script" not in svg


def test_an_idle_range_draws_no_bars() -> None:
    svg = str(daily_calls_svg([day("2026-05-01"), day("2026-05-02")]))
    assert rects(svg, "pam-bar") == [] and "0 calls" in svg


def test_the_heatmap_has_a_cell_for_every_weekday_and_hour() -> None:
    svg = str(heatmap_svg([{"weekday": 0, "hour": 9, "total_calls": 8}, {"weekday": 3, "hour": 14, "total_calls": 1}]))
    cells = rects(svg, "pam-heat")
    assert len(cells) == 7 * 24
    by_slot = {(c["data-weekday"], c["data-hour"]): c for c in cells}
    assert by_slot[("0", "9")]["data-calls"] == "8" and "pam-heat-4" in by_slot[("0", "9")]["class"]
    assert by_slot[("3", "14")]["data-calls"] == "1" and "pam-heat-1" in by_slot[("3", "14")]["class"]  # any call shows
    assert by_slot[("6", "23")]["data-calls"] == "0" and "pam-heat-0" in by_slot[("6", "23")]["class"]
    assert "<title>Sun 09:00 UTC: 8 calls</title>" in svg and "<title>Wed 14:00 UTC: 1 call</title>" in svg  # 0 = Sunday
    assert 'role="img"' in svg and "busiest hour 8 calls" in svg
    assert " style=" not in svg


def test_an_empty_heatmap_says_so() -> None:
    svg = str(heatmap_svg([]))
    assert 'aria-label="No calls in this range"' in svg and "pam-heat-1" not in svg
