"""A small business-vocabulary thesaurus for paraphrased questions.

Groups of words that company documents and the people asking about them use for the same
thing. A query term matches a fact holding any word of its group, at a discount (0.8), so a
question with no word in common with its answer ("money back" → "refund") can still find it.
Kept deliberately small and general: domain words, not a company's own names.
"""

from __future__ import annotations

from functools import lru_cache

from memory.engine.text import stem

SYNONYM_WEIGHT = 0.8

_GROUPS = [
    "refund reimburse repay money-back chargeback",
    "customer client account buyer",
    "price pricing cost costs fee fees charge charged charges rate bill billed billing",
    "salary pay compensation wage wages",
    "boss manager supervisor head lead leads leader heads report reports",
    "owner owns owned responsible accountable dri in-charge driving drives running runs",
    "employee staff worker personnel headcount people",
    "hire hiring recruit recruiting recruitment",
    "outage incident downtime disruption",
    "bug defect issue",
    "deadline due launch ship release go-live",
    "blocker blocked obstacle impediment",
    "revenue income sales arr mrr",
    "budget spend spending",
    "policy rule rules guideline guidelines",
    "meeting sync standup",
    "decide decided decision chose chosen choose",
    "approve approval approves sign-off signoff",
    "expense expenses receipt reimbursement",
    "vacation holiday pto leave time-off",
    "onboarding orientation induction",
    "contract agreement deal",
    "team squad group department",
    "goal objective okr target priority priorities",
    "ceo founder chief",
    "cto chief-technology",
    "acronym abbreviation term jargon meaning mean means stand stands",
    "quarter q1 q2 q3 q4",
    "renewal renew renews",
    "churn cancel cancellation leave",
    "security access permission permissions",
    "support helpdesk service",
    "unhappy dissatisfied complaint complain",
    "discount discounts knock-off markdown reduction",
    "overdue unpaid outstanding arrears",
    "escalate escalated escalation pass-up",
    "salesperson salespeople consultant consultants rep reps",
    "fast quick speed latency",
    "vendor supplier provider",
    "warehouse depot site sites store facility",
    "equipment kit gear apparatus",
    "remote home wfh",
    "office based location located",
    "laptop computer machine hardware device",
    "footwear boots shoes",
    "sick ill illness unwell",
    "doctor medical physician gp",
    "note certificate",
    "hotel accommodation lodging",
    "abroad overseas foreign",
    "stipend allowance bonus premium",
    "pager on-call",
    "arrive arrives delivered shipped",
    "gather meet meets assemble all-hands town-hall",
    "firm company organisation organization business",
    "monthly month",
    "weekly week",
    "annual annually yearly year",
    "approve okay ok authorise authorize",
    "start join joins joined first-day",
    # Abbreviations a table's column names and units use ("sq_ft", "ext", "on_time_pct").
    "square sq",
    "feet foot ft",
    "extension ext",
    "percent percentage pct",
    "quantity qty",
    "average avg",
    "department dept",
    "telephone phone tel",
    "hour hours hr hrs",
    "pound pounds lb lbs",
    "mile miles mi",
]


def _build() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for group in _GROUPS:
        stems = {stem(word.replace("-", " ").split()[0]) for word in group.split()}
        for member in stems:
            table.setdefault(member, set()).update(stems - {member})
    return {key: frozenset(values) for key, values in table.items()}


@lru_cache(maxsize=1)
def _table() -> dict[str, frozenset[str]]:
    return _build()


def synonyms(term: str) -> frozenset[str]:
    return _table().get(term, frozenset())
