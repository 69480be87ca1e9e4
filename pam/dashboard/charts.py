"""Server-rendered SVG charts of the Usage page (SPEC §6, issue 15): daily calls stacked by
outcome and the weekday × hour heatmap (UTC, weekday 0 = Sunday as in SPEC §3's usage stats).

Plain SVG with presentation attributes and CSS classes (static/pam/dashboard/usage.css
colours them): no chart library, no script and no style attribute, so the strict CSP holds
and the charts read without JavaScript. Each bar and cell carries a <title> (its tooltip and
accessible name); each chart is a role="img" with an aria-label summing it up.
"""

from __future__ import annotations

from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from developer_api.models import RequestLog

# The stacking order, bottom to top, and the daily stats' field of each outcome.
OUTCOME_FIELDS = (
    (RequestLog.Outcome.SUCCESS.value, "successful_calls"),
    (RequestLog.Outcome.TOOL_ERROR.value, "tool_error_calls"),
    (RequestLog.Outcome.QUOTA_EXCEEDED.value, "quota_exceeded_calls"),
    (RequestLog.Outcome.ENTITLEMENT_BLOCKED.value, "entitlement_blocked_calls"),
)
OUTCOME_LABELS = {
    RequestLog.Outcome.SUCCESS.value: "Success",
    RequestLog.Outcome.TOOL_ERROR.value: "Tool error",
    RequestLog.Outcome.QUOTA_EXCEEDED.value: "Quota exceeded",
    RequestLog.Outcome.ENTITLEMENT_BLOCKED.value: "Entitlement blocked",
}
WEEKDAYS = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")  # SPEC §3: 0 = Sunday
HOURS = 24

# The bar chart's geometry (viewBox units; the SVG scales to its container).
BARS_WIDTH, BARS_HEIGHT = 900, 200
BARS_LEFT, BARS_BOTTOM, BARS_TOP = 40, 24, 10
BAR_GAP = 0.2  # the share of each day's slot left empty between bars
# The heatmap's geometry.
CELL, CELL_GAP, HEAT_LEFT, HEAT_TOP = 24, 2, 40, 18
HEAT_LEVELS = 4  # cells with calls are shaded in levels 1..4 of the busiest cell; 0 = idle
HOUR_LABEL_EVERY = 3


def _svg(width: int, height: int, label: str, body: list[str], css_class: str) -> SafeString:
    return mark_safe(  # noqa: S308 - every text inside went through escape()
        f'<svg class="pam-chart {css_class}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(label)}</title>{''.join(body)}</svg>"
    )


def _nice_max(value: int) -> int:
    """The y axis' top: the smallest 1, 2 or 5 × 10^k at or above `value` (at least 1)."""
    step = 1
    while True:
        for factor in (1, 2, 5):
            if step * factor >= value:
                return step * factor
        step *= 10


def daily_calls_svg(daily: list[dict[str, Any]]) -> SafeString:
    """One bar per day of `daily` (the usage stats' `daily`), stacked by outcome."""
    total = sum(day["total_calls"] for day in daily)
    label = f"Daily calls by outcome, {daily[0]['date']} to {daily[-1]['date']}: {total} calls" if daily else "No days"
    top = _nice_max(max((day["total_calls"] for day in daily), default=0))
    plot_width = BARS_WIDTH - BARS_LEFT
    plot_height = BARS_HEIGHT - BARS_BOTTOM - BARS_TOP
    slot = plot_width / max(len(daily), 1)
    bar_width = slot * (1 - BAR_GAP)
    base_y = BARS_TOP + plot_height
    body = [
        f'<line class="pam-axis" x1="{BARS_LEFT}" y1="{base_y}" x2="{BARS_WIDTH}" y2="{base_y}"/>',
        f'<line class="pam-gridline" x1="{BARS_LEFT}" y1="{BARS_TOP}" x2="{BARS_WIDTH}" y2="{BARS_TOP}"/>',
        f'<text class="pam-chart-label" x="{BARS_LEFT - 6}" y="{BARS_TOP + 4}" text-anchor="end">{top}</text>',
        f'<text class="pam-chart-label" x="{BARS_LEFT - 6}" y="{base_y}" text-anchor="end">0</text>',
    ]
    for index, day in enumerate(daily):
        x = BARS_LEFT + index * slot + (slot - bar_width) / 2
        y = float(base_y)
        for outcome, field in OUTCOME_FIELDS:
            calls = day[field]
            if not calls:
                continue
            height = calls / top * plot_height
            y -= height
            tip = f"{day['date']}: {calls} {OUTCOME_LABELS[outcome].lower()}"
            body.append(
                f'<rect class="pam-bar pam-outcome-{outcome}" data-date="{day["date"]}" data-calls="{calls}" '
                f'x="{x:.1f}" y="{y:.1f}" width="{bar_width:.1f}" height="{height:.1f}"><title>{escape(tip)}</title></rect>'
            )
    for index in sorted({0, len(daily) // 2, len(daily) - 1}) if daily else []:
        x = BARS_LEFT + index * slot + slot / 2
        body.append(
            f'<text class="pam-chart-label" x="{x:.1f}" y="{BARS_HEIGHT - 6}" text-anchor="middle">{daily[index]["date"][5:]}</text>'
        )
    return _svg(BARS_WIDTH, BARS_HEIGHT, label, body, "pam-chart-bars")


def heatmap_svg(cells: list[dict[str, Any]]) -> SafeString:
    """7 × 24 cells from the usage stats' `hourly_heatmap` (idle hours are absent there)."""
    calls = {(cell["weekday"], cell["hour"]): cell["total_calls"] for cell in cells}
    busiest = max(calls.values(), default=0)
    width = HEAT_LEFT + HOURS * (CELL + CELL_GAP)
    height = HEAT_TOP + len(WEEKDAYS) * (CELL + CELL_GAP)
    label = f"Calls by weekday and hour (UTC); busiest hour {busiest} calls" if busiest else "No calls in this range"
    body = []
    for hour in range(0, HOURS, HOUR_LABEL_EVERY):
        x = HEAT_LEFT + hour * (CELL + CELL_GAP) + CELL / 2
        body.append(f'<text class="pam-chart-label" x="{x}" y="{HEAT_TOP - 6}" text-anchor="middle">{hour:02d}</text>')
    for weekday, name in enumerate(WEEKDAYS):
        y = HEAT_TOP + weekday * (CELL + CELL_GAP)
        body.append(f'<text class="pam-chart-label" x="{HEAT_LEFT - 6}" y="{y + CELL / 2 + 4}" text-anchor="end">{name}</text>')
        for hour in range(HOURS):
            n = calls.get((weekday, hour), 0)
            level = 0 if not n else max(1, -(-n * HEAT_LEVELS // busiest))  # ceil: any call shows
            x = HEAT_LEFT + hour * (CELL + CELL_GAP)
            tip = f"{name} {hour:02d}:00 UTC: {n} call{'' if n == 1 else 's'}"
            body.append(
                f'<rect class="pam-heat pam-heat-{level}" data-weekday="{weekday}" data-hour="{hour}" data-calls="{n}" '
                f'x="{x}" y="{y}" width="{CELL}" height="{CELL}" rx="3"><title>{tip}</title></rect>'
            )
    return _svg(width, height, label, body, "pam-chart-heatmap")
