"""The model's reply formats: parsing (operator project, MultiKernelBench strings and JSON, contract), screening part
by part, and failures written back in the model's own naming. No compiler needed."""

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import torch

from torch_ascendgen import config
from torch_ascendgen.capture import capture
from torch_ascendgen.errors import ScreenRejected
from torch_ascendgen.generators.llm import formats, prompts
from torch_ascendgen.generators.llm.formats import DIRECT_LAUNCH_FILE, locate, parse_reply, screen_reply
from torch_ascendgen.targets.soc import get_soc

FILES = prompts.example_files()
TILING, HOST, KERNEL = FILES["op_host/add_custom_tiling.h"], FILES["op_host/add_custom.cpp"], \
    FILES["op_kernel/add_custom.cpp"]
MKB = prompts._example_text("add_custom_multikernelbench.txt")
CONTRACT = """#include "kernel_operator.h"
struct TilingData { uint32_t n; };
extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks,
                                     const int64_t* dims, TilingData* tiling, uint64_t* workspaceBytes) {
    tiling->n = 1; *workspaceBytes = 0; return 1;
}
extern "C" __global__ __aicore__ void ascendgen_kernel(GM_ADDR in0, GM_ADDR out0, GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(t, tiling);
}
"""


def fenced(text: str, language: str = "cpp") -> str:
    return f"```{language}\n{text}```"


def project(tiling_label: str, host_label: str, kernel_label: str) -> str:
    return (f"Here is the operator.\n\n{tiling_label}\n{fenced(TILING)}\n\nNow the host side.\n\n{host_label}\n\n"
            f"{fenced(HOST)}\n\n{kernel_label}\n{fenced(KERNEL)}\n")


BUNDLE_PATHS = ["op_host/add_custom_tiling.h", "op_host/add_custom.cpp", "op_kernel/add_custom.cpp"]


# ---- op_project ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("labels, spelled", [
    (("### op_host/add_custom_tiling.h", "### op_host/add_custom.cpp", "### op_kernel/add_custom.cpp"), BUNDLE_PATHS),
    (("File: add_custom/op_host/add_custom_tiling.h", "**add_custom/op_host/add_custom.cpp**",
      "`add_custom/op_kernel/add_custom.cpp`:"),
     ["add_custom/op_host/add_custom_tiling.h", "add_custom/op_host/add_custom.cpp",
      "add_custom/op_kernel/add_custom.cpp"]),
    (("1. **File: `op_host/add_custom_tiling.h`**", "#### `op_host/add_custom.cpp`",
      "Kernel (op_kernel/add_custom.cpp)"), BUNDLE_PATHS),
], ids=["headings", "project directory, File:, bold, backticks", "numbered bold, prose"])
def test_an_operator_project_is_read_whatever_the_file_banners(labels, spelled):
    parsed = parse_reply(project(*labels), "stop", "op_project")
    assert parsed.format == "op_project" and list(parsed.files) == BUNDLE_PATHS
    assert [parsed.files[p] for p in BUNDLE_PATHS] == [TILING, HOST, KERNEL]
    assert [parsed.names[p] for p in BUNDLE_PATHS] == spelled


def test_paths_in_a_first_comment_line_or_the_fence_or_xml_tags_or_none_at_all():
    first_comment = "\n\n".join(fenced(f"// {p}\n{t}") for p, t in FILES.items())
    assert parse_reply(first_comment, "stop", "op_project").files["op_kernel/add_custom.cpp"].startswith(
        "// op_kernel/add_custom.cpp\n#include")  # the model's lines, at the model's line numbers
    in_fence = "\n\n".join(f"```cpp {p}\n{t}```" for p, t in FILES.items())
    assert list(parse_reply(in_fence, "stop", "op_project").files) == BUNDLE_PATHS
    xml = "\n".join(f"<file path=\"{p}\">\n{t}</file>" for p, t in FILES.items())
    assert parse_reply(xml, "stop", "op_project").files == FILES
    tags = "\n".join(f"<{p}>\n{fenced(t)}\n</{p}>" for p, t in FILES.items())
    assert parse_reply(tags, "stop", "contract").files == FILES
    unlabelled = "\n\n".join(fenced(t) for t in (KERNEL, TILING, HOST))  # recognised by what each holds
    parsed = parse_reply(unlabelled, "stop", "op_project")
    assert parsed.files == FILES and parsed.names == {p: p for p in BUNDLE_PATHS}


