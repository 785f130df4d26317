"""The model path in every reply format, end to end, for an elementwise op and a row reduction: a scripted server
replies with our one-file contract, an operator project (as NPUKernelBench's models write it), MultiKernelBench's six
strings or its direct-launch JSON; the reply is parsed, screened, built on the simulator, verified against the
function and cached, and a broken one is sent back naming its file and line the way the model wrote them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import torch

from fake_openai import FakeOpenAIServer, reply
from torch_ascendgen import AscendGenWarning, ascend_kernel, pipeline
from torch_ascendgen.capture import capture
from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.generators.builtin.generator import generate_builtin
from torch_ascendgen.records import split_files

pytestmark = pytest.mark.pipeline
PROJECTS = Path(__file__).resolve().parent.parent / "op_projects"
ROWS, COLS = 8, 100


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x + y


def scaled_softmax(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x * 0.5, dim=-1)


def project(name: str) -> dict[str, str]:
    root = PROJECTS / name
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def add_project() -> dict[str, str]:
    return project("add_custom")


def softmax_project(default_scale: bool) -> dict[str, str]:
    """tests/op_projects/scaled_softmax_custom; its scale attribute has no default unless ``default_scale``."""
    files = project("scaled_softmax_custom")
    if default_scale:
        host = "op_host/scaled_softmax_custom.cpp"
        files[host] = files[host].replace('this->Attr("scale").AttrType(REQUIRED).Float();',
                                          'this->Attr("scale").AttrType(OPTIONAL).Float(0.5);')
    return files


def op_project_reply(files: dict[str, str]) -> str:
    """The three files as NPUKernelBench's models write them: a heading with the path, then a ```cpp block."""
    return "Here is the operator project.\n\n" + "\n".join(f"### {path}\n```cpp\n{text}```\n"
                                                          for path, text in files.items())


def multikernelbench_reply(files: dict[str, str], op_type: str, attrs: str, bind_call: str, model_call: str) -> str:
    """MultiKernelBench's six strings in one ```python block."""
    name = next(p for p in files if p.startswith("op_kernel/"))[len("op_kernel/"):-len(".cpp")]
    unary = "softmax" in name

    def tensors(*names: str) -> str:
        return json.dumps([{"name": n, "param_type": "required", "format": ["ND"], "type": ["float"]} for n in names])

    inputs, output = (tensors("x"), tensors("y")) if unary else (tensors("x", "y"), tensors("z"))
    strings = {
        "project_json_src": f'[{{"op": "{op_type}", "language": "cpp", "input_desc": {inputs}, '
                            f'"output_desc": {output}, "attr": [{attrs}]}}]',
        "host_tiling_src": files[f"op_host/{name}_tiling.h"],
        "host_operator_src": files[f"op_host/{name}.cpp"],
        "kernel_src": files[f"op_kernel/{name}.cpp"],
        "python_bind_src": ("#include <torch/extension.h>\n#include \"pytorch_npu_helper.hpp\"\n"
                            f"at::Tensor {name}_impl_npu({bind_call[0]}) {{\n"
                            "    at::Tensor result = at::empty_like(x);\n"
                            f"    EXEC_NPU_CMD(aclnn{op_type}, {bind_call[1]}, result);\n    return result;\n}}\n\n"
                            "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
                            f'    m.def("{name}", &{name}_impl_npu, "{op_type}");\n}}\n'),
        "model_src": ("import torch\nimport torch_npu\nimport custom_ops_lib\n\nclass ModelNew(torch.nn.Module):\n"
                      "    def __init__(self):\n        super().__init__()\n\n"
                      f"    def forward(self, *args):\n        return custom_ops_lib.{model_call}\n"),
    }
    for text in strings.values():
        assert '"""' not in text and "\\" not in text
    body = "\n".join(f'{key} = """\n{text}"""\n' for key, text in strings.items())
    return f"```python\n{body}```\n"


def no_baseline(*args, **kwargs):
    raise UnsupportedFunction("this test leaves the built-in generator out")


def decorated(function, server, cache: Path):
    return ascend_kernel(function, generator="llm", llm_url=server.url, variants=1, cache_dir=cache, progress=False)


