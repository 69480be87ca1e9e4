"""Retrieval engine at scale: index publish time and size, RSS, and retrieve() latency against a
plain BM25 query, for generated workspaces of 10k, 100k and 1M facts.

    .venv/bin/python bench/engine_scale.py                          # 10,000 / 100,000 / 1,000,000 facts
    .venv/bin/python bench/engine_scale.py --sizes 100000           # one size
    .venv/bin/python bench/engine_scale.py --sizes 10000 --prompts 100
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test .venv/bin/python bench/engine_scale.py

For each size, in a fresh child process on a throwaway data directory and database (embedded
SQLite unless DATABASE_URL is set; then a throwaway PostgreSQL database, dropped at the end):

1. build: company-style facts (people, teams, projects, clients, figures, dates) spread over
   sources, documents and a `Company Context > <Area> > <Topic>` section tree with context
   markdown, entity links and relationships, written directly with bulk_create through the
   models (no pipeline), then `memory.engine.index.index_publish` (timed);
2. serve, in a second fresh process: RSS before and after opening the published index, then
   `memory.engine.search.retrieve(workspace, prompt)` over a few hundred varied prompts, warm
   (one discarded pass first), and the same prompts as one plain BM25 tantivy query (the
   prompt's terms OR-ed on the fact field, top 10, stored fields read) over the same index.

Results are one JSON line per size, then a Markdown summary table. Targets (retrieval issue):
engine p50 <= 10 ms and p95 <= 30 ms at 100k facts; publishing 100k facts <= 60 s.
`generate_workspace()` and `make_prompts()` are shared with bench/http_load.py.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import urlsplit, urlunsplit

REPO = Path(__file__).resolve().parents[1]

# --- vocabulary --------------------------------------------------------------------------------

FIRST = """Ana Ben Chen Dara Eli Fay Gus Hana Ivan Jade Kofi Lena Maya Nils Omar Pia Quinn Rosa Sami
Tara Umar Vera Wes Xena Yuki Zane Aisha Bruno Carla Dmitri Elena Farid Greta Hugo Ines Jonas Kira
Luca Mira Noah Olga Pedro Rhea Soren Talia Ugo Vik Wanda Yara Zoltan Amara Bastian Cleo Diego Esme
Felix Gwen Hiro Ida Jasper Keanu Leila Marco Nadia Oskar Priya Rafael Selma Tomas Una Viktor Willa
Ximena Yusuf Zora Abel Bianca Cyrus Delia Emil Frida Gideon Helga Idris Juno Kasper Lorna Mateo Nova
Otto Paloma Ravi Sanna Teodor Ulla Valentin Wren Yasmin""".split()
LAST = """Ruiz Okafor Wei Singh Novak Osei Lind Ito Petrov Achterberg Oyelaran Park Ortiz Haddad Brennan
Castillo Duarte Eriksen Fontaine Gallagher Hoffmann Iyer Jankowski Kowalski Larsen Moreau Nakamura
Oliveira Pereira Quispe Rahman Sato Tanaka Ueda Varga Weber Xu Yilmaz Zimmermann Abara Bianchi
Chowdhury Delgado Engstrom Ferreira Gonzaga Horvat Ibrahim Jensen Kuznetsov Lombardi Mensah Nieminen
Obi Popescu Quintero Rossi Schmidt Takahashi Usman Vasquez Walsh Yamamoto Zielinski Adeyemi Bakker
Costa Dubois Esposito Fischer Grant Hansen Ivanova Jovanovic Keller Lopez Murphy Nilsen Olsen Patel
Reyes Silva Torres Urban Vogel Wagner Young""".split()
ADJ = """Blue Silver Red Amber Quiet Rapid Golden Northern Iron Crystal Hidden Bright Swift Lunar Solar
Green Copper Polar Scarlet Velvet Violet Granite Coral Emerald Cobalt Ivory Onyx Misty Bold Frozen
Wild Crimson Jade Hollow Stormy Sunny Noble Brave Silent Gentle""".split()
NOUN = """Falcon Heron Harbor Meridian Atlas Beacon Orion Phoenix Summit Aurora Cascade Compass Ember
Horizon Kestrel Lantern Mosaic Nebula Pioneer Quartz Raven Sequoia Tundra Vertex Willow Zephyr
Anchor Bridge Canyon Delta Fjord Glacier Island Juniper Lagoon Magnet Nimbus Oasis Prism Ridge Sparrow
Tide Valley Wolf""".split()
CLIENT_A = """Northwind Contoso Fabrikam Globex Initech Umbrella Hooli Vandelay Stark Wayne Tyrell Soylent
Cyberdyne Wonka Acme Aperture Oscorp Pied Dunder Sterling Massive Gringotts Monarch Nakatomi Virtucon
Zorg Ollivander Blackwell Cromwell Hadley Ashford Pemberton Whitmore Kingsley Redwood Bluefin Silverline
Greenfield Brightwater Oakridge Stonebridge Clearview Westgate Eastfield Highland Lakeside Riverbend
Summitview Harborview Crestline Maplewood Pinecrest Foxglove Larkspur Marigold Thornbury""".split()
CLIENT_B = """Retail Logistics Health Bank Energy Foods Labs Media Insurance Telecom Airlines Pharma Motors
Capital Hotels Systems Analytics Robotics Foundry Shipping Textiles Mining Apparel Studios""".split()
TEAMS = """Platform Engineering|Data Platform|Sales EMEA|Sales North America|Customer Support|Finance|
Security|Site Reliability|Mobile|Web Frontend|Payments|Billing|Growth|Marketing|Legal|People Operations|
Recruiting|Design|Product Analytics|Machine Learning|Infrastructure|Developer Experience|Quality
Assurance|Partnerships|Customer Success|Procurement|IT Operations|Compliance|Research|Solutions
Engineering""".replace("\n", " ").split("|")
TEAMS = [t.strip() for t in TEAMS]
COMPONENTS = """billing service|search API|data warehouse|mobile app|checkout flow|identity service|
notification service|reporting dashboard|payments gateway|recommendation engine|admin console|
public API|event pipeline|customer portal|invoice generator|feature flag service|audit log|
file storage|chat widget|onboarding wizard|pricing engine|email gateway|SSO integration|
analytics SDK|fraud detector|shipping calculator|tax engine|CRM sync|status page|backup system""".replace(
    "\n", " "
).split("|")
COMPONENTS = [c.strip() for c in COMPONENTS]
ROLES = """VP of Engineering|CFO|Head of Sales|Chief of Staff|Engineering Manager|Staff Engineer|Product
Manager|Head of Support|Data Scientist|Security Lead|Finance Director|Head of People|Design Lead|
Account Executive|Solutions Architect""".replace("\n", " ").split("|")
ROLES = [r.strip() for r in ROLES]
CITIES = "Lisbon Berlin Austin Toronto Nairobi Singapore Warsaw Dublin Kyiv Sydney Bangalore Madrid".split()
VENDORS = "Snowflake Datadog Okta Stripe Twilio Zendesk Salesforce Atlassian Cloudflare PagerDuty".split()
TECHS = "Kubernetes PostgreSQL Kafka Rust Go Terraform Redis ClickHouse GraphQL gRPC".split()
ISSUES = """login failures|slow exports|invoice errors|API rate limits|missing webhooks|SSO setup|
data sync delays|mobile crashes|report accuracy|permission errors""".replace("\n", " ").split("|")
ISSUES = [i.strip() for i in ISSUES]
STATUSES = ["on track", "at risk", "blocked", "delayed by two weeks", "ahead of schedule", "paused"]
METRICS = ["churn", "onboarding time", "cloud spend", "ticket backlog", "p95 latency", "time to hire"]
SEGMENTS = ["enterprise", "mid-market", "self-serve", "public sector", "healthcare"]
AREAS = ["Projects", "Relationships", "Financials", "Strategy", "Operations", "People and Teams",
         "Processes", "Decisions", "Meetings", "Glossary"]
HEADINGS = {
    "Projects": ["Owners", "Status", "Budget", "Milestones", "Risks"],
    "Relationships": ["Account", "Contract", "Support", "Contacts"],
    "Financials": ["Revenue", "Budget", "Spend"],
    "Strategy": ["Priorities", "OKRs", "Bets"],
    "Operations": ["Incidents", "SLAs", "Vendors"],
    "People and Teams": ["Leads", "Reporting lines", "Headcount"],
    "Processes": ["Approvals", "On-call", "Expenses"],
    "Decisions": ["Architecture", "Commercial", "Hiring"],
    "Meetings": ["Discussion", "Action items"],
    "Glossary": ["Terms"],
}


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


@dataclass
class Vocabulary:
    people: list[str]
    projects: list[str]
    clients: list[str]
    acronyms: list[tuple[str, str]]
    incidents: list[str]
    teams: list[str] = field(default_factory=lambda: list(TEAMS))

    @classmethod
    def for_size(cls, facts: int, seed: int = 11) -> Vocabulary:
        rng = random.Random(seed)
        people = [f"{f} {last}" for f in FIRST for last in LAST]
        rng.shuffle(people)
        projects = [f"Project {n}" for n in NOUN] + [f"Project {a} {n}" for a in ADJ for n in NOUN]
        rng.shuffle(projects)
        clients = [f"{a} {b}" for a in CLIENT_A for b in CLIENT_B]
        rng.shuffle(clients)
        acronyms: list[tuple[str, str]] = []
        seen: set[str] = set()
        words = NOUN + ADJ + [w.split()[0] for w in COMPONENTS]
        while len(acronyms) < _clamp(facts // 2000, 30, 500):
            parts = rng.sample(words, 3)
            short = "".join(p[0].upper() for p in parts) + rng.choice("KRSTX")
            if short not in seen:
                seen.add(short)
                acronyms.append((short, " ".join(parts) + " " + rng.choice(["Review", "Report", "Score", "Protocol"])))
        return cls(
            people=people[: _clamp(facts // 100, 300, len(people))],
            projects=projects[: _clamp(facts // 800, 60, len(projects))],
            clients=clients[: _clamp(facts // 500, 50, len(clients))],
            acronyms=acronyms,
            incidents=[f"INC-{1000 + i}" for i in range(_clamp(facts // 300, 50, 5000))],
        )


# --- statements --------------------------------------------------------------------------------

# A statement: its text, the labels of the entities it names ((label, type)), and its
# relationships ((subject label, type, target label)).
Statement = tuple[str, list[tuple[str, str]], list[tuple[str, str, str]]]


class Writer:
    """Generates the statements of one document about one subject."""

    def __init__(self, rng: random.Random, vocab: Vocabulary, day: date) -> None:
        self.rng = rng
        self.v = vocab
        self.day = day

    def money(self) -> str:
        return f"${self.rng.randint(5, 990) * 1000:,}"

    def quarter(self) -> str:
        return f"Q{self.rng.randint(1, 4)} {self.rng.randint(2023, 2026)}"

    def when(self) -> str:
        d = self.day + timedelta(days=self.rng.randint(-40, 120))
        return f"{d.day} {d.strftime('%B')} {d.year}"

    def person(self) -> str:
        return self.rng.choice(self.v.people)

    def statement(self, area: str, subject: str) -> Statement:
        r, p = self.rng, self.person
        if area == "Projects":
            team = r.choice(self.v.teams)
            k = r.randrange(8)
            if k == 0:
                return (f"{subject} is owned by the {team} team.", [(subject, "project"), (f"{team} team", "team")],
                        [(f"{team} team", "owns", subject)])
            if k == 1:
                who = p()
                return (f"{who} is the DRI for {subject}.", [(who, "person"), (subject, "project")],
                        [(who, "works_on", subject)])
            if k == 2:
                return (f"Milestone {r.randint(1, 9)} of {subject} is due on {self.when()}.", [(subject, "project")], [])
            if k == 3:
                return (f"{subject} is {r.choice(STATUSES)} because of a delayed {r.choice(VENDORS)} integration.",
                        [(subject, "project")], [])
            if k == 4:
                return (f"The budget for {subject} in {self.quarter()} is {self.money()}.", [(subject, "project")], [])
            if k == 5:
                return (f"{subject} shipped its beta to {r.randint(2, 90)} customers on {self.when()}.",
                        [(subject, "project")], [])
            if k == 6:
                return (f"{subject} depends on the {r.choice(COMPONENTS)} owned by the {team} team.",
                        [(subject, "project"), (f"{team} team", "team")], [])
            return (f"{subject} will move to {r.choice(TECHS)} before {self.quarter()}, said {p()}.",
                    [(subject, "project")], [])
        if area == "Relationships":
            k = r.randrange(6)
            if k == 0:
                return (f"{subject} is a Tier-{r.randint(1, 3)} client with ARR of {self.money()}.",
                        [(subject, "organization")], [])
            if k == 1:
                who = p()
                return (f"{who} is the account owner for {subject}.", [(who, "person"), (subject, "organization")],
                        [(subject, "client_of", who)])
            if k == 2:
                return (f"{subject} renewed its contract for {r.randint(20, 4000)} seats on {self.when()}.",
                        [(subject, "organization")], [])
            if k == 3:
                return (f"{subject} raised {r.randint(2, 80)} support tickets in {self.quarter()}, mostly about "
                        f"{r.choice(ISSUES)}.", [(subject, "organization")], [])
            if k == 4:
                return (f"{subject} signed a {r.randint(1, 5)}-year deal worth {self.money()} in {self.quarter()}.",
                        [(subject, "organization")], [])
            return (f"The main contact at {subject} is {p()}, who asked for a {r.choice(COMPONENTS)} demo.",
                    [(subject, "organization")], [])
        if area == "People and Teams":
            team = subject.removesuffix(" team")
            k = r.randrange(5)
            who = p()
            if k == 0:
                return (f"{who} leads the {team} team.", [(who, "person"), (subject, "team")], [(who, "leads", subject)])
            if k == 1:
                boss = p()
                return (f"{who} reports to {boss}.", [(who, "person"), (boss, "person")], [(who, "reports_to", boss)])
            if k == 2:
                return (f"{who} joined the {team} team as {r.choice(ROLES)} on {self.when()}.",
                        [(who, "person"), (subject, "team")], [(who, "member_of", subject)])
            if k == 3:
                return (f"The {team} team has {r.randint(3, 60)} people based in {r.choice(CITIES)}.",
                        [(subject, "team")], [])
            return (f"{who} is the {r.choice(ROLES)} of the {team} team.", [(who, "person"), (subject, "team")],
                    [(who, "member_of", subject)])
        if area == "Financials":
            k = r.randrange(4)
            if k == 0:
                return (f"Revenue in {self.quarter()} was {self.money()}, up {r.randint(2, 40)}% year over year.", [], [])
            if k == 1:
                return (f"The {subject} budget for {r.randint(2023, 2026)} is {self.money()}.",
                        [(f"{subject} team", "team")], [])
            if k == 2:
                return (f"Cloud spend for the {r.choice(COMPONENTS)} in {self.quarter()} was {self.money()}.", [], [])
            return (f"Gross margin for {r.choice(SEGMENTS)} customers was {r.randint(40, 85)}% in {self.quarter()}.",
                    [], [])
        if area == "Strategy":
            if r.random() < 0.5:
                return (f"Our {r.randint(2024, 2027)} priority is to grow {r.choice(SEGMENTS)} revenue by "
                        f"{r.randint(5, 60)}%.", [], [])
            return (f"The {self.quarter()} OKR for the {subject} team is to reduce {r.choice(METRICS)} by "
                    f"{r.randint(5, 50)}%.", [(f"{subject} team", "team")], [])
        if area == "Operations":
            k = r.randrange(3)
            if k == 0:
                return (f"Incident {r.choice(self.v.incidents)} on {self.when()} took the {subject} down for "
                        f"{r.randint(3, 300)} minutes.", [], [])
            if k == 1:
                return f"The {subject} SLA is {r.choice(['99.5', '99.9', '99.95', '99.99'])}% uptime.", [], []
            return (f"The {subject} runs on {r.choice(TECHS)} and is paged through {r.choice(VENDORS)}.", [], [])
        if area == "Processes":
            k = r.randrange(4)
            if k == 0:
                return f"Refunds above {self.money()} need approval from the {r.choice(ROLES)}.", [], []
            if k == 1:
                who = p()
                return f"Travel expenses above {self.money()} need approval from {who}.", [(who, "person")], []
            if k == 2:
                return (f"On-call engineers for the {subject} must acknowledge pages within {r.randint(5, 30)} "
                        f"minutes.", [], [])
            return f"Access to the {subject} requires a ticket approved by the {r.choice(TEAMS)} team.", [], []
        if area == "Decisions":
            who = p()
            if r.random() < 0.5:
                return (f"On {self.when()} we decided to migrate the {subject} to {r.choice(TECHS)}.", [], [])
            return (f"{who} approved the decision to replace {r.choice(VENDORS)} for the {subject} in "
                    f"{self.quarter()}.", [(who, "person")], [])
        if area == "Meetings":
            who = p()
            if r.random() < 0.5:
                project = r.choice(self.v.projects)
                return (f"In the {self.when()} review, {who} said {project} is {r.choice(STATUSES)}.",
                        [(who, "person"), (project, "project")], [])
            client = r.choice(self.v.clients)
            return (f"{who} will follow up with {client} about {r.choice(ISSUES)} by {self.when()}.",
                    [(who, "person"), (client, "organization")], [])
        short, long = r.choice(self.v.acronyms)
        if r.random() < 0.5:
            return f"{short} means {long}.", [], []
        return f"The {short} ({long}) is prepared every {r.choice(['week', 'month', 'quarter'])} by {p()}.", [], []


def _topic(rng: random.Random, vocab: Vocabulary, area: str) -> tuple[str, str]:
    """(title, subject) of a topic of `area`."""
    if area == "Projects":
        subject = rng.choice(vocab.projects)
        return f"{subject} {rng.choice(['status', 'plan', 'handbook', 'roadmap'])}", subject
    if area == "Relationships":
        subject = rng.choice(vocab.clients)
        return f"Client Profile - {subject}", subject
    if area == "People and Teams":
        team = rng.choice(vocab.teams)
        return f"{team} team", f"{team} team"
    if area in ("Financials", "Strategy"):
        team = rng.choice(vocab.teams)
        return f"{team} {'budget' if area == 'Financials' else 'strategy'} {rng.randint(2023, 2026)}", team
    component = rng.choice(COMPONENTS)
    suffix = {"Operations": "operations", "Processes": "policy", "Decisions": "decisions",
              "Meetings": "review notes", "Glossary": "glossary"}[area]
    return f"{component.capitalize()} {suffix}", component


def _slug(text: str) -> str:
    import re

    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "general"


# --- workspace generation ----------------------------------------------------------------------


def generate_workspace(
    workspace: Any, facts: int, *, seed: int = 11, progress: Callable[[int], None] | None = None
) -> dict[str, int]:
    """Write about `facts` facts into `workspace` with bulk_create; returns row counts.

    Documents hold 10-70 facts (about 40), topics about three documents each, spread over the
    ten areas of SPEC §5; every source gets a completed pipeline run so readiness is ready."""
    from django.db import transaction
    from django.utils import timezone

    from memory.models import Document, Entity, Fact, PipelineRun, Relationship, Section, Source

    rng = random.Random(seed)
    vocab = Vocabulary.for_size(facts, seed)
    now = timezone.now()
    sources = [
        Source.objects.create(workspace=workspace, name=name, kind=kind, location=f"/bench/{kind}",
                              status=Source.Status.READY, last_synced_at=now)
        for name, kind in [("Company drive", "folder"), ("Slack export", "slack"), ("Mailbox", "mbox")]
    ]
    for source in sources:
        PipelineRun.objects.create(workspace=workspace, source=source, status=PipelineRun.Status.COMPLETED,
                                   stage="done", started_at=now, finished_at=now)

    # Entities: every person, project, client and team the statements may name.
    props: dict[str, dict[str, Any]] = {}
    for person in vocab.people:
        props[f"person:{person.lower()}"] = {"role": rng.choice(ROLES)}
    for client in vocab.clients:
        props[f"organization:{client.lower()}"] = {"relationship_to_company": "client",
                                                   "account_owner": rng.choice(vocab.people)}
    labels = ([(p, "person") for p in vocab.people] + [(p, "project") for p in vocab.projects]
              + [(c, "organization") for c in vocab.clients] + [(f"{t} team", "team") for t in vocab.teams])
    Entity.objects.bulk_create(
        [Entity(workspace=workspace, label=label, key=f"{etype}:{label.lower()}", type=etype,
                properties=props.get(f"{etype}:{label.lower()}", {})) for label, etype in labels],
        batch_size=2000,
    )
    entity_ids = {(e.label, e.type): e.pk for e in Entity.objects.filter(workspace=workspace).only("id", "label", "type")}

    areas: dict[str, Section] = {}
    for area in AREAS:
        areas[area] = Section.objects.create(
            workspace=workspace, title=area, tree_path=f"Company Context > {area}",
            file_path=f"company_context/{_slug(area)}/index.md", markdown=f"# {area}\n")
    topics: dict[str, tuple[Section, str, str]] = {}  # tree_path -> (section, area, subject)
    counts = {"facts": 0, "documents": 0, "sections": len(AREAS), "entities": len(entity_ids),
              "entity_links": 0, "relationships": 0}
    markdown: dict[int, list[str]] = {}
    start = date(2023, 1, 1)
    doc_no = 0
    through = Fact.entities.through
    while counts["facts"] < facts:
        with transaction.atomic():
            # One chunk: about 5,000 facts of whole documents.
            docs: list[Document] = []
            rows: list[tuple[int, Section, str, list[Statement], date]] = []
            chunk = 0
            while chunk < 5000 and counts["facts"] + chunk < facts:
                area = rng.choice(AREAS)
                title, subject = _topic(rng, vocab, area)
                tree_path = f"Company Context > {area} > {title}"
                if tree_path not in topics:
                    section = Section.objects.create(
                        workspace=workspace, parent=areas[area], title=title, tree_path=tree_path,
                        file_path=f"company_context/{_slug(area)}/{_slug(title)}.md")
                    topics[tree_path] = (section, area, subject)
                    counts["sections"] += 1
                section = topics[tree_path][0]
                day = start + timedelta(days=rng.randint(0, 1300))
                writer = Writer(rng, vocab, day)
                n = min(rng.randint(10, 70), facts - counts["facts"] - chunk)
                statements = [writer.statement(area, subject) for _ in range(n)]
                source = sources[doc_no % 3]
                doc_no += 1
                docs.append(Document(
                    workspace=workspace, source=source, path=f"{_slug(area)}/{_slug(title)}/{doc_no}.md",
                    title=f"{title} ({day.isoformat()})", content_hash=uuid.uuid4().hex * 2,
                    text="\n".join(s[0] for s in statements), doc_date=day))
                rows.append((len(docs) - 1, section, area, statements, day))
                chunk += n
            Document.objects.bulk_create(docs, batch_size=500)
            fact_objs: list[Fact] = []
            for doc_index, section, area, statements, day in rows:
                doc = docs[doc_index]
                headings = HEADINGS[area]
                for pos, (text, _, _) in enumerate(statements):
                    heading = f"{section.title} > {headings[pos * len(headings) // len(statements)]}"
                    fact_objs.append(Fact(
                        workspace=workspace, source_id=doc.source_id, document_id=doc.pk, section=section,
                        statement=text, heading_path=heading, position=pos, effective_date=day))
                    markdown.setdefault(section.pk, []).append(f"- {text} (source: {doc.path}, {day.isoformat()})")
            Fact.objects.bulk_create(fact_objs, batch_size=2000)
            links = []
            rels = []
            i = 0
            for doc_index, section, area, statements, day in rows:
                doc = docs[doc_index]
                for _, names, relations in statements:
                    fact = fact_objs[i]
                    i += 1
                    for key in dict.fromkeys(names):
                        eid = entity_ids.get(key)
                        if eid is not None:
                            links.append(through(fact_id=fact.pk, entity_id=eid))
                    for subj, rtype, target in relations:
                        s_id = entity_ids.get(next(((lbl, t) for lbl, t in names if lbl == subj), ("", "")))
                        t_id = entity_ids.get(next(((lbl, t) for lbl, t in names if lbl == target), ("", "")))
                        if s_id and t_id:
                            rels.append(Relationship(workspace=workspace, source_id=doc.source_id, fact_id=fact.pk,
                                                     subject_id=s_id, type=rtype, target_id=t_id))
            through.objects.bulk_create(links, batch_size=5000)
            Relationship.objects.bulk_create(rels, batch_size=2000)
            counts["facts"] += len(fact_objs)
            counts["documents"] += len(docs)
            counts["entity_links"] += len(links)
            counts["relationships"] += len(rels)
        if progress:
            progress(counts["facts"])
    # Context markdown per topic (the tree stage's format, abridged), written once at the end.
    sections = []
    for section, _, _ in topics.values():
        lines = markdown.get(section.pk, [])
        section.markdown = "\n".join([f"# {section.title}", "", f"*{section.tree_path}*", "", *lines]) + "\n"
        section.fact_count = len(lines)
        sections.append(section)
    Section.objects.bulk_update(sections, ["markdown", "fact_count"], batch_size=200)
    return counts


# --- prompts -----------------------------------------------------------------------------------


def make_prompts(facts: int, count: int, *, seed: int = 11) -> list[str]:
    """`count` varied prompts about the generated company (a few unanswerable ones)."""
    vocab = Vocabulary.for_size(facts, seed)
    rng = random.Random(seed + 1)
    w = Writer(rng, vocab, date(2025, 6, 1))
    templates: list[Callable[[], str]] = [
        lambda: f"Who owns {rng.choice(vocab.projects)}?",
        lambda: f"Who is the DRI for {rng.choice(vocab.projects)}?",
        lambda: f"What is the budget for {rng.choice(vocab.projects)} in {w.quarter()}?",
        lambda: f"Why is {rng.choice(vocab.projects)} at risk?",
        lambda: f"When is milestone {rng.randint(1, 9)} of {rng.choice(vocab.projects)} due?",
        lambda: f"Who is the account owner for {rng.choice(vocab.clients)}?",
        lambda: f"What is the ARR of {rng.choice(vocab.clients)}?",
        lambda: f"How many seats did {rng.choice(vocab.clients)} renew?",
        lambda: f"What support issues did {rng.choice(vocab.clients)} raise in {w.quarter()}?",
        lambda: f"Who leads the {rng.choice(vocab.teams)} team?",
        lambda: f"Who does {rng.choice(vocab.people)} report to?",
        lambda: f"Which team did {rng.choice(vocab.people)} join, and in what role?",
        lambda: f"How many people does the {rng.choice(vocab.teams)} team have?",
        lambda: f"What was revenue in {w.quarter()}?",
        lambda: f"What is the {rng.choice(vocab.teams)} budget for {rng.randint(2023, 2026)}?",
        lambda: f"Who approves refunds above {w.money()}?",
        lambda: f"What did we decide about the {rng.choice(COMPONENTS)}?",
        lambda: f"What is the SLA of the {rng.choice(COMPONENTS)}?",
        lambda: f"What happened in incident {rng.choice(vocab.incidents)}?",
        lambda: f"What does {rng.choice(vocab.acronyms)[0]} mean?",
        lambda: f"What is the {w.quarter()} OKR for the {rng.choice(vocab.teams)} team?",
        lambda: (f"I'm preparing the quarterly business review with {rng.choice(vocab.clients)}: summarise "
                 "the account owner, ARR, contract renewals and open support issues."),
        lambda: (f"Draft a status update for {rng.choice(vocab.projects)} covering the owner, budget, "
                 "risks and the next milestones."),
        lambda: f"What is our policy on bringing dogs to the {rng.choice(CITIES)} office?",
        lambda: "Who won the company chess tournament in 2019?",
    ]
    return [templates[i % len(templates)]() for i in range(count)]


# --- measurement -------------------------------------------------------------------------------


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def latency(values_s: list[float]) -> dict[str, float]:
    ms = [v * 1000 for v in values_s]
    return {"p50": round(percentile(ms, 0.5), 2), "p95": round(percentile(ms, 0.95), 2),
            "p99": round(percentile(ms, 0.99), 2), "mean": round(statistics.fmean(ms), 2)}


def machine_busy_pct(seconds: float = 2.0) -> float:
    """CPU use of the whole machine over `seconds` (before a run: other people's jobs make
    these shared machines noisy, and figures measured under load are not comparable)."""

    def sample() -> tuple[int, int]:
        values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = values[3] + values[4]
        return sum(values) - idle, sum(values)

    busy0, total0 = sample()
    time.sleep(seconds)
    busy1, total1 = sample()
    return round(100 * (busy1 - busy0) / max(1, total1 - total0), 1)


def dir_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def _setup() -> None:
    import django

    django.setup()


DB_SEARCH_PROMPTS = 100


def _db_search_build() -> float:
    """The in-database alternative to a published index: a GIN full-text index on PostgreSQL,
    an FTS5 table (Porter stemming) on SQLite, over the same facts. Returns seconds."""
    from django.db import connection

    started = time.perf_counter()
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("CREATE INDEX bench_fact_fts ON memory_fact USING gin (to_tsvector('english', statement))")
        else:
            cursor.execute("CREATE VIRTUAL TABLE bench_fts USING fts5(statement, content='memory_fact', "
                           "content_rowid='id', tokenize='porter')")
            cursor.execute("INSERT INTO bench_fts(bench_fts) VALUES ('rebuild')")
    return time.perf_counter() - started


def _db_search(cursor: Any, vendor: str, workspace_id: int, prompt: str) -> list[tuple[Any, ...]]:
    """Top 10 facts for the prompt's words OR-ed, ranked by the database (ts_rank / FTS5 bm25)."""
    import re

    from memory.engine.text import STOP_WORDS

    words = [w for w in dict.fromkeys(re.findall(r"[a-z0-9]+", prompt.lower())) if w not in STOP_WORDS]
    if not words:
        return []
    if vendor == "postgresql":
        cursor.execute(
            "SELECT f.id, f.statement, ts_rank(to_tsvector('english', f.statement), q) AS rank "
            "FROM memory_fact f, to_tsquery('english', %s) q "
            "WHERE f.workspace_id = %s AND to_tsvector('english', f.statement) @@ q ORDER BY rank DESC LIMIT 10",
            [" | ".join(words), workspace_id],
        )
    else:
        cursor.execute(
            "SELECT f.id, f.statement FROM bench_fts JOIN memory_fact f ON f.id = bench_fts.rowid "
            "WHERE bench_fts MATCH %s AND f.workspace_id = %s ORDER BY bench_fts.rank LIMIT 10",
            [" OR ".join(f'"{w}"' for w in words), workspace_id],
        )
    return list(cursor.fetchall())