def test_a_tiling_header_under_another_name_is_renamed_with_its_include():
    reply = project("### op_host/tiling_data.h", "### op_host/add_custom.cpp", "### op_kernel/add_custom.cpp")
    reply = reply.replace('#include "add_custom_tiling.h"', '#include "tiling_data.h"')
    parsed = parse_reply(reply, "stop", "op_project")
    assert parsed.files["op_host/add_custom_tiling.h"] == TILING
    assert '#include "add_custom_tiling.h"' in parsed.files["op_host/add_custom.cpp"]
    assert parsed.names["op_host/add_custom_tiling.h"] == "op_host/tiling_data.h"


def test_a_fence_closed_right_after_the_code():
    reply = "\n\n".join(f"### {p}\n```cpp\n{t.rstrip()}```" for p, t in FILES.items())
    assert parse_reply(reply, "stop", "op_project").files == FILES


def test_extra_headers_are_kept():
    reply = project("### op_host/add_custom_tiling.h", "### op_host/add_custom.cpp", "### op_kernel/add_custom.cpp")
    reply += "\n### op_kernel/helpers.h\n" + fenced("#pragma once\nconstexpr int HELPER = 1;\n")
    assert "op_kernel/helpers.h" in parse_reply(reply, "stop", "op_project").files


@pytest.mark.parametrize("reply, reason", [
    (project("### op_host/add_custom_tiling.h", "### op_host/add_custom.cpp", "Some prose.").replace(
        fenced(KERNEL), ""), "lacks op_kernel/add_custom.cpp"),
    (f"### op_kernel/add_custom.cpp\n{fenced(KERNEL)}\n", "lacks op_host/add_custom_tiling.h and "
                                                          "op_host/add_custom.cpp"),
    (project("### op_host/add_custom_tiling.h", "### op_host/add_custom.cpp", "### op_kernel/add_custom.cpp")
     + "\n### op_kernel/add_custom.cpp\n" + fenced(KERNEL + "// changed\n"), "two different blocks for "
                                                                            "op_kernel/add_custom.cpp"),
    (project("### op_host/add_custom_tiling.h", "### op_host/add_custom.cpp", "### op_kernel/add_custom.cpp")
     + f"\n### op_kernel/other.cpp\n{fenced(KERNEL)}", "2 kernel sources"),
    ("### op_host/add_custom_tiling.h\n```cpp\n" + TILING, "unterminated"),
    ("I cannot do that.", "contains no code"),
], ids=["no kernel", "no host", "duplicate", "two kernels", "unterminated", "no code"])
def test_an_incomplete_project_is_rejected_with_what_is_missing(reply, reason):
    with pytest.raises(ScreenRejected, match=reason) as caught:
        parse_reply(reply, "stop", "op_project")
    assert "op_kernel/<op>.cpp" in caught.value.reason or "two different" in caught.value.reason or \
        "2 kernel" in caught.value.reason


def test_two_host_sources_are_rejected():
    reply = project("### op_host/add_custom_tiling.h", "### op_host/add_custom.cpp", "### op_kernel/add_custom.cpp")
    with pytest.raises(ScreenRejected, match=r"2 op_host sources \(op_host/add_custom.cpp, op_host/extra.cpp\)"):
        parse_reply(reply + "\n### op_host/extra.cpp\n" + fenced("int x;\n"), "stop", "op_project")