@pytest.fixture(autouse=True)
def llm_settings(monkeypatch):
    for name, value in {"SAMPLES": "1", "ROUNDS": "1", "OPT_ROUNDS": "0", "TIMEOUT": "5", "RETRIES": "1"}.items():
        monkeypatch.setenv(f"TORCH_ASCENDGEN_LLM_{name}", value)
    monkeypatch.delenv("TORCH_ASCENDGEN_LLM_URL", raising=False)
    monkeypatch.delenv("TORCH_ASCENDGEN_LLM_MODEL", raising=False)


def broken(files: dict[str, str]) -> tuple[dict[str, str], int]:
    """The project with a ';' missing in its kernel, and the line of the statement after it (where g++ says)."""
    path = next(p for p in files if p.startswith("op_kernel/"))
    lines = files[path].splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if re.search(r"\bExp\(|\bAdd\(", line))
    lines[index] = lines[index].replace(");", ")", 1)
    return {**files, path: "".join(lines)}, index + 1


CASES = {
    ("op_project", "add"): (add, lambda files: op_project_reply(files), add_project),
    ("op_project", "softmax"): (scaled_softmax, lambda files: op_project_reply(files),
                                lambda: softmax_project(default_scale=True)),
    ("multikernelbench", "add"): (add, lambda files: multikernelbench_reply(
        files, "AddCustom", "", ("const at::Tensor& x, const at::Tensor& y", "x, y"), "add_custom(args[0], args[1])"),
                                  add_project),
    ("multikernelbench", "softmax"): (scaled_softmax, lambda files: multikernelbench_reply(
        files, "ScaledSoftmaxCustom", '{"name": "scale", "param_type": "required", "type": "float"}',
        ("const at::Tensor& x, double scale", "x, scale"), "scaled_softmax_custom(args[0], 0.5)"),
                                      lambda: softmax_project(default_scale=False)),
}


@pytest.mark.parametrize("fmt, op", list(CASES), ids=[f"{f}-{o}" for f, o in CASES])
def test_a_reply_in_the_format_is_repaired_verified_cached_and_run(tmp_path, monkeypatch, fmt, op):
    monkeypatch.setenv("TORCH_ASCENDGEN_LLM_FORMAT", fmt)
    # no built-in baseline to beat: the model's kernel is the one cached, whatever the cost model makes of it
    monkeypatch.setattr(pipeline, "_builtin_search", no_baseline)
    function, write, files_of = CASES[(fmt, op)]
    good = files_of()
    bad, line = broken(good)
    inputs = [torch.randn(ROWS, COLS) for _ in range(2 if op == "add" else 1)]
    with FakeOpenAIServer([reply(write(bad)), reply(write(good))]) as server:
        fast = decorated(function, server, tmp_path)
        torch.testing.assert_close(fast(*inputs), function(*inputs))
    (kernel,) = fast.kernels()
    assert split_files(kernel.entry.source) is not None and kernel.entry.meta["generator"] == "llm:fake-kernel-model"
    first_user = server.requests[0]["messages"][1]["content"]
    feedback = server.requests[1]["messages"][-1]["content"]
    assert "does not compile" in feedback
    kernel_name = "kernel_src line" if fmt == "multikernelbench" else "op_kernel/"
    assert kernel_name in feedback, feedback
    # the string's own line: its text starts after the newline that follows the opening quotes
    where = rf"kernel_src line ({line + 1}|{line + 2})\b" if fmt == "multikernelbench" else \
        rf"op_kernel/\w+\.cpp:({line}|{line + 1}):"
    assert re.search(where, feedback), feedback
    assert ("project_json_src" in first_user) == (fmt == "multikernelbench")

    with FakeOpenAIServer([]) as silent:  # cached: a new decorator needs no model and runs the same kernel
        again = decorated(function, silent, tmp_path)
        other = [torch.randn(3, 37) for _ in inputs]
        torch.testing.assert_close(again(*other), function(*other))
        assert again.kernels()[0].entry.key == kernel.entry.key and not silent.requests