def build_child(size: int, db_search: bool = True) -> None:
    _setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from memory.engine.index import _version_dir, index_publish
    from memory.services import workspace_create

    workspace = workspace_create(slug="bench", admin_email="bench@bench.example", admin_password="x" * 12,
                                 plan_name="unlimited")
    started = time.perf_counter()
    counts = generate_workspace(workspace, size,
                                progress=lambda n: print(f"generated {n}", file=sys.stderr, flush=True))
    generate_s = time.perf_counter() - started
    rss_before = rss_mb()
    started = time.perf_counter()
    version = index_publish(workspace=workspace)
    publish_s = time.perf_counter() - started
    db_index_s = _db_search_build() if db_search else None
    print(json.dumps({
        **counts, "generate_s": round(generate_s, 1), "publish_s": round(publish_s, 2),
        "db_fulltext_index_s": round(db_index_s, 1) if db_index_s is not None else None,
        "publish_facts_per_s": round(version.fact_count / publish_s),
        "indexed_facts": version.fact_count, "indexed_sections": version.section_count,
        "index_mb": round(dir_mb(_version_dir(workspace.pk, version.version)), 1),
        "build_rss_before_publish_mb": round(rss_before, 1),
        "build_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }))


def _bm25(index: Any, prompt: str) -> list[dict[str, Any]]:
    import tantivy

    from memory.engine.text import terms

    schema = index.index.schema
    subqueries = [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "terms", t))
                  for t in dict.fromkeys(terms(prompt))]
    if not subqueries:
        return []
    hits = index.searcher.search(tantivy.Query.boolean_query(subqueries), 10).hits
    return [index.searcher.doc(address).to_dict() for _, address in hits]


def serve_child(size: int, prompt_count: int, passes: int, db_search: bool = True) -> None:
    _setup()
    from django.db import connection

    from memory.engine.index import index_for
    from memory.engine.search import retrieve
    from memory.models import Workspace

    workspace = Workspace.objects.select_related("plan").get(slug="bench")
    prompts = make_prompts(size, prompt_count)
    rss_start = rss_mb()
    started = time.perf_counter()
    index = index_for(workspace)
    open_s = time.perf_counter() - started
    assert index is not None
    rss_loaded = rss_mb()

    queries = {"n": 0, "s": 0.0}

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        t = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            queries["n"] += 1
            queries["s"] += time.perf_counter() - t

    for prompt in prompts:  # warm-up pass, discarded
        retrieve(workspace, prompt)
        _bm25(index, prompt)
    engine: list[float] = []
    base: list[float] = []
    facts_returned = 0
    with connection.execute_wrapper(count):
        for _ in range(passes):
            for prompt in prompts:
                t = time.perf_counter()
                result = retrieve(workspace, prompt)
                engine.append(time.perf_counter() - t)
                facts_returned += len(result.facts)
    for _ in range(passes):
        for prompt in prompts:
            t = time.perf_counter()
            _bm25(index, prompt)
            base.append(time.perf_counter() - t)
    database: list[float] = []
    if db_search:
        # The first DB_SEARCH_PROMPTS prompts, one pass: at 1M facts an OR-query ranked by the
        # database takes up to seconds, and the ratio is what matters.
        with connection.cursor() as cursor:
            for prompt in prompts[:10]:  # warm-up, discarded
                _db_search(cursor, connection.vendor, workspace.pk, prompt)
            for prompt in prompts[:DB_SEARCH_PROMPTS]:
                t = time.perf_counter()
                _db_search(cursor, connection.vendor, workspace.pk, prompt)
                database.append(time.perf_counter() - t)
    calls = len(engine)
    e, b = latency(engine), latency(base)
    print(json.dumps({
        "prompts": len(prompts), "timed_calls": calls, "open_index_s": round(open_s, 3),
        "rss_before_index_mb": round(rss_start, 1), "rss_after_index_mb": round(rss_loaded, 1),
        "rss_after_queries_mb": round(rss_mb(), 1),
        "engine_ms": e, "bm25_ms": b,
        "db_fulltext_ms": latency(database) if database else None,
        "ratio_p50": round(e["p50"] / b["p50"], 1) if b["p50"] else None,
        "ratio_p95": round(e["p95"] / b["p95"], 1) if b["p95"] else None,
        "engine_db_queries_per_call": round(queries["n"] / calls, 1),
        "engine_db_ms_per_call": round(queries["s"] * 1000 / calls, 2),
        "facts_per_answer": round(facts_returned / calls, 1),
    }))


# --- parent ------------------------------------------------------------------------------------


def _json_line(out: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode != 0 or not lines:
        return {"failed": (out.stderr or f"exit code {out.returncode}, see stderr")[-3000:]}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


@contextmanager
def throwaway_database(env: dict[str, str]) -> Iterator[str | None]:
    """Point env's DATABASE_URL at a fresh PostgreSQL database (dropped afterwards); SQLite
    otherwise (the file lives in the throwaway PAM_DATA_DIR)."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        env.pop("DATABASE_URL", None)
        yield None
        return
    import psycopg

    name = f"pam_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    env["DATABASE_URL"] = urlunsplit(urlsplit(url)._replace(path=f"/{name}"))
    try:
        yield name
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def run_size(size: int, prompts: int, passes: int, db_search: bool = True) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="pam-bench-") as data:
        env = {**os.environ, "PAM_DATA_DIR": data, "DJANGO_SETTINGS_MODULE": "pam.settings",
               "PYTHONPATH": str(REPO)}
        env.pop("CELERY_BROKER_URL", None)
        env.pop("REDIS_URL", None)  # the engine alone: no cache or session history involved
        with throwaway_database(env):
            result: dict[str, Any] = {"facts_requested": size,
                                      "database": "postgresql" if "DATABASE_URL" in env else "sqlite",
                                      "machine_busy_pct_before": machine_busy_pct(),
                                      "loadavg_before": os.getloadavg()[0]}
            started = time.perf_counter()
            flag = [] if db_search else ["--no-db-search"]
            build = subprocess.run([sys.executable, __file__, "--build", str(size), *flag], env=env, cwd=REPO,
                                   stdout=subprocess.PIPE, text=True)  # progress on stderr
            result["build"] = _json_line(build)
            result["build_wall_s"] = round(time.perf_counter() - started, 1)
            if "failed" not in result["build"]:
                serve = subprocess.run(
                    [sys.executable, __file__, "--serve", str(size), "--prompts", str(prompts),
                     "--passes", str(passes), *flag], env=env, cwd=REPO, capture_output=True, text=True)
                result["serve"] = _json_line(serve)
            result["loadavg_after"] = os.getloadavg()[0]
            return result


def _pair(ms: dict[str, float] | None) -> str:
    return f"{ms['p50']} / {ms['p95']}" if ms else "-"


def summary_table(results: list[dict[str, Any]]) -> str:
    head = ("| facts | generate s | publish s | index MB | RSS after open MB | engine p50 ms | engine p95 ms "
            "| BM25 p50 ms | BM25 p95 ms | ratio p50 | ratio p95 | DB queries/call | DB full-text p50 / p95 ms |")
    lines = [head, "|" + "---:|" * 13]
    for r in results:
        b, s = r.get("build", {}), r.get("serve", {})
        if "failed" in b or "failed" in s or not s:
            lines.append(f"| {r['facts_requested']:,} | failed |" + " |" * 11)
            continue
        lines.append(
            f"| {b['facts']:,} | {b['generate_s']} | {b['publish_s']} | {b['index_mb']} | "
            f"{s['rss_after_index_mb']} | {s['engine_ms']['p50']} | {s['engine_ms']['p95']} | "
            f"{s['bm25_ms']['p50']} | {s['bm25_ms']['p95']} | {s['ratio_p50']} | {s['ratio_p95']} | "
            f"{s['engine_db_queries_per_call']} | {_pair(s.get('db_fulltext_ms'))} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000,1000000", help="comma-separated fact counts")
    parser.add_argument("--prompts", type=int, default=300, help="distinct prompts per size")
    parser.add_argument("--passes", type=int, default=2, help="timed passes over the prompts")
    parser.add_argument("--no-db-search", action="store_true",
                        help="skip the in-database full-text baseline (GIN / FTS5 index build and queries)")
    parser.add_argument("--build", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build:
        build_child(args.build, not args.no_db_search)
        return
    if args.serve:
        serve_child(args.serve, args.prompts, args.passes, not args.no_db_search)
        return
    results = []
    for size in [int(s) for s in args.sizes.split(",")]:
        result = run_size(size, args.prompts, args.passes, not args.no_db_search)
        results.append(result)
        print(json.dumps(result), flush=True)
    print()
    print(summary_table(results))


if __name__ == "__main__":
    main()