def test_a_cut_reply_is_rejected_in_its_format():
    whole = project("### op_host/add_custom_tiling.h", "### op_host/add_custom.cpp", "### op_kernel/add_custom.cpp")
    with pytest.raises(ScreenRejected, match="cut off.*op_host/<op>_tiling.h"):
        parse_reply(whole, "length", "op_project")
    with pytest.raises(ScreenRejected, match="cut off.*project_json_src"):
        parse_reply(whole, "length", "multikernelbench")


def test_a_reply_in_another_format_is_read_when_it_is_recognisable():
    contract_reply = "Here:\n" + fenced(CONTRACT)
    for fmt in formats.FORMATS:
        parsed = parse_reply(contract_reply, "stop", fmt)
        assert parsed.format == "contract" and parsed.files is None and parsed.source == CONTRACT
    op_reply = project("### op_host/add_custom_tiling.h", "### op_host/add_custom.cpp", "### op_kernel/add_custom.cpp")
    assert parse_reply(op_reply, "stop", "contract").format == "op_project"
    assert parse_reply(f"```python\n{MKB}```", None, "op_project").format == "multikernelbench"
    with pytest.raises(ValueError, match="unknown reply format"):
        parse_reply(op_reply, "stop", "cuda")


# ---- multikernelbench -------------------------------------------------------------------------------------------

def test_the_six_strings_are_read_into_the_same_project_with_the_attribute_values():
    parsed = parse_reply(f"Sure.\n\n```python\n{MKB}```\n", "stop", "multikernelbench")
    files = parsed.files
    assert parsed.format == "multikernelbench" and list(files) == [*BUNDLE_PATHS, "attrs.json"]
    assert [files[p] for p in BUNDLE_PATHS] == ["\n" + t for t in (TILING, HOST, KERNEL)]  # lines as in the strings
    assert json.loads(files["attrs.json"]) == {"alpha": 0.5}
    assert parsed.names == {"op_host/add_custom_tiling.h": "host_tiling_src", "op_host/add_custom.cpp":
                            "host_operator_src", "op_kernel/add_custom.cpp": "kernel_src",
                            "attrs.json": "python_bind_src/model_src"}


def test_raw_strings_and_a_reply_without_fences():
    raw = MKB.replace('kernel_src = """', 'kernel_src = r"""')
    assert parse_reply(raw, "stop", "multikernelbench").files["op_kernel/add_custom.cpp"] == "\n" + KERNEL


def test_nothing_in_the_python_is_run(tmp_path):
    marker = tmp_path / "ran"
    reply = f"```python\nopen({str(marker)!r}, 'w').write('x')\n{MKB}\nimport os\nos.system('touch {marker}')\n```"
    assert parse_reply(reply, "stop", "multikernelbench").format == "multikernelbench"
    assert not marker.exists()
    computed = MKB.replace('kernel_src = """', 'kernel_src = open("/etc/passwd").read() + """')
    with pytest.raises(ScreenRejected, match="`kernel_src` is not a plain string literal"):
        parse_reply(f"```python\n{computed}```", "stop", "multikernelbench")


@pytest.mark.parametrize("change, reason", [
    (lambda s: s + "\ndef broken(:\n", rf"does not parse \(line {len(MKB.splitlines()) + 2}: "),
    (lambda s: s.replace("kernel_src", "kernel_source"), "does not assign kernel_src"),
    (lambda s: s.replace('"op": "AddCustom",', '"op": "AddCustom"'), r"project_json_src is not valid JSON \(line 5"),
    (lambda s: s.replace('"op": "AddCustom",', ""), "first with \"op\""),
])
def test_a_broken_multikernelbench_reply_says_what_to_fix(change, reason):
    with pytest.raises(ScreenRejected, match=reason):
        parse_reply(f"```python\n{change(MKB)}```", "stop", "multikernelbench")


def _with_binding(bind: str, model: str) -> dict:
    reply = MKB.split("python_bind_src = ")[0] + f'python_bind_src = """{bind}"""\nmodel_src = """{model}"""\n'
    files = parse_reply(f"```python\n{reply}```", "stop", "multikernelbench").files
    return json.loads(files["attrs.json"]) if "attrs.json" in files else {}


