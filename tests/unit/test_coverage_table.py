"""docs/simulator_coverage.md: every row that claims an API names at least one test, and every test it names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "docs" / "simulator_coverage.md"
NOT_CLAIMED = ("not yet", "not simulated", "unsupported")


HEADER = ["API group", "API", "simulator", "test"]


def _rows() -> list[tuple[str, list[str]]]:
    """The rows of every table whose header is HEADER (other tables, such as the fidelity suite's, say other
    things)."""
    rows, in_coverage_table = [], False
    for line in TABLE.read_text().splitlines():
        if not line.startswith("|"):
            in_coverage_table = False
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells == HEADER:
            in_coverage_table = True
        elif in_coverage_table and not set(cells[0]) <= set("-: "):
            rows.append((line, cells))
    return rows


def _defined_tests() -> set[str]:
    names = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        names.update(re.findall(r"^\s*def (test_\w+)", path.read_text(), re.MULTILINE))
    return names


def test_the_table_has_rows():
    assert len(_rows()) >= 40


def test_every_claimed_api_names_tests_that_exist():
    defined = _defined_tests()
    problems = []
    for line, cells in _rows():
        claimed = not any(word in (cells[0] + " " + cells[2]).lower() for word in NOT_CLAIMED)
        named = re.findall(r"\btest_\w+", re.sub(r"\S+\.py", "", cells[-1]))
        if claimed and not named:
            problems.append(f"no test named: {line[:120]}")
        problems += [f"{name} does not exist: {line[:80]}" for name in named if name not in defined]
    assert not problems, "\n".join(problems)
