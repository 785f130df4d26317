"""The package's shape: imports flow one way through its layers, no module imports itself back through
others, and ruff passes. The layers and the rule set are in pyproject.toml ([tool.importlinter],
[tool.ruff]); these tests run the same checks a developer runs by hand (`lint-imports`, `ruff check`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "torch_ascendgen"
LINTED = ("torch_ascendgen", "tests", "benchmarks", "examples", "tools", "setup.py")

pytestmark = pytest.mark.unit


def test_imports_follow_the_layers_contract():
    """`lint-imports` with pyproject.toml's contract; on failure, its list of the imports that break it."""
    done = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()",
         "--no-cache"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "200"})
    report = done.stdout[done.stdout.find("Contracts\n"):] or done.stdout
    assert done.returncode == 0, f"lint-imports failed (layers in pyproject.toml, [tool.importlinter]):\n" \
                                 f"{report}{done.stderr}"


def import_cycles(graph: grimp.ImportGraph, package: str) -> list[list[str]]:
    """Each cycle of imports between modules of ``package`` once, as [a, b, ..., a], shortest first."""
    cycles: dict[frozenset[str], list[str]] = {}
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if _inside(importer, package) and _inside(imported, package) and back:
                cycles.setdefault(frozenset(back), [importer, *back])
    return sorted(cycles.values(), key=lambda cycle: (len(cycle), cycle))


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def describe(graph: grimp.ImportGraph, cycle: list[str]) -> str:
    """A cycle with the line of every import in it."""
    steps = []
    for importer, imported in zip(cycle, cycle[1:]):
        details = graph.get_import_details(importer=importer, imported=imported)
        where = ", ".join(f"l.{d['line_number']}: {d['line_contents'].strip()}" for d in details)
        steps.append(f"    {importer} -> {imported}  ({where})")
    return "\n".join(steps)


def test_no_module_imports_itself_through_others():
    """Every import counts, lazy ones and those under TYPE_CHECKING too: a cycle is a dependency both ways."""
    graph = grimp.build_graph(PACKAGE, cache_dir=None)
    cycles = import_cycles(graph, PACKAGE)
    assert not cycles, f"{len(cycles)} import cycle(s) between {PACKAGE}'s modules; break each one by moving " \
                       f"what both sides need into the lower module:\n" + \
                       "\n\n".join(describe(graph, cycle) for cycle in cycles)


def test_the_cycle_finder_finds_a_cycle():
    graph = grimp.ImportGraph()
    for module in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        graph.add_module(module)
    graph.add_import(importer="pkg.a", imported="pkg.b", line_number=1, line_contents="import pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.c", line_number=2, line_contents="import pkg.c")
    assert import_cycles(graph, "pkg") == []
    graph.add_import(importer="pkg.c", imported="pkg.a", line_number=3, line_contents="import pkg.a")
    assert import_cycles(graph, "pkg") == [["pkg.a", "pkg.b", "pkg.c", "pkg.a"]]
    assert "pkg.c -> pkg.a  (l.3: import pkg.a)" in describe(graph, ["pkg.a", "pkg.b", "pkg.c", "pkg.a"])


def _ruff() -> str | None:
    try:
        from ruff.__main__ import find_ruff_bin
    except ImportError:
        return shutil.which("ruff")
    try:
        return os.fsdecode(find_ruff_bin())
    except FileNotFoundError:
        return shutil.which("ruff")


def test_ruff_passes():
    ruff = _ruff()
    if ruff is None:
        pytest.skip('ruff is not installed (it is in the test extra: pip install -e ".[test]")')
    done = subprocess.run([ruff, "check", "--no-cache", "--output-format", "concise", *LINTED],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"ruff check (rules in pyproject.toml, [tool.ruff]):\n{done.stdout}{done.stderr}"
