"""Developer API reads at request-log scale (issue 11): usage stats, the request list (first
page, a cursor page, a `q` search) and the exact count, at 1,000,000 rows of realistic size.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test .venv/bin/python bench/request_log_scale.py
    .venv/bin/python bench/request_log_scale.py --rows 100000          # SQLite, smaller

Creates a throwaway database (PostgreSQL: `pam_bench_<random>`, dropped at the end; SQLite: a
temporary file), migrates it, and fills one workspace's request log server-side with rows
spread over the last 89 days in the order they are written (as a log is): prompts of 8-20
words and 3-5 kB responses (as retrieve_memory writes them: the text in `response_text` and
again inside `result`). The usage roll-up is
rebuilt from the log once, as after a bulk load. Each endpoint is then called through Django's
test client with a real JWT, `--repeat` times; the first call (a `q` search's first call also
counts its matches in full: `developer_api.search_counts`) and the median are reported, the
median with its ratio to `GET /v1/dev/readiness` measured in the same run (these machines are
shared and noisy). `--database NAME` measures a database kept by an earlier `--keep` run.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

VOCABULARY = (
    "meridian rollout platform engineering owns vendor sign-off staging capacity refund policy customer "
    "enterprise invoice quarterly roadmap launch steering committee budget freeze approval design review "
    "security contract renewal account manager northwind retail tier client revenue support escalation "
    "onboarding hiring plan office toronto ontario trial billing migration database incident postmortem "
    "deadline owner blocker dependency milestone release notes pricing discount partner integration api "
    "analytics dashboard compliance audit legal procurement travel expense reimbursement payroll benefits"
).split()
RARE_WORD = "zanzibarquokka"  # in one row of 10,000


def _text(rng: random.Random, low: int, high: int) -> str:
    words: list[str] = []
    size = rng.randint(low, high)
    while sum(len(w) + 1 for w in words) < size:
        words.append(rng.choice(VOCABULARY))
    return " ".join(words)


def _database() -> tuple[str, str | None]:
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        import psycopg

        name = f"pam_bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return urlunsplit(urlsplit(url)._replace(path=f"/{name}")), name
    return f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3", None


def _fill(workspace_id: int, rows: int, seed: int) -> None:
    """Insert `rows` log rows from 500 distinct realistic prompts and answers, in batches of
    100,000 (PostgreSQL: server-side from generate_series; SQLite: executemany)."""
    from django.db import connection

    rng = random.Random(seed)
    texts = [(i, _text(rng, 60, 140), _text(rng, 3000, 5000)) for i in range(500)]
    columns = (
        "request_id, workspace_id, credential, tool_name, arguments, prompt, session_id, result, response_text, "
        "is_error, outcome, error_code, retrieval_ran, triage_only, item_count, estimated_tokens, llm_calls, "
        "duration_ms, created_at"
    )
    outcomes = ["success"] * 17 + ["tool_error", "quota_exceeded", "entitlement_blocked"]
    batch = 100_000
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("CREATE TEMP TABLE bench_texts (i int, prompt text, response text)")
            cursor.executemany("INSERT INTO bench_texts VALUES (%s, %s, %s)", texts)
            for start in range(0, rows, batch):
                cursor.execute(
                    f"INSERT INTO developer_api_requestlog ({columns}) "
                    "SELECT gen_random_uuid(), %s, 'pam_mkey_bench1234', 'retrieve_memory', '{\"prompt\": \"bench\"}', "
                    f"  t.prompt || CASE WHEN g %% 10000 = 0 THEN ' {RARE_WORD}' ELSE '' END, '', "
                    "  jsonb_build_object('content', jsonb_build_array(jsonb_build_object('type', 'text', 'text', t.response)), 'isError', false), "
                    "  t.response, false, (ARRAY['success','success','success','success','success','success','success','success', "
                    "  'success','success','success','success','success','success','success','success','success','tool_error', "
                    "  'quota_exceeded','entitlement_blocked'])[1 + g %% 20], '', true, g %% 5 = 0, g %% 9, 1200 + g %% 800, g %% 3, "
                    "  20 + g %% 400, now() - (%s - g) * interval '89 days' / %s - random() * interval '1 second' "
                    "FROM generate_series(%s, %s) AS g JOIN bench_texts t ON t.i = (g * 7) %% 500",
                    [workspace_id, rows, rows, start, min(rows, start + batch) - 1],
                )
                print(f"  {min(rows, start + batch):,} rows", flush=True)
            return
        now = time.time()
        for start in range(0, rows, batch):
            values = []
            for g in range(start, min(rows, start + batch)):
                _, prompt, text = texts[(g * 7) % 500]
                created = now - (rows - g) * 89 * 86400 / rows - rng.random()
                values.append(
                    (
                        str(uuid.UUID(int=rng.getrandbits(128))), workspace_id, "pam_mkey_bench1234", "retrieve_memory",
                        '{"prompt": "bench"}', prompt + (f" {RARE_WORD}" if g % 10_000 == 0 else ""), "",
                        '{"content": [{"type": "text", "text": "' + text + '"}], "isError": false}',
                        text, False, outcomes[g % 20], "", True, g % 5 == 0, g % 9, 1200 + g % 800, g % 3,
                        20 + g % 400, time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(created)),
                    )
                )
            cursor.executemany(
                f"INSERT INTO developer_api_requestlog ({columns}) VALUES ({', '.join(['%s'] * 19)})", values
            )
            print(f"  {min(rows, start + batch):,} rows", flush=True)


def _load(options: argparse.Namespace) -> None:
    """A workspace `bench` with `options.rows` log rows and its usage roll-up."""
    from django.db import connection

    from developer_api.usage import usage_rebuild
    from memory.services import workspace_create

    workspace = workspace_create(slug="bench", admin_email="admin@bench.example", admin_password="pw-123456789", plan_name="unlimited")
    started = time.perf_counter()
    _fill(workspace.pk, options.rows, options.seed)
    print(f"filled {options.rows:,} rows in {time.perf_counter() - started:.0f} s", flush=True)
    started = time.perf_counter()
    usage_rebuild(workspace_ids=[workspace.pk])
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE developer_api_requestlog")  # index-only scans need the visibility map
            cursor.execute("SELECT pg_size_pretty(pg_total_relation_size('developer_api_requestlog'))")
            print(f"request log on disk: {cursor.fetchone()[0]}")
    print(f"roll-up rebuilt and analysed in {time.perf_counter() - started:.0f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--keep", action="store_true", help="keep the PostgreSQL database")
    parser.add_argument("--database", help="measure this kept PostgreSQL database (no fill)")
    options = parser.parse_args()

    admin_url = os.environ.get("DATABASE_URL", "")
    if options.database:
        url, dropped = urlunsplit(urlsplit(admin_url)._replace(path=f"/{options.database}")), None
    else:
        url, dropped = _database()
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("PAM_DATA_DIR", tempfile.mkdtemp())
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pam.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    try:
        call_command("migrate", verbosity=0)
        if options.database:
            from django.core.cache import cache

            cache.clear()  # a search's first call counts in full, as on a fresh server
        else:
            _load(options)

        client = Client(HTTP_HOST="127.0.0.1")
        token = client.post(
            "/v1/auth/token", {"email": "admin@bench.example", "password": "pw-123456789"}, content_type="application/json"
        ).json()["access"]
        auth = {"Authorization": f"Bearer {token}"}
        first = client.get("/v1/dev/mcp-requests?limit=10", headers=auth).json()
        cursor_url = f"/v1/dev/mcp-requests?limit=10&cursor={quote(first['next_cursor'])}"
        deep = client.get("/v1/dev/mcp-requests?limit=100&page=50", headers=auth).json()["next_cursor"]
        cases = {
            "readiness (baseline)": "/v1/dev/readiness",
            "usage days=30": "/v1/dev/mcp-usage-stats?days=30",
            "usage days=90": "/v1/dev/mcp-usage-stats?days=90",
            "list page 1 (+ count)": "/v1/dev/mcp-requests?limit=10",
            "list cursor page 2": cursor_url,
            "list cursor at row 5,000": f"/v1/dev/mcp-requests?limit=10&cursor={quote(deep)}",
            "q rare word (+ count)": f"/v1/dev/mcp-requests?limit=10&q={RARE_WORD}",
            "q two words (+ count)": "/v1/dev/mcp-requests?limit=10&q=zanzibarquokka%20meridian",
            "q common word (+ count)": "/v1/dev/mcp-requests?limit=10&q=meridian",
        }
        print(f"\n{'operation':28} {'first ms':>9} {'median ms':>10} {'min ms':>8} {'× baseline':>11}  rows={options.rows:,} db={connection.vendor}")
        baseline = None
        for name, path in cases.items():
            times = []
            for _ in range(options.repeat):
                t0 = time.perf_counter()
                response = client.get(path, headers=auth)
                times.append((time.perf_counter() - t0) * 1000)
                assert response.status_code == 200, (path, response.content[:200])
            median = statistics.median(times)
            baseline = baseline or median
            extra = ""
            body = response.json()
            if "total_count" in body:
                extra = f"  total_count={body['total_count']:,}"
            print(f"{name:28} {times[0]:9.1f} {median:10.1f} {min(times):8.1f} {median / baseline:11.1f}{extra}", flush=True)
    finally:
        if dropped and not options.keep:
            from django.db import connections

            connections.close_all()
            import psycopg

            with psycopg.connect(admin_url, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{dropped}" WITH (FORCE)')


if __name__ == "__main__":
    main()
