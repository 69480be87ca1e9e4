"""HTTP load on the production stack: MCP `tools/call retrieve_memory` through gunicorn,
PostgreSQL and Redis, driven by wrk.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python bench/http_load.py                          # 100k facts, 4 and 8 connections
    ... bench/http_load.py --connections 4,8,16 --duration 30 --workers 3 --threads 4
    ... bench/http_load.py --profile 300                             # server side of one call, by part

A throwaway PostgreSQL database and data directory get a workspace of `--facts` generated facts
(bench/engine_scale.py's generator) on the `unlimited` plan, a published index and an agent
key. Gunicorn serves `pam.wsgi` (gthread workers by default); the script initializes an MCP
session (`initialize`, then `notifications/initialized`), then wrk POSTs JSON-RPC
`tools/call retrieve_memory` requests with varied prompts and the `Mcp-Session-Id` header, as
an MCP client does, from a Lua script generated into a temporary directory. A JSON-RPC answer
whose tool result is not `"isError": false`, or a non-200, counts as an error. A `ping` run
at the highest connection count gives the floor: HTTP, authentication and the session check,
with no tool.

`--profile N` skips gunicorn and wrk: it sends N calls through Django's test client in one
process and reports the mean milliseconds and database queries of each part of the call
(credential, session, history, readiness, engine, report, request log, key touch), plus a
cProfile listing. The database, Redis keys and data directory are removed at the end.
Targets (retrieval issue): at least 400 calls/s, HTTP p95 <= 60 ms at 100k facts.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_scale import REPO, machine_busy_pct, make_prompts, throwaway_database  # noqa: E402

PROTOCOL = "2025-11-25"


# --- children (Django configured) --------------------------------------------------------------


def setup_child(facts: int) -> None:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from developer_api.keys import api_key_rotate
    from engine_scale import generate_workspace
    from memory.engine.index import index_publish
    from memory.services import workspace_create

    workspace = workspace_create(slug="bench", admin_email="bench@bench.example", admin_password="x" * 12,
                                 plan_name="unlimited")
    started = time.perf_counter()
    counts = generate_workspace(workspace, facts)
    generate_s = time.perf_counter() - started
    started = time.perf_counter()
    version = index_publish(workspace=workspace)
    print(json.dumps({**counts, "generate_s": round(generate_s, 1),
                      "publish_s": round(time.perf_counter() - started, 1), "version": version.version,
                      "workspace_id": workspace.pk, "key": api_key_rotate(workspace=workspace).api_key}))


def _rpc(method: str, params: dict[str, Any] | None, msg_id: int | None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if msg_id is not None:
        message["id"] = msg_id
    if params is not None:
        message["params"] = params
    return message


def profile_child(facts: int, calls: int, key: str) -> None:
    """N calls through Django's test client; mean ms and queries of each part of a call."""
    import cProfile
    import io
    import pstats

    import django

    django.setup()
    from django.db import connection
    from django.test import Client

    import developer_api.services as api_services
    import memory.engine.search as search
    import memory.mcp.sessions as sessions
    import memory.mcp.calls as tool_calls
    import memory.mcp.tool_retrieve_memory as tool
    import memory.selectors as selectors
    import memory.mcp.transport as transport

    parts: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    queries: dict[str, int] = {}
    stack: list[str] = []

    def timed(module: Any, names: str, label: str) -> None:
        """Wrap the first of `names` (space-separated) that `module` has."""
        name = next(n for n in names.split() if hasattr(module, n))
        original = getattr(module, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            stack.append(label)
            started, started_cpu = time.perf_counter(), time.thread_time()
            try:
                return original(*args, **kwargs)
            finally:
                parts.setdefault(label, []).append(time.perf_counter() - started)
                cpu.setdefault(label, []).append(time.thread_time() - started_cpu)
                stack.pop()

        setattr(module, name, wrapper)

    for module, names, label in [
        (transport, "credential_from_header", "credential lookup"),
        (sessions, "session_is_valid", "session check"),
        (sessions, "history_push", "session history (push)"),
        (selectors, "serving_get", "readiness"),
        (selectors, "retrieve", "engine retrieve (total)"),
        (search, "index_for", "engine: index_for (published version)"),
        (search, "_candidates", "engine: BM25 candidates"),
        (search, "_second_hop", "engine: second hop"),
        (search, "_graph", "engine: entities + relationships (DB)"),
        (search, "_documents", "engine: document excerpts (DB)"),
        (tool, "_shape", "report + structured result"),
        (api_services, "request_log_create", "request log insert"),
        (tool_calls, "api_key_touch", "key touch"),
    ]:
        timed(module, names, label)

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        label = stack[-1] if stack else "outside the parts (e.g. health check)"
        queries[label] = queries.get(label, 0) + 1
        return execute(sql, params, many, context)

    client = Client(SERVER_NAME="127.0.0.1")
    headers = {"Authorization": key, "MCP-Protocol-Version": PROTOCOL}
    init = client.post("/v1/mcp/memory", data=json.dumps(_rpc("initialize", {"protocolVersion": PROTOCOL}, 1)),
                       content_type="application/json", headers=headers)
    headers["Mcp-Session-Id"] = init["Mcp-Session-Id"]
    bodies = [json.dumps(_rpc("tools/call", {"name": "retrieve_memory", "arguments": {"prompt": p}}, i))
              for i, p in enumerate(make_prompts(facts, 300), start=2)]

    def call(i: int) -> None:
        response = client.post("/v1/mcp/memory", data=bodies[i % len(bodies)], content_type="application/json",
                               headers=headers)
        assert response.status_code == 200 and response.json()["result"]["isError"] is False, response.content

    for i in range(len(bodies)):  # warm: every worker has opened the index; stems cached
        call(i)
    parts.clear()
    cpu.clear()
    totals, totals_cpu = [], []
    with connection.execute_wrapper(count):
        for i in range(calls):
            started, started_cpu = time.perf_counter(), time.thread_time()
            call(i)
            totals.append(time.perf_counter() - started)
            totals_cpu.append(time.thread_time() - started_cpu)
    report = {
        "calls": calls,
        "database": connection.vendor,
        "redis": bool(os.environ.get("REDIS_URL")),
        "view_ms_mean": round(sum(totals) * 1000 / calls, 2),
        "view_ms_p50": round(sorted(totals)[calls // 2] * 1000, 2),
        "view_cpu_ms_mean": round(sum(totals_cpu) * 1000 / calls, 2),
        "parts_ms_mean": {k: round(sum(v) * 1000 / calls, 3) for k, v in parts.items()},
        "parts_cpu_ms_mean": {k: round(sum(v) * 1000 / calls, 3) for k, v in cpu.items()},
        "queries_per_call": {k: round(v / calls, 2) for k, v in queries.items()},
        "queries_per_call_total": round(sum(queries.values()) / calls, 2),
    }
    profiler = cProfile.Profile()
    profiler.enable()
    for i in range(calls):
        call(i)
    profiler.disable()
    listing = io.StringIO()
    pstats.Stats(profiler, stream=listing).sort_stats("tottime").print_stats(30)
    print(listing.getvalue(), file=sys.stderr)
    print(json.dumps(report))
    if os.environ.get("REDIS_URL"):
        from memory.models import Workspace

        _drop_history(os.environ["REDIS_URL"], Workspace.objects.get(slug="bench").pk, headers["Mcp-Session-Id"])


# --- parent ------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _post(url: str, message: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, data=json.dumps(message).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **headers})
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.status, dict(response.headers), response.read()


LUA = r"""
local bodies = %(bodies)s
local threads = {}
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = %(key)s
wrk.headers["Mcp-Session-Id"] = %(session)s
wrk.headers["MCP-Protocol-Version"] = %(protocol)s

function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

function init(args)
  counter = (tid or 1) * 7919
  tool_errors = 0
  http_errors = 0
end

function request()
  counter = counter + 1
  return wrk.format(nil, nil, nil, bodies[(counter %% #bodies) + 1])
end

function response(status, headers, body)
  if status ~= 200 then
    http_errors = http_errors + 1
  elseif not string.find(body, %(ok)s, 1, true) then
    tool_errors = tool_errors + 1
  end
end

function done(summary, latency, requests)
  local te, he = 0, 0
  for _, t in ipairs(threads) do
    te = te + t:get("tool_errors")
    he = he + t:get("http_errors")
  end
  local e = summary.errors
  io.write(string.format(
    '{"requests": %%d, "duration_s": %%.2f, "calls_per_s": %%.1f, "p50_ms": %%.2f, "p90_ms": %%.2f, ' ..
    '"p95_ms": %%.2f, "p99_ms": %%.2f, "max_ms": %%.2f, "http_errors": %%d, "tool_errors": %%d, ' ..
    '"socket_errors": %%d}\n',
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(95) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000, he, te,
    e.connect + e.read + e.write + e.timeout))
end
"""


def _lua_string(value: str) -> str:
    return json.dumps(value)  # a JSON string literal is a valid Lua string literal for ASCII


def write_script(folder: Path, name: str, bodies: list[str], key: str, session: str, ok: str) -> Path:
    path = folder / f"{name}.lua"
    path.write_text(LUA % {
        "bodies": "{" + ",\n".join(_lua_string(b) for b in bodies) + "}",
        "key": _lua_string(key), "session": _lua_string(session), "protocol": _lua_string(PROTOCOL),
        "ok": _lua_string(ok),
    })
    return path


def wrk(url: str, script: Path, connections: int, duration: int, threads: int) -> dict[str, Any]:
    out = subprocess.run(["wrk", f"-t{min(threads, connections)}", f"-c{connections}", f"-d{duration}s",
                          "--timeout", "10s", "-s", str(script), url], capture_output=True, text=True)
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if not lines:
        return {"failed": out.stdout[-2000:] + out.stderr[-2000:]}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def _worker_rss_mb(master: int) -> list[float]:
    sizes = []
    try:
        children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    except OSError:
        return []
    for pid in children:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    sizes.append(round(int(line.split()[1]) / 1024, 1))
        except OSError:
            pass
    return sizes


def _drop_history(redis_url: str, workspace_id: int, session: str) -> None:
    import redis

    redis.Redis.from_url(redis_url).delete(f"pam:history:{workspace_id}:{session}")


def run(args: argparse.Namespace) -> None:
    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")) or not os.environ.get(
        "REDIS_URL"
    ):
        if not args.profile:
            sys.exit("bench/http_load.py measures the production stack: set DATABASE_URL (PostgreSQL) and REDIS_URL.")
    if not args.profile and shutil.which("wrk") is None:
        sys.exit("wrk is not installed (apt-get install -y wrk)")
    busy = machine_busy_pct()
    data = tempfile.mkdtemp(prefix="pam-http-")
    env = {**os.environ, "PAM_DATA_DIR": data, "DJANGO_SETTINGS_MODULE": "pam.settings", "PYTHONPATH": str(REPO)}
    env.pop("CELERY_BROKER_URL", None)
    server: subprocess.Popen[bytes] | None = None
    setup: dict[str, Any] = {}
    session = ""
    try:
        with throwaway_database(env):
            out = subprocess.run([sys.executable, __file__, "--setup", str(args.facts)], env=env, cwd=REPO,
                                 stdout=subprocess.PIPE, text=True)
            lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
            if out.returncode != 0 or not lines:
                sys.exit("set-up failed")
            setup = json.loads(lines[-1])
            key = setup.pop("key")
            print(json.dumps({"setup": setup, "machine_busy_pct_before": busy,
                              "loadavg_before": os.getloadavg()[0]}), flush=True)
            if args.profile:
                subprocess.run([sys.executable, __file__, "--profile-child", str(args.facts), "--calls",
                                str(args.profile), "--key", key], env=env, cwd=REPO, check=False)
                return
            port = _free_port()
            env["PAM_PUBLIC_BASE_URL"] = f"http://127.0.0.1:{port}"
            command = [sys.executable, "-m", "gunicorn", "pam.wsgi:application", "--bind", f"127.0.0.1:{port}",
                       "--workers", str(args.workers), "--worker-class", args.worker_class,
                       "--log-level", "warning"]
            if args.worker_class == "gthread":
                command += ["--threads", str(args.threads)]
            server = subprocess.Popen(command, cwd=REPO, env=env)
            deadline = time.monotonic() + 60
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                        break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        sys.exit("gunicorn did not start")
                    time.sleep(0.2)
            url = f"http://127.0.0.1:{port}/v1/mcp/memory"
            headers = {"Authorization": key, "MCP-Protocol-Version": PROTOCOL}
            _, answer_headers, _ = _post(url, _rpc("initialize", {"protocolVersion": PROTOCOL}, 1), headers)
            session = answer_headers["Mcp-Session-Id"]
            headers["Mcp-Session-Id"] = session
            _post(url, _rpc("notifications/initialized", None, None), headers)
            prompts = make_prompts(args.facts, args.prompts)
            bodies = [json.dumps(_rpc("tools/call", {"name": "retrieve_memory", "arguments": {"prompt": p}}, i))
                      for i, p in enumerate(prompts, start=2)]
            status, _, body = _post(url, json.loads(bodies[0]), headers)
            assert status == 200 and json.loads(body)["result"]["isError"] is False, body[:500]
            folder = Path(data) / "wrk"
            folder.mkdir()
            script = write_script(folder, "retrieve", bodies, key, session, '"isError": false')
            ping = write_script(folder, "ping", [json.dumps(_rpc("ping", None, 1))], key, session, '"result"')
            wrk(url, script, max(args.connection_counts), 5, args.wrk_threads)  # warm every worker
            results = []
            for connections in args.connection_counts:
                result = {"method": "tools/call retrieve_memory", "connections": connections,
                          **wrk(url, script, connections, args.duration, args.wrk_threads)}
                results.append(result)
                print(json.dumps(result), flush=True)
            floor = {"method": "ping", "connections": max(args.connection_counts),
                     **wrk(url, ping, max(args.connection_counts), min(args.duration, 10), args.wrk_threads)}
            results.append(floor)
            print(json.dumps(floor), flush=True)
            print(json.dumps({"server": {"worker_class": args.worker_class, "workers": args.workers,
                                         "threads": args.threads if args.worker_class == "gthread" else 1,
                                         "worker_rss_mb": _worker_rss_mb(server.pid)},
                              "loadavg_after": os.getloadavg()[0]}), flush=True)
            print()
            print("| method | connections | calls/s | p50 ms | p95 ms | p99 ms | errors |")
            print("|---|---:|---:|---:|---:|---:|---:|")
            for r in results:
                if "failed" in r:
                    print(f"| {r['method']} | {r['connections']} | failed | | | | |")
                    continue
                errors = r["http_errors"] + r["tool_errors"] + r["socket_errors"]
                print(f"| {r['method']} | {r['connections']} | {r['calls_per_s']} | {r['p50_ms']} | "
                      f"{r['p95_ms']} | {r['p99_ms']} | {errors} |")
            server.terminate()
            server.wait(timeout=30)
            server = None
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        if session and os.environ.get("REDIS_URL"):
            _drop_history(os.environ["REDIS_URL"], int(setup.get("workspace_id", 0)), session)
        shutil.rmtree(data, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--connections", default="4,8", help="comma-separated wrk connection counts")
    parser.add_argument("--duration", type=int, default=20, help="seconds per wrk run")
    parser.add_argument("--wrk-threads", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4, help="threads per gthread worker")
    parser.add_argument("--worker-class", default="gthread", choices=["gthread", "sync"])
    parser.add_argument("--prompts", type=int, default=300)
    parser.add_argument("--profile", type=int, default=0, help="profile N calls in-process instead of wrk")
    parser.add_argument("--setup", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--profile-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--calls", type=int, default=300, help=argparse.SUPPRESS)
    parser.add_argument("--key", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.setup:
        setup_child(args.setup)
        return
    if args.profile_child:
        profile_child(args.profile_child, args.calls, args.key)
        return
    args.connection_counts = [int(c) for c in args.connections.split(",")]
    run(args)


if __name__ == "__main__":
    main()