TAIL_WRONG = ("DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};\n"
              "            DataCopyPad(zGm",
              "DataCopyExtParams copyParams{1, static_cast<uint32_t>((count - 1) * sizeof(T)), 0, 0, 0};\n"
              "            DataCopyPad(zGm")


def test_a_kernel_right_only_where_sizes_divide_evenly_is_kept_for_those_shapes(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_ASCENDGEN_LLM_FORMAT", "op_project")
    monkeypatch.setattr(pipeline, "_builtin_search", no_baseline)
    files = add_project()
    kernel_path = "op_kernel/add_custom.cpp"
    assert TAIL_WRONG[0] in files[kernel_path]
    partial = {**files, kernel_path: files[kernel_path].replace(*TAIL_WRONG)}
    x, y = torch.randn(ROWS, COLS), torch.randn(ROWS, COLS)  # 800 elements: whole 32-byte blocks, no tail
    with FakeOpenAIServer([reply(op_project_reply(partial)), reply("I cannot improve it.")]) as server:
        fast = decorated(add, server, tmp_path)
        torch.testing.assert_close(fast(x, y), x + y)
    feedback = server.requests[1]["messages"][-1]["content"]
    assert "correct at input shapes [[800], [800]]" in feedback and "at input shapes [[7], [7]]" in feedback
    (kernel,) = fast.kernels()
    assert kernel.entry.meta["verified_shapes"] == [[[800], [800]]]
    assert [[7], [7]] in [shapes for shapes, _ in kernel.entry.meta["failed_shapes"]]
    tail_x, tail_y = torch.randn(7), torch.randn(7)
    with pytest.warns(AscendGenWarning, match="failed verification at shapes"):
        torch.testing.assert_close(fast(tail_x, tail_y), tail_x + tail_y)  # the original runs there


SUBMISSIONS = Path(__file__).resolve().parent.parent / "direct_launch"


def direct_launch_reply(name: str, edit: tuple[str, str, str] | None = None) -> tuple[str, int]:
    """tests/direct_launch/<name> as MultiKernelBench's direct-launch JSON (``edit``: path, old, new), and the line
    of the edit."""
    root = SUBMISSIONS / name
    files = {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}
    line = 0
    if edit:
        path, old, new = edit
        assert old in files[path], old
        line = next(i for i, text in enumerate(files[path].splitlines(), 1) if old in text)
        files[path] = files[path].replace(old, new, 1)
    sources = [{"path": path, "content": text} for path, text in files.items()]
    return json.dumps({"name": name, "author": "test", "problem": name, "format_version": "0.1",
                       "entry": {"model": "ModelNew.py::ModelNew"}, "build": {"type": "ascendc_direct_launch"},
                       "sources": sources}, indent=2), line


def row_softmax(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=-1)


# their host code refuses (TORCH_CHECK) sizes that do not divide evenly (add: 2048 elements, softmax: 8 columns):
# each is kept for the shapes it passed at, and a new shape is verified before it runs there
@pytest.mark.parametrize("name, function, inputs, shape, later", [
    ("add_custom", add, 2, (8, 256), (16, 256)), ("row_softmax", row_softmax, 1, (ROWS, 96), (5, 40))],
    ids=["add", "row_softmax"])
def test_a_direct_launch_submission_is_repaired_verified_cached_and_run(tmp_path, monkeypatch, name, function,
                                                                      inputs, shape, later):
    monkeypatch.setenv("TORCH_ASCENDGEN_LLM_FORMAT", "multikernelbench")
    monkeypatch.setattr(pipeline, "_builtin_search", no_baseline)
    kernel_file = next(str(p.relative_to(SUBMISSIONS / name)) for p in sorted((SUBMISSIONS / name).rglob("*.cpp"))
                       if "PYBIND11_MODULE" not in p.read_text())
    text = (SUBMISSIONS / name / kernel_file).read_text()
    statement = next(line.strip() for line in text.splitlines()
                     if line.strip().startswith(("AscendC::Add(", "Exp(")))
    bad, line = direct_launch_reply(name, (kernel_file, statement, statement.rstrip(";")))
    good, _ = direct_launch_reply(name)
    args = [torch.randn(shape) for _ in range(inputs)]
    with FakeOpenAIServer([reply(f"```json\n{bad}\n```"), reply(good)]) as server:
        fast = decorated(function, server, tmp_path)
        torch.testing.assert_close(fast(*args), function(*args))
    feedback = server.requests[1]["messages"][-1]["content"]
    assert "does not compile" in feedback and re.search(rf"{re.escape(kernel_file)}:({line}|{line + 1}):", feedback), \
        feedback
    (kernel,) = fast.kernels()
    assert "direct_launch.json" in split_files(kernel.entry.source)
    with FakeOpenAIServer([]) as silent:  # from the cache, in the sandboxed serving worker, at new shapes too
        again = decorated(function, silent, tmp_path)
        other = [torch.randn(later) for _ in args]
        torch.testing.assert_close(again(*other), function(*other))
        assert not silent.requests


@pytest.mark.parametrize("function, inputs", [(add, 2), (row_softmax, 1)], ids=["add", "row_softmax"])
def test_a_contract_reply_is_repaired_verified_cached_and_run(tmp_path, monkeypatch, function, inputs):
    """Our own one-file contract, the default format, for the same two functions (the built-in kernel as the reply)."""
    monkeypatch.setattr(pipeline, "_builtin_search", no_baseline)
    args = [torch.randn(ROWS, COLS) for _ in range(inputs)]
    good = generate_builtin(capture(function, args), 1)[0].source
    line = next(i for i, text in enumerate(good.splitlines(), 1) if "op.Process();" in text)
    bad = good.replace("op.Process();", "op.Process()", 1)
    with FakeOpenAIServer([reply(f"```cpp\n{bad}```"), reply(f"Fixed:\n```cpp\n{good}```")]) as server:
        fast = decorated(function, server, tmp_path)
        torch.testing.assert_close(fast(*args), function(*args))
    feedback = server.requests[1]["messages"][-1]["content"]
    assert "does not compile" in feedback and re.search(rf"kernel\.cpp:({line}|{line + 1}):", feedback), feedback
    (kernel,) = fast.kernels()
    assert kernel.entry.source == good and kernel.entry.meta["generator"] == "llm:fake-kernel-model"
    with FakeOpenAIServer([]) as silent:
        again = decorated(function, silent, tmp_path)
        other = [torch.randn(5, 33) for _ in args]
        torch.testing.assert_close(again(*other), function(*other))
        assert not silent.requests


REPLIES = Path(__file__).resolve().parent.parent / "model_replies"


def leaky_relu(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.leaky_relu(x, 0.01)


def test_a_kernel_written_the_way_multikernelbench_models_write_them_is_kept_where_sizes_divide(tmp_path, monkeypatch):
    """A reply in the shape MultiKernelBench's models give (a fixed block count, tiles that divide the length, the
    slope passed by ModelNew's default): right at 8 x 2048 (8 blocks x 8 tiles x 2 buffers divide it), wrong at a
    tail, so kept for the traced shape only; the model is told where it failed."""
    monkeypatch.setenv("TORCH_ASCENDGEN_LLM_FORMAT", "multikernelbench")
    monkeypatch.setattr(pipeline, "_builtin_search", no_baseline)
    text = (REPLIES / "leaky_relu_multikernelbench.txt").read_text()
    x = torch.randn(8, 2048)
    with FakeOpenAIServer([reply(text), reply("No further changes.")]) as server:
        fast = decorated(leaky_relu, server, tmp_path)
        torch.testing.assert_close(fast(x), leaky_relu(x))
    (kernel,) = fast.kernels()
    assert kernel.entry.meta["verified_shapes"] == [[[16384]]]
    assert json.loads(split_files(kernel.entry.source)["attrs.json"]) == {"negative_slope": 0.01}
    feedback = server.requests[1]["messages"][-1]["content"]
    assert "correct at input shapes [[16384]]" in feedback and "fails at these shapes" in feedback
    tail = torch.randn(7)
    with pytest.warns(AscendGenWarning, match="failed verification at shapes"):
        torch.testing.assert_close(fast(tail), leaky_relu(tail))
