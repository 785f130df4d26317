"""Operator projects as the search's candidates: a file bundle (records.join_files) built, run under the kernel
contract through its own TilingFunc, verified, and kept only for the shapes it passed at.

One search per task evaluates every candidate of this file (each search starts one sandboxed child)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from torch_ascendgen.capture import capture
from torch_ascendgen.evaluate.search import search
from torch_ascendgen.evaluate.verify import make_input_sets
from torch_ascendgen.records import Candidate, FailureKind, join_files
from torch_ascendgen.targets.sim.project_kernel import ProjectBuild, project_files
from torch_ascendgen.targets.target import sim_target

pytestmark = pytest.mark.sim
PROJECTS = Path(__file__).resolve().parent.parent / "op_projects"
KERNEL, HOST = "op_kernel/add_custom.cpp", "op_host/add_custom.cpp"
PWNED = Path("/tmp/torch_ascendgen_test_project_host_wrote_this")


def project(name: str, edits: dict[str, tuple[str, str]] | None = None) -> dict[str, str]:
    """The files of tests/op_projects/<name>, each edit (path -> (old, new)) replacing one text."""
    root = PROJECTS / name
    files = {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}
    for path, (old, new) in (edits or {}).items():
        assert old in files[path], f"{old!r} is not in {path}"
        files[path] = files[path].replace(old, new, 1)
    return files


def candidate(files: dict[str, str], label: str) -> Candidate:
    return Candidate(join_files(files), "llm:test", {"case": label})


TAIL_WRONG = ("DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};\n"
              "            DataCopyPad(zGm",
              "DataCopyExtParams copyParams{1, static_cast<uint32_t>((count - 1) * sizeof(T)), 0, 0, 0};\n"
              "            DataCopyPad(zGm")
HOST_WRITES_A_FILE = ("TilingData tiling;", f'TilingData tiling; {{ FILE* f = fopen("{PWNED}", "w"); '
                                            'if (f) { fputs("x", f); fclose(f); } }')
CASES = {
    "good": project("add_custom"),
    "tail_wrong": project("add_custom", {KERNEL: TAIL_WRONG}),
    "host_writes_a_file": project("add_custom", {HOST: HOST_WRITES_A_FILE}),
    "compile_error": project("add_custom", {KERNEL: ("Add(zLocal, xLocal, yLocal, count);",
                                                       "Add(zLocal, xLocal, yLocal, count)")}),
    "three_inputs": project("add_custom", {HOST: (
        'this->Input("y")', 'this->Input("w").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT, '
                            'ge::DT_INT32});\n        this->Input("y")')}),
}
CASES["host_writes_a_file"][HOST] = "#include <cstdio>\n" + CASES["host_writes_a_file"][HOST]


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x + y


@pytest.fixture(scope="module")
def add_records():
    PWNED.unlink(missing_ok=True)
    task = capture(add, [torch.randn(8, 100), torch.randn(8, 100)])
    sets = make_input_sets(task.inputs, task.traced_shapes)
    result = search(task, add, [candidate(files, label) for label, files in CASES.items()], sets, None,
                    sim_target("Ascend910B2"))
    return task, result, {r.candidate.variant["case"]: r for r in result.records}


def test_an_elementwise_project_passes_at_every_shape(add_records):
    task, _, records = add_records
    good = records["good"]
    assert good.ok and not good.failed_shapes, good.failure
    assert isinstance(good.build, ProjectBuild) and good.build.library.is_file()
    shapes = set(good.verdict.passed_shapes)
    assert task.traced_shapes in shapes and ((7,), (7,)) in shapes and ((1003,), (1003,)) in shapes


def test_a_kernel_wrong_at_tails_is_kept_for_the_shapes_it_passed_at(add_records):
    task, result, records = add_records
    partial = records["tail_wrong"]
    assert partial.ok
    assert set(partial.verdict.passed_shapes) == {task.traced_shapes}
    failed = dict(partial.failed_shapes)
    assert ((7,), (7,)) in failed and "differs" in failed[((7,), (7,))]
    assert result.winner is records["good"]  # a kernel right at every shape wins over a partial one


def test_host_code_that_reaches_the_os_is_stopped_by_the_sandbox(add_records):
    _, _, records = add_records
    assert records["host_writes_a_file"].build is not None  # it built and its TilingFunc ran ...
    assert not PWNED.exists()  # ... in the sandboxed child, which may not write outside its folder


def test_a_compile_error_names_the_kernel_file_and_line(add_records):
    _, _, records = add_records
    failed = records["compile_error"]
    assert failed.failure_kind is FailureKind.BUILD
    line = next(i for i, text in enumerate(CASES["compile_error"]["op_kernel/add_custom.cpp"].splitlines(), 1)
                if "Add(zLocal, xLocal, yLocal, count)" in text)
    assert re.search(rf"op_kernel/add_custom\.cpp:({line}|{line + 1}):\d+: error: expected ';'", failed.failure), \
        failed.failure  # the missing ';' is reported where the next statement starts


def test_an_opdef_that_does_not_fit_the_function_is_refused_with_the_fix(add_records):
    _, _, records = add_records
    failed = records["three_inputs"]
    assert failed.failure_kind is FailureKind.BUILD
    assert "declares 3 inputs (x, w, y); the function has 2" in failed.failure


def softmax(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=-1)


def test_a_row_softmax_project_runs_where_its_tiling_accepts_and_declines_elsewhere():
    task = capture(softmax, [torch.randn(8, 96)])
    sets = make_input_sets(task.inputs, task.traced_shapes)
    (record,) = search(task, softmax, [candidate(project("softmax_custom"), "softmax")], sets, None,
                       sim_target("Ascend910B2")).records
    assert record.ok, record.failure
    assert set(record.verdict.passed_shapes) == {((8, 96),)}  # its TilingFunc refuses rows that are not 8-aligned


def test_a_bundle_must_be_an_operator_project():
    with pytest.raises(Exception, match="lacks op_host/add_custom_tiling.h"):
        project_files(join_files({"op_kernel/add_custom.cpp": "x", "op_host/add_custom.cpp": "y"}))
    assert project_files("extern \"C\" void f() {}") is None