@pytest.mark.parametrize("bind, model, values", [
    ("EXEC_NPU_CMD(aclnnAddCustom, x, y, 2.0f, result);", "", {"alpha": 2.0}),
    ("double a = 3; EXEC_NPU_CMD(aclnnAddCustom, x, y, a, result);", "", {"alpha": 3.0}),
    ("at::Tensor f(const at::Tensor& x, const at::Tensor& y, double alpha) {\n"
     "  EXEC_NPU_CMD(aclnnAddCustom, x, y, alpha, result); }\nPYBIND11_MODULE(m, m) { m.def(\"add_it\", &f); }",
     "class ModelNew:\n    def forward(self, x, y):\n        return lib.add_it(x, y, 0.25)\n", {"alpha": 0.25}),
    ("at::Tensor f(const at::Tensor& x, const at::Tensor& y, double alpha) {\n"
     "  EXEC_NPU_CMD(aclnnAddCustom, x, y, alpha, result); }",
     "class ModelNew:\n    def __init__(self, alpha=-1):\n        self.alpha = alpha\n"
     "    def forward(self, x, y):\n        return lib.f(x, y, self.alpha)\n", {"alpha": -1.0}),
    ("at::Tensor f(const at::Tensor& x, const at::Tensor& y, double alpha) {\n"
     "  EXEC_NPU_CMD(aclnnAddCustom, x, y, alpha, result); }",
     "class ModelNew:\n    def forward(self, x, y, alpha):\n        return lib.f(x, y, alpha)\n", {}),
    ("at::Tensor f(const at::Tensor& x, const at::Tensor& y, double alpha) {\n  if (x.numel() > 0) {\n"
     "  EXEC_NPU_CMD(aclnnAddCustom, x, y, alpha, result); } }",
     "class M:\n    def forward(self, x, y):\n        return lib.f(x, y, 4)\n", {"alpha": 4.0}),
    ("EXEC_NPU_CMD(aclnnAddCustom, x, y, result);", "", {}),  # no literal: the OpDef's default applies
])
def test_attribute_values_are_read_when_they_are_literals(bind, model, values):
    assert _with_binding(bind, model) == values


@pytest.mark.parametrize("op_type, name", [("AddCustom", "add_custom"), ("GELUCustom", "gelu_custom"),
                                           ("Conv2dCustom", "conv2d_custom"), ("LeakyReluCustom", "leaky_relu_custom")])
def test_op_types_and_file_names(op_type, name):
    assert formats.snake_case(op_type) == name
    assert formats.pascal_case("leaky_relu_custom") == "LeakyReluCustom"


# ---- the direct-launch JSON ----------------------------------------------------------------------------------

BINDING = '#include <torch/extension.h>\n#include "aclrtlaunch_add_custom.h"\nPYBIND11_MODULE(add_ext, m) {\n}\n'
DIRECT_KERNEL = KERNEL.replace("DTYPE_X", "float")


def direct(sources: list[dict], **build) -> str:
    spec = {"name": "add", "format_version": "0.1", "entry": {"model": "ModelNew.py::ModelNew"},
            "build": {"type": "ascendc_direct_launch", **build}, "sources": sources}
    return json.dumps(spec, indent=2)


SOURCES = [{"path": "ModelNew.py", "content": "import torch\n"}, {"path": "csrc/pybind11.cpp", "content": BINDING},
           {"path": "kernel/add_custom.cpp", "content": DIRECT_KERNEL}]


