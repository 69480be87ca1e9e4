"""The Memory page's search (SPEC §2.3, §2.4, §6): the admin's query runs through the same
reads the agents' tools call, so the page shows what an agent would get.

- `memory_retrieve` (what `retrieve_memory` calls): readiness, triage, the published index and
  the live agent memories, and the markdown report an agent reads;
- `memory_recall` (what `recall` calls): the tolerant search over agent memories and facts.

It is a browse, not a tool call: nothing is logged in the Request Log and no quota is used.
The admin reads as the REST memory API's user does (`user:<id>`, the buckets and teams on the
user row): other credentials' `private` memories stay hidden, as SPEC §2.4 says.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from django.conf import settings
from django.utils.safestring import SafeString

from memory.agent_memory.drafts import text_check
from memory.agent_memory.selectors import Item, memory_recall
from memory.engine.live import Viewer
from memory.engine.report import render_report
from memory.engine.types import Retrieval
from memory.mcp.xmemo import MAX_QUERY_CHARS
from memory.models import User, Workspace
from memory.selectors import memory_retrieve
from pam.dashboard.markdown import render_markdown
from pam.errors import PamError

RECALL_LIMIT = 10
USER_LABEL = "user:{id}"  # the credential label of a signed-in user, as /v1/memory names it


def viewer_of(user: User) -> Viewer:
    """The signed-in admin as a reader of agent memory (the REST memory API's viewer)."""
    return Viewer(
        label=USER_LABEL.format(id=user.pk),
        buckets=frozenset(user.memory_buckets or []),
        teams=frozenset(user.memory_teams or []),
    )


def query_check(raw: str) -> str:
    """The query as the tools accept it; ValueError names what is wrong."""
    return text_check(raw.strip(), max_chars=MAX_QUERY_CHARS)


@dataclass
class BrowseSearch:
    query: str
    retrieval: Retrieval | None = None
    report: SafeString | None = None  # the retrieve_memory report, rendered
    retrieve_problem: str = ""  # why retrieve_memory would not answer (readiness, timeout)
    recalled: list[Item] = field(default_factory=list)
    recall_problem: str = ""


def memory_search_run(*, workspace: Workspace, viewer: Viewer, query: str) -> BrowseSearch:
    found = BrowseSearch(query=query)
    deadline = time.monotonic() + settings.PAM_RETRIEVAL_TIMEOUT_S
    try:
        answer = memory_retrieve(workspace=workspace, prompt=query, history=[], deadline=deadline, viewer=viewer)
    except PamError as exc:  # not ready yet, a source being deleted, the deadline
        found.retrieve_problem = exc.message
    else:
        found.retrieval = answer.retrieval
        found.report = render_markdown(render_report(query, answer.retrieval))
    try:
        found.recalled = memory_recall(workspace=workspace, viewer=viewer, query=query, limit=RECALL_LIMIT)
    except PamError as exc:
        found.recall_problem = exc.message
    return found
