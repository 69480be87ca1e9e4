"""Entities and the relationships we can read reliably, from statements, without a model.

Patterns, not guesses: a person is a capitalised name that is the subject or object of a role
phrase ("X is the CFO", "reports to Y", "account owner is Z"); teams are "<Name> team";
projects are "Project <Name>"; organisations are client documents' subjects and "<Name> is a
... company/customer/client". Once known, an entity is linked to every statement that names
it. Entity keys are normalised labels, so mentions from different sources merge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from memory.engine.records import MANAGER_COLUMNS, cells
from memory.engine.text import CAPITALS, NAME_TITLES, SMALLS

# A name's word: "Nadia", "Okonkwo-Reid", "McKellar", "O'Brien".
NAME = rf"(?:O')?[{CAPITALS}][{SMALLS}]+(?:[{CAPITALS}][{SMALLS}]+)?(?:[-'][{CAPITALS}][{SMALLS}]+)*"
PERSON = rf"({NAME}(?:\s+(?:van|de|der|da|di|del|le|la)\s+)?(?:\s+{NAME}){{1,2}})"
HONORIFIC = rf"(?:(?:{NAME_TITLES})\.?\s+)?"  # before a name, not part of it
POSTNOMINALS = r"(?:\s+[A-Z][A-Za-z]*[A-Z][A-Za-z]*)*"  # after it: "Niamh Doyle RVN", "Anjali Rao DipECVDI"
_ROLE_SUBJECT = re.compile(
    rf"^{PERSON}\s+(?:is|was|has been|became|remains|will be)\s+(?:now\s+)?(?:the|our|a|an)\s+([^,.;]+?)(?:\s+and\s+|[,.;]|$)"
)
# "X reports to Y", also with X's title in brackets between ("Dr. Seán Kinsella (Veterinary
# Surgeon) reports to Dr. Orla Comerford").
_REPORTS = re.compile(
    rf"{PERSON}{POSTNOMINALS}\s+(?:\([^)]*\)\s+)?(?:now\s+)?reports?\s+(?:directly\s+)?to\s+{HONORIFIC}{PERSON}"
)
# An org chart's line: a name (after the headings a list item carries), then after a dash or a
# comma a title, and whom the person reports to anywhere after ("Nadia Kowalczyk, Site
# Manager, Sheffield Cross-Dock — reports to Fenella Graystock"; "Operations (under the COO):
# Paul Okafor — Inventory Control Lead"; "Marcus Oyelaran — Chief Operating Officer (COO).
# Reports to Dana Whitfield."). Not after a colon alone: "Name: text" is a chat message.
_LISTED = re.compile(
    rf"^(?:[^:—–]{{1,60}}:\s+){{0,2}}{HONORIFIC}{PERSON}{POSTNOMINALS}(?:\s*\([^)]*\))?\s*(?:—|–| - |,)\s*"
    r"([A-Z][^;,(—–]*?)(?=\s*(?:[;,(—–]|\.\s|\.$| - |$))(.*)$"
)
_REPORTS_TO = re.compile(rf"\b[Rr]eports?\s+(?:directly\s+)?to\s+{HONORIFIC}{PERSON}")
LISTED_TITLE_WORDS = 8  # a longer clause after the name is a sentence, not a title
# A record of a person (a staff directory's row, an org chart's table): the column holding the
# name, and those holding the title, the team and the manager. Any other column named by a job
# ("account_manager", "site_lead", "owner") holding a whole name holds a person too.
_NAME_COLUMNS = {"name", "full name", "person", "employee", "staff member"}
_TITLE_COLUMNS = {"title", "role", "role title", "job title", "position"}
_TEAM_COLUMNS = {"team", "department"}
_A_NAME = re.compile(rf"{HONORIFIC}{PERSON}{POSTNOMINALS}")
_REPORTS_PRONOUN = re.compile(rf"\b(?:he|she|they)\s+(?:now\s+)?reports?\s+(?:directly\s+)?to\s+{PERSON}")
_AND_REPORTS = re.compile(rf"\band\s+(?:now\s+)?reports?\s+(?:directly\s+)?to\s+(?:the\s+\w+\s+)?{PERSON}")
_LEADS_TEAM = re.compile(rf"{PERSON}\s+(?:leads|heads|manages|runs)\s+the\s+((?:[A-Z][\w&]*\s?)+?)\s+team")
_MEMBER = re.compile(rf"{PERSON}\s+(?:is|works)\s+(?:a|an|on|in)\s+(?:[a-z]+\s+){{0,3}}(?:on|in|of)\s+the\s+((?:[A-Z][\w&]*\s?)+?)\s+team")
_TEAM = re.compile(r"\b(?:the\s+)?((?:[A-Z][\w&]*\s){1,3})team\b")
_PROJECT = re.compile(r"\bProject\s+([A-Z][a-z]+)\b")
_OWNED_BY_TEAM = re.compile(r"\bProject\s+([A-Z][a-z]+)\s+is\s+owned\s+by\s+the\s+((?:[A-Z][\w&]*\s?)+?)\s+team")
_TEAM_OWNS = re.compile(r"\bthe\s+((?:[A-Z][\w&]*\s?)+?)\s+team\s+owns\s+Project\s+([A-Z][a-z]+)")
_DRI = re.compile(rf"{PERSON}\s+is\s+(?:now\s+)?the\s+DRI\s+for\s+Project\s+([A-Z][a-z]+)")
_ACCOUNT_OWNER = re.compile(rf"{PERSON}\s+is\s+the\s+(?:\w+\s+)?account\s+owner\s+for\s+((?:[A-Z][\w&']*\s?)+)")
_ACCOUNT_OWNER_OF = re.compile(rf"((?:[A-Z][\w&']*\s?)+?)(?:'s)?\s+account\s+owner\s+is\s+(?:now\s+)?{PERSON}")
_CLIENT = re.compile(
    r"^((?:[A-Z][\w&']*\s?){1,4}?)\s+(?:is|has been)\s+(?:a|an)\s+(?:[\w-]+\s+){0,6}?"
    r"(?:company|customer|client|group|chain|operator|manufacturer|utility|firm|network|provider|practice)\b"
)
# A role that names a kind of organisation ("a retail company") makes its subject an
# organisation, not a person.
_ORG_WORDS = re.compile(
    r"\b(company|customer|client|group|chain|operator|manufacturer|utility|firm|network|provider|"
    r"practice|vendor|supplier|partner|agency|organi[sz]ation|business|startup)$",
    re.IGNORECASE,
)
# A person's role names a job: "the CFO", "Head of Data", "a Senior Customer Success Manager".
_JOB_TITLE = re.compile(
    r"\b(ceo|cto|cfo|coo|cmo|ciso|vp|svp|evp|president|founder|co-founder|head|lead|leader|"
    r"manager|director|engineer|developer|analyst|designer|officer|controller|specialist|"
    r"coordinator|architect|scientist|dri|owner|member|recruiter|representative|consultant|"
    r"intern|administrator|counsel|sponsor|partner|chair|secretary|accountant|researcher|"
    r"strategist|advisor|adviser|executive|associate|assistant|principal|champion|buyer|supervisor|"
    r"planner|scheduler|broker|generalist|technician|electrician|mechanic|installer|inspector|"
    r"pharmacist|nurse|surgeon|clerk|receptionist|dispatcher|driver|bookkeeper|apprentice)s?\b",
    re.IGNORECASE,
)
_DECIDED_BY = re.compile(rf"\b((?:ADR|RFC|DEC)-?\d+)\s+was\s+(?:decided|approved)\s+by\s+(?:the\s+)?{PERSON}")
_DECIDED = re.compile(rf"{PERSON}\s+(?:decided|approved|chose|signed off)")
_NOT_NAMES = {
    "The", "This", "That", "Our", "Each", "Every", "All", "Phase", "Project", "Head", "Team",
    "Client", "Customer", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
    "Sunday", "January", "February", "March", "April", "May", "June", "July", "August",
    "September", "October", "November", "December", "Enterprise", "Pro", "Sev", "Q1", "Q2",
    "Q3", "Q4", "In", "On", "At", "If", "When", "After", "Before", "New", "Status", "Owner",
}
_TEAM_STOP = {"The", "A", "An", "Each", "Every", "Our", "This", "That", "Its", "Their", "Whole"}


def normalise(label: str) -> str:
    return re.sub(r"\s+", " ", label.strip().lower())


@dataclass
class EntityFound:
    label: str
    type: str
    properties: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.type}:{normalise(self.label)}"


@dataclass
class RelationFound:
    subject: EntityFound
    type: str
    target: EntityFound
    properties: dict[str, Any] = field(default_factory=dict)


def _person(name: str) -> EntityFound | None:
    name = name.strip()
    first = name.split()[0]
    if first in _NOT_NAMES or any(part in _NOT_NAMES for part in name.split()[1:2]):
        return None
    return EntityFound(name, "person")


def _team(name: str) -> EntityFound | None:
    words = [w for w in name.split() if w]
    while words and words[0] in _TEAM_STOP:
        words = words[1:]
    if not words or len(" ".join(words)) < 2:
        return None
    return EntityFound(" ".join(words) + " team", "team")


def _org(name: str) -> EntityFound | None:
    name = name.strip().removesuffix("'s").strip()
    if not name or name.split()[0] in _NOT_NAMES:
        return None
    return EntityFound(name, "organization")


def _named(value: str) -> EntityFound | None:
    """The person a whole value names ("Dr. Siobhán Kehoe MVB" -> Siobhán Kehoe); not a role
    written in capitals ("Chief Executive", "Board of Directors")."""
    match = _A_NAME.fullmatch(value.strip())
    if match is None or _JOB_TITLE.search(match.group(1)) or _ORG_WORDS.search(match.group(1)):
        return None
    return _person(match.group(1))


def _title(clause: str) -> str | None:
    """The job title a clause is, or None: a short phrase naming a job, not an organisation."""
    clause = clause.strip()
    if len(clause.split()) > LISTED_TITLE_WORDS or _ORG_WORDS.search(clause) or not _JOB_TITLE.search(clause):
        return None
    return clause


def _record_people(row: dict[str, str]) -> tuple[list[EntityFound], list[RelationFound]]:
    """The people a record names: the person a staff directory's row is about, with title and
    team, and whom they report to; and anyone a job-named column holds."""
    columns = {name.lower().replace("_", " ").strip(): value for name, value in row.items()}
    people: list[EntityFound] = []
    relations: list[RelationFound] = []
    subject = next((_named(v) for c, v in columns.items() if c in _NAME_COLUMNS), None)
    if subject is not None:
        # The column says it is a title: any job, "Job Scheduler" as much as "Site Manager".
        title = next((v for c, v in columns.items() if c in _TITLE_COLUMNS), "")
        if title and len(title.split()) <= LISTED_TITLE_WORDS:
            subject.properties["role"] = title
            team = next((v for c, v in columns.items() if c in _TEAM_COLUMNS), None)
            if team:
                subject.properties["team"] = team
            people.append(subject)
        else:
            subject = None  # a name column alone may name a customer or a product
    for column, value in columns.items():
        if column in _NAME_COLUMNS or not (column in MANAGER_COLUMNS or _JOB_TITLE.search(column)):
            continue
        person = _named(value)
        if person is None:
            continue
        people.append(person)
        if subject is not None and column in MANAGER_COLUMNS and person.key != subject.key:
            relations.append(RelationFound(subject, "reports_to", person))
    return people, relations


def _listed(statement: str, parent: str = "") -> tuple[list[EntityFound], list[RelationFound]]:
    """The person an org chart's line is about, with title, and whom they report to: whom the
    line names, else the person of the org chart line it is nested under (`parent`)."""
    match = _LISTED.match(statement)
    if match is None:
        return [], []
    person, title = _person(match.group(1)), _title(match.group(2))
    if person is None or title is None:
        return [], []
    person.properties["role"] = title
    manager = _REPORTS_TO.search(match.group(3))
    target = _person(manager.group(1)) if manager else None
    if target is None and parent:
        above = _listed(parent)[0]
        target = EntityFound(above[0].label, "person") if above else None
    if target is None or target.key == person.key:
        return [person], []
    return [person, target], [RelationFound(person, "reports_to", target)]


def extract(
    statement: str, *, client_document: bool = False, parent: str = ""
) -> tuple[list[EntityFound], list[RelationFound]]:
    """Entities named by one statement and the relationships it states; `parent` is the list
    item the statement is nested under, if any (`extract.Statement.parent`)."""
    entities: list[EntityFound] = []
    relations: list[RelationFound] = []

    def keep(entity: EntityFound | None) -> EntityFound | None:
        if entity is not None:
            entities.append(entity)
        return entity

    row = cells(statement)
    people, reported = _record_people(row) if row else _listed(statement, parent)
    for found in people:
        keep(found)
    relations += reported

    role = _ROLE_SUBJECT.match(statement)
    if role:
        person = _person(role.group(1))
        title = role.group(2).strip()
        if (
            person
            and len(title.split()) <= 8
            and not title.lower().startswith(("list", "quarterly", "single"))
            and not _ORG_WORDS.search(title)
            and _JOB_TITLE.search(title)
        ):
            person.properties["role"] = title
            keep(person)
    for match in _REPORTS.finditer(statement):
        a, b = _person(match.group(1)), _person(match.group(2))
        if a and b:
            keep(a), keep(b)
            relations.append(RelationFound(a, "reports_to", b))
    subject_person = entities[0] if role and entities and entities[0].type == "person" else None
    if subject_person is not None:
        for match in _AND_REPORTS.finditer(statement):
            b = _person(match.group(1))
            if b and b.label != subject_person.label:
                keep(b)
                relations.append(RelationFound(subject_person, "reports_to", b))
    if role and entities:
        for match in _REPORTS_PRONOUN.finditer(statement):
            b = _person(match.group(1))
            if b:
                keep(b)
                relations.append(RelationFound(entities[0], "reports_to", b))
    for match in _LEADS_TEAM.finditer(statement):
        person, team = _person(match.group(1)), _team(match.group(2))
        if person and team:
            keep(person), keep(team)
            team.properties["lead"] = person.label
            relations.append(RelationFound(person, "leads", team))
    for match in _MEMBER.finditer(statement):
        person, team = _person(match.group(1)), _team(match.group(2))
        if person and team:
            keep(person), keep(team)
            relations.append(RelationFound(person, "member_of", team))
    for match in _PROJECT.finditer(statement):
        keep(EntityFound(f"Project {match.group(1)}", "project"))
    # "Project X is owned by the T team" and "the T team owns Project X": (team, project) groups.
    for pattern, team_group, project_group in ((_OWNED_BY_TEAM, 2, 1), (_TEAM_OWNS, 1, 2)):
        for match in pattern.finditer(statement):
            team = _team(match.group(team_group))
            if team:
                project = EntityFound(f"Project {match.group(project_group)}", "project", {"owner_team": team.label})
                keep(team), keep(project)
                relations.append(RelationFound(team, "owns", project))
    for match in _DRI.finditer(statement):
        person = _person(match.group(1))
        if person:
            project = EntityFound(f"Project {match.group(2)}", "project", {"dri": person.label})
            keep(person), keep(project)
            relations.append(RelationFound(person, "owns", project, {"as": "DRI"}))
    for match in _ACCOUNT_OWNER.finditer(statement):
        person, org = _person(match.group(1)), _org(match.group(2))
        if person and org:
            org.properties["account_owner"] = person.label
            org.properties["relationship_to_company"] = "client"
            keep(person), keep(org)
            relations.append(RelationFound(person, "owns", org, {"as": "account owner"}))
    for match in _ACCOUNT_OWNER_OF.finditer(statement):
        org, person = _org(match.group(1)), _person(match.group(2))
        if person and org:
            org.properties["account_owner"] = person.label
            org.properties["relationship_to_company"] = "client"
            keep(person), keep(org)
            relations.append(RelationFound(person, "owns", org, {"as": "account owner"}))
    client = _CLIENT.match(statement)
    if client and (client_document or re.search(r"\b(customer|client)\b", statement)):
        org = _org(client.group(1))
        if org:
            org.properties["relationship_to_company"] = "client"
            keep(org)
    for match in _DECIDED_BY.finditer(statement):
        person = _person(match.group(2))
        if person:
            decision = EntityFound(match.group(1).upper(), "other", {"kind": "decision", "decided_by": person.label})
            keep(person), keep(decision)
            relations.append(RelationFound(person, "decided", decision))
    for match in _DECIDED.finditer(statement):
        keep(_person(match.group(1)))
    for match in _TEAM.finditer(statement):
        keep(_team(match.group(1)))
    merged: dict[str, EntityFound] = {}
    for entity in entities:
        if entity.key in merged:
            merged[entity.key].properties.update(entity.properties)
        else:
            merged[entity.key] = entity
    for relation in relations:
        relation.subject = merged.get(relation.subject.key, relation.subject)
        relation.target = merged.get(relation.target.key, relation.target)
    return list(merged.values()), relations


MAX_LABEL_WORDS = 5
WORDS = re.compile(r"[\w&'-]+")


def mentions(statement: str, known: dict[str, str]) -> set[str]:
    """Keys of known entities (normalised label → key) that the statement names.

    Looks up every run of 1 to 5 words of the statement in the label table, so the cost
    grows with the statement, not with the number of entities."""
    words = [w.lower() for w in WORDS.findall(statement)]
    found = set()
    for start in range(len(words)):
        for length in range(1, MAX_LABEL_WORDS + 1):
            if start + length > len(words):
                break
            key = known.get(" ".join(words[start : start + length]))
            if key is not None:
                found.add(key)
    return found


def statement_entities(
    statement: str, *, author: str, client_document: bool, own_name: str, parent: str = ""
) -> tuple[list[EntityFound], list[RelationFound]]:
    """What one stored statement adds to the graph: `extract`, plus the rules that need its
    document and workspace. The author of a message is a person (the same key as in documents,
    so one person in Slack, mail and documents is one entity); a client organisation is
    `client_of` the workspace's own organisation (`own_name`)."""
    entities, relations = extract(statement, client_document=client_document, parent=parent)
    author = author.strip()
    if author and "@" not in author and len(author.split()) >= 2:
        entities.append(EntityFound(author, "person"))
    for entity in list(entities):
        if entity.type == "organization" and entity.properties.get("relationship_to_company") == "client":
            own = EntityFound(own_name, "organization", {"relationship_to_company": "self"})
            entities.append(own)
            relations.append(RelationFound(entity, "client_of", own))
    return entities, relations
