"""Markdown into statements (memory/pipelines/extract.py): how a document's lines become facts."""

from __future__ import annotations

from memory.pipelines.extract import statements


def texts(markdown: str) -> list[str]:
    return [s.text for s in statements("Excursion SOP", markdown)]


def test_a_hard_wrapped_list_item_is_one_statement_not_one_per_line() -> None:
    found = texts(
        "# Excursion SOP\n\n## Steps\n\n"
        "3. The customer's named contact must be informed by phone within 15 minutes of the alarm,\n"
        "   whether or not the excursion has ended by then.\n"
        "4. For pharmaceutical stock at the Daventry Pharma Store,\n"
        "   the on-call QA pharmacist is informed immediately, before the customer call.\n"
    )

    assert found == [
        "The customer's named contact must be informed by phone within 15 minutes of the alarm, "
        "whether or not the excursion has ended by then.",
        "For pharmaceutical stock at the Daventry Pharma Store, the on-call QA pharmacist is "
        "informed immediately, before the customer call.",
    ]


def test_a_lazy_continuation_line_joins_its_item_and_a_blank_line_ends_it() -> None:
    found = texts(
        "- Stock goes on QA hold until the customer\n"
        "releases it in writing.\n"
        "\n"
        "The shift lead logs every excursion in Frostline the same day.\n"
    )

    assert found == [
        "Stock goes on QA hold until the customer releases it in writing.",
        "The shift lead logs every excursion in Frostline the same day.",
    ]


def test_a_heading_a_table_or_a_code_fence_after_an_item_is_not_part_of_it() -> None:
    found = texts(
        "- Chill chambers run between +2 and +8 degrees\n"
        "## Ranges\n"
        "- Frozen chambers run at -18 degrees or colder\n"
        "| Regime | Range |\n|---|---|\n| Deep frozen | -25 °C or colder |\n"
        "- Deep frozen chambers are checked hourly\n"
        "```\nalarm --test\n```\n"
    )

    assert found == [
        "Chill chambers run between +2 and +8 degrees",
        "Frozen chambers run at -18 degrees or colder",
        "Regime: Deep frozen; Range: -25 °C or colder",
        "Ranges: Deep frozen chambers are checked hourly",
    ]


def test_a_nested_list_item_keeps_the_item_it_sits_under_as_its_parent() -> None:
    found = statements(
        "Org Chart",
        "# Org Chart\n\n## Finance\n\n"
        "- **Lauren Fiske** — Billing Manager. Reports to Priya Raghunathan.\n"
        "\t- Omar Haddad — Billing Analyst\n"
        "    - Ines Moreau — Credit Controller\n"
        "      - Theo Marsh — Billing Intern\n"
        "- **Rachel Kim** — Senior Account Manager.\n"
        "## People\n\n"
        "  - Nicole Tran — HR Generalist\n",
    )

    assert [(s.text.removeprefix("Finance: "), s.parent) for s in found] == [
        ("Lauren Fiske — Billing Manager. Reports to Priya Raghunathan.", ""),
        ("Omar Haddad — Billing Analyst", "Lauren Fiske — Billing Manager. Reports to Priya Raghunathan."),
        # A tab is as deep as four spaces: beside Omar, not under him.
        ("Ines Moreau — Credit Controller", "Lauren Fiske — Billing Manager. Reports to Priya Raghunathan."),
        ("Theo Marsh — Billing Intern", "Ines Moreau — Credit Controller"),
        ("Rachel Kim — Senior Account Manager.", ""),
        # A heading ends the list: an indented first item is under nothing.
        ("People: Nicole Tran — HR Generalist", ""),
    ]
