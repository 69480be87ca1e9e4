"""Project-wide tables that belong to no product app: the rate-limit counters (pam/ratelimit.py)."""

from __future__ import annotations

from django.db import models


class RateLimitCounter(models.Model):
    """One fixed-window counter per limited key (e.g. "auth-token:203.0.113.7"), updated in one
    SQL statement; used when REDIS_URL is unset. Rows whose window is over are pruned."""

    key = models.CharField(max_length=200, primary_key=True)
    window_start = models.BigIntegerField()  # UTC epoch seconds
    window_end = models.BigIntegerField(db_index=True)
    count = models.IntegerField()

    class Meta:
        db_table = "pam_ratelimit_counter"

    def __str__(self) -> str:
        return f"{self.key}: {self.count}"