def test_a_direct_launch_json_is_read_bare_or_fenced():
    for reply in (direct(SOURCES), f"```json\n{direct(SOURCES)}\n```"):
        parsed = parse_reply(reply, "stop", "multikernelbench")
        launch = parsed.direct
        assert parsed.format == "multikernelbench" and launch.module == "add_ext"
        assert launch.kernel_sources == ("kernel/add_custom.cpp",) and launch.binding_sources == ("csrc/pybind11.cpp",)
        assert launch.model_entry == "ModelNew.py::ModelNew"
        files = parsed.files
        described = json.loads(files.pop(DIRECT_LAUNCH_FILE))  # what the target builds and calls
        assert files == launch.files and described == {
            "module": "add_ext", "binding": ["csrc/pybind11.cpp"], "kernels": ["kernel/add_custom.cpp"],
            "model": "ModelNew.py::ModelNew"}
        screen_reply(parsed)
    named = parse_reply(direct(SOURCES, module_name="my_ops"), "stop", "op_project")
    assert named.direct.module == "my_ops"


@pytest.mark.parametrize("sources, build, reason", [
    ([*SOURCES, {"path": "../escape.cpp", "content": ""}], {}, "not a relative path"),
    ([*SOURCES, SOURCES[1]], {}, "appears twice"),
    (SOURCES, {"type": "cmake"}, "must be \"ascendc_direct_launch\""),
    (SOURCES[::2], {}, "no source binds the kernels"),
    (SOURCES[:2], {}, "no Ascend C kernel source"),
    (SOURCES, {"kernel_sources": ["kernel/missing.cpp"]}, "which `sources` does not hold"),
])
def test_a_broken_direct_launch_json_is_rejected(sources, build, reason):
    with pytest.raises(ScreenRejected, match=reason):
        parse_reply(direct(sources, **build), "stop", "multikernelbench")


def test_direct_launch_parts_are_screened_as_kernel_and_host_code():
    leaky = [SOURCES[0], {"path": "csrc/pybind11.cpp", "content": BINDING.replace("{\n}", "{ getenv(\"HOME\"); }")},
             SOURCES[2]]
    with pytest.raises(ScreenRejected, match=r"csrc/pybind11.cpp:3: `getenv` is not allowed"):
        screen_reply(parse_reply(direct(leaky), "stop", "multikernelbench"))
    bad_kernel = [*SOURCES[:2],
                  {"path": "kernel/add_custom.cpp", "content": DIRECT_KERNEL + "void f() { fopen(0, 0); }"}]
    with pytest.raises(ScreenRejected, match="kernel/add_custom.cpp: the kernel calls `fopen`"):
        screen_reply(parse_reply(direct(bad_kernel), "stop", "multikernelbench"))


# ---- screening the parts ------------------------------------------------------------------------------------

def parsed_project(tiling: str = TILING, host: str = HOST, kernel: str = KERNEL) -> formats.Parsed:
    reply = "\n\n".join(f"### {p}\n{fenced(t)}" for p, t in zip(BUNDLE_PATHS, (tiling, host, kernel)))
    return parse_reply(reply, "stop", "op_project")


def test_screen_reasons_name_the_part_as_the_model_did():
    leaky = MKB.replace("    uint32_t coreNum = platform", '    system("ls");\n    uint32_t coreNum = platform')
    with pytest.raises(ScreenRejected, match=r"^host_operator_src line 17: `system` is not allowed"):
        screen_reply(parse_reply(leaky, "stop", "multikernelbench"))
    reply = project("### op_host/add_custom_tiling.h", "### op_host/add_custom.cpp", "### op/op_kernel/add_custom.cpp")
    with pytest.raises(ScreenRejected, match=r"^op/op_kernel/add_custom.cpp: the kernel calls `fopen`"):
        screen_reply(parse_reply(reply.replace("    op.Process();", "    fopen(0, 0);"), "stop", "op_project"))


def test_the_shipped_examples_pass_the_screen():
    screen_reply(parsed_project())
    screen_reply(parse_reply(f"```python\n{MKB}```", "stop", "multikernelbench"))
    screen_reply(parse_reply(fenced(CONTRACT), "stop", "contract"))


@pytest.mark.parametrize("host, reason", [
    (HOST.replace("    uint32_t coreNum", '    system("ls");\n    uint32_t coreNum'),
     r"op_host/add_custom.cpp:16: `system` is not allowed in host code"),
    (HOST.replace("#include <algorithm>", "#include <fstream>"), r"#include <fstream> is not allowed: include only "
                                                                  "the host API's headers"),
    (HOST + "\n__attribute__((constructor)) static void early() {}\n", "the attribute `constructor` is not allowed"),
    (HOST + '\nstatic void f() { asm("nop"); }\n', "`asm` is not allowed"),
    (HOST + "\nstatic void f() { std::thread t([] {}); }\n", "`thread` is not allowed in host code"),
    (HOST + "\n#if __has_include(\"/etc/passwd\")\n#endif\n", "`__has_include` is not allowed"),
    (HOST.replace("#include <algorithm>", "#include MACRO"), "include headers by name"),
])
def test_host_code_that_reaches_the_os_is_rejected_naming_file_and_line(host, reason):
    with pytest.raises(ScreenRejected, match=reason) as caught:
        screen_reply(parsed_project(host=host))
    assert caught.value.reason.startswith("op_host/add_custom.cpp")


@pytest.mark.parametrize("kernel, reason", [
    (KERNEL.replace("void add_custom(", "void my_add("), "does not define the kernel entry `extern \"C\" __global__ "
                                                        "__aicore__ void add_custom"),
    (KERNEL.replace("    GET_TILING_DATA(tilingData, tiling);\n", "").replace(
        "tilingData.totalLength, tilingData.coreLength, tilingData.tileLength, tilingData.alpha", "0, 0, 0, 0.0f"),
     "must start with `GET_TILING_DATA"),
    (KERNEL + "\nvoid leak() { fopen(\"x\", \"r\"); }\n", "the kernel calls `fopen`"),
    (KERNEL.replace('#include "kernel_operator.h"', '#include "kernel_operator.h"\n#include <cstdio>'),
     "#include <cstdio> is not allowed"),
    (KERNEL.replace('#include "kernel_operator.h"\n', ""), 'must #include "kernel_operator.h"'),
])
def test_a_kernel_part_gets_the_kernel_rules_with_the_ops_own_entry(kernel, reason):
    with pytest.raises(ScreenRejected, match=reason) as caught:
        screen_reply(parsed_project(kernel=kernel))
    assert caught.value.reason.startswith("op_kernel/add_custom.cpp: ")


def test_members_named_like_os_calls_are_the_projects_own():
    tiling = TILING.replace("TILING_DATA_FIELD_DEF(float, alpha);", "TILING_DATA_FIELD_DEF(float, alpha);\n"
                            "  TILING_DATA_FIELD_DEF(uint32_t, read);")
    screen_reply(parsed_project(tiling=tiling, host=HOST.replace("tiling.set_alpha(", "tiling.set_read(1);\n    "
                                                                                      "tiling.set_alpha(")))


def test_a_kernel_may_include_its_tiling_header_and_use_its_names():
    kernel = KERNEL.replace('#include "kernel_operator.h"',
                            '#include "kernel_operator.h"\n#include "add_custom_tiling.h"\n'
                            '#include "kernel_tiling/kernel_tiling.h"')
    kernel = kernel.replace("GET_TILING_DATA(tilingData, tiling);",
                            "GET_TILING_DATA_WITH_STRUCT(AddCustomTilingData, tilingData, tiling);")
    screen_reply(parsed_project(kernel=kernel))


# ---- feedback in the model's naming ---------------------------------------------------------------------------

def test_failures_name_the_file_and_line_as_the_model_wrote_them():
    failure = ("op_kernel/add_custom.cpp:12:5: error: 'Foo' was not declared\n   12 | Foo();\n"
               "op_host/add_custom.cpp:40: TilingFunc returned GRAPH_FAILED\nin op_host/add_custom_tiling.h")
    project_names = parse_reply(project("### add_custom/op_host/add_custom_tiling.h", "File: op_host/add_custom.cpp",
                                        "**add_custom/op_kernel/add_custom.cpp**"), "stop", "op_project").names
    assert locate(failure, project_names) == failure.replace("op_kernel/", "add_custom/op_kernel/").replace(
        "in op_host/", "in add_custom/op_host/")
    mkb_names = parse_reply(MKB, "stop", "multikernelbench").names
    assert locate(failure, mkb_names) == (
        "kernel_src line 12, column 5: error: 'Foo' was not declared\n   12 | Foo();\n"
        "host_operator_src line 40: TilingFunc returned GRAPH_FAILED\nin host_tiling_src")
    assert locate(failure, {p: p for p in BUNDLE_PATHS}) == failure


# ---- the prompts and the setting --------------------------------------------------------------------------------

def task():
    return capture(lambda x, y: torch.add(x, y, alpha=0.25), [torch.randn(6, 40), torch.randn(6, 40)],
                   name="scaled_add")


def test_each_format_has_its_instructions_and_its_example():
    soc = get_soc("Ascend910B2")
    system, user = prompts.first_messages(task(), soc, "", fmt="op_project")
    for text in ("op_host/scaled_add_custom_tiling.h", "op_kernel/scaled_add_custom.cpp", "ScaledAddCustom",
                 "REGISTER_TILING_DATA_CLASS", "GetStorageShape", "ge::DT_FLOAT, ge::DT_FLOAT",
                 'AddConfig("ascend910b")', "default equal to it", "handle tails", "48 vector cores", "DataCopyPad"):
        assert text in system["content"], text
    assert "### op_kernel/add_custom.cpp\n```cpp\n" in user["content"] and "alpha=0.25" in user["content"]
    assert parse_reply(prompts.project_reply(FILES), "stop", "op_project").files == FILES  # the example parses
    system, user = prompts.first_messages(task(), soc, "", fmt="multikernelbench")
    assert "kernel name `scaled_add_custom` (PascalCase: `ScaledAddCustom`)" in user["content"]
    assert MKB in user["content"] and "project_json_src" in system["content"]
    system, user = prompts.first_messages(task(), soc, "// example kernel")
    assert "ascendgen_tiling" in system["content"] and "// example kernel" in user["content"]
    assert prompts.PROMPT_VERSION == "p2"


def test_repair_and_optimise_messages_ask_for_the_same_format():
    assert "one ```cpp block" in prompts.repair_message("x", "build")["content"]
    message = prompts.repair_message("kernel_src line 3: error", "build", "multikernelbench")["content"]
    assert "kernel_src line 3: error" in message and "six strings" in message
    bundle = parsed_project().source
    shown = prompts.optimise_message(bundle, 1000.0, "memory bound", "op_project")["content"]
    assert "### op_kernel/add_custom.cpp" in shown and "each complete in its own ```cpp block" in shown
    shown = prompts.optimise_message(bundle, 1000.0, "memory bound", "multikernelbench")["content"]
    assert 'kernel_src = """' in shown and "```python" in shown
    assert "```cpp\n// best" in prompts.optimise_message("// best", 1.0, "bound", "op_project")["content"]


def test_the_format_setting(monkeypatch):
    assert config.llm_format() == "contract"
    monkeypatch.setenv(config.LLM_FORMAT_ENV, "Op-Project")
    assert config.llm_format() == "op_project"
    monkeypatch.setenv(config.LLM_FORMAT_ENV, "cuda")
    with pytest.raises(ValueError, match="TORCH_ASCENDGEN_LLM_FORMAT='cuda' is not a reply format"):
        config.llm_format()


def test_the_wheel_ships_the_one_shot_examples(tmp_path):
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp_path), str(root)], check=True, capture_output=True)
    names = set(zipfile.ZipFile(next(tmp_path.glob("torch_ascendgen-*.whl"))).namelist())
    examples = root / "torch_ascendgen" / "generators" / "llm" / "examples"
    expected = {f"torch_ascendgen/generators/llm/examples/{p.relative_to(examples).as_posix()}"
                for p in examples.rglob("*") if p.is_file()}
    assert len(expected) == 5 and expected <= names
