"""MultiKernelBench direct-launch submissions (a JSON of sources: a pybind C++ source, AscendC kernels, ModelNew.py)
built and run on the simulator through the torch extension shim (csrc/ascendc_sim/host/torch_ext).

The submissions in tests/direct_launch are written the way a model answers that prompt: add_custom (float32, a
``<<<>>>`` launcher in the kernel file called from the pybind source, a named module) and row_softmax (float32,
ACLRT_LAUNCH_KERNEL in the pybind source, TORCH_EXTENSION_NAME, a tiling header shared by host and kernel, ModelNew
calling ``self.module.forward``). Each is packed into the JSON as MultiKernelBench's
scripts/agent_project_to_direct_json.py packs a project, read back with read_submission, built once per session.
Variants are the same submission with one line changed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from torch_ascendgen import config
from torch_ascendgen.cli import doctor
from torch_ascendgen.errors import (
    KernelArgumentError,
    KernelBuildError,
    KernelCrashError,
    ScreenRejected,
    SimulatorError,
)
from torch_ascendgen.targets.sim.direct_launch import (
    DirectSubmission,
    build_direct_launch,
    forward_function,
    read_submission,
    run_direct_launch,
    run_direct_launch_many,
)

SUBMISSIONS = Path(__file__).resolve().parent.parent / "direct_launch"
PROTECTIONS, _ = doctor.probe_sandbox()


def pack(name: str) -> str:
    """The submission directory as the direct-launch JSON (ModelNew.py first, then every C++ file)."""
    root = SUBMISSIONS / name
    files = [root / "ModelNew.py", *(p for p in sorted(root.rglob("*")) if p.suffix in (".cpp", ".h"))]
    sources = [{"path": p.relative_to(root).as_posix(), "content": p.read_text()} for p in files]
    return json.dumps({"name": f"ascendc_direct_launch_{name}", "author": "test", "problem": name,
                       "format_version": "0.1", "entry": {"model": "ModelNew.py::ModelNew"},
                       "build": {"type": "ascendc_direct_launch"}, "sources": sources}, indent=2)


def changed(files: dict[str, str], path: str, old: str, new: str) -> dict[str, str]:
    """``files`` with one line of ``path`` changed (the line must be there)."""
    assert old in files[path], old
    return {**files, path: files[path].replace(old, new, 1)}


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.fixture(scope="module")
def add_submission() -> DirectSubmission:
    return read_submission(f"```json\n{pack('add_custom')}\n```")  # fenced, as models often answer


@pytest.fixture(scope="module")
def add_build(add_submission):
    return build_direct_launch(add_submission.files)


@pytest.fixture(scope="module")
def softmax_submission() -> DirectSubmission:
    return read_submission(pack("row_softmax"))


@pytest.fixture(scope="module")
def softmax_build(softmax_submission):
    return build_direct_launch(softmax_submission.files, module_name=softmax_submission.module_name)


# ---- correct submissions ---------------------------------------------------------------------------------


def test_add_runs_and_matches_torch(add_submission, add_build):
    assert (add_build.module_name, add_build.binding, add_build.functions) == ("add_ext", "csrc/pybind11.cpp",
                                                                               ("add_custom",))
    function = forward_function(add_submission.model, add_build.functions)
    assert function == "add_custom"
    x, y = torch.randn(8, 512), torch.randn(8, 512)
    run = run_direct_launch(add_build, function, [x, y])
    assert torch.equal(run.outputs[0], x + y) and run.outputs[0].shape == (8, 512)
    assert [(launch.kernel, launch.block_dim, launch.ok) for launch in run.launches] == [("add_custom", 8, True)]
    assert run.launches[0].estimated_ns > 0 and run.stderr == ""


def test_row_softmax_runs_at_several_shapes_in_one_child(softmax_submission, softmax_build):
    assert softmax_build.module_name == "benchmark_ops"  # TORCH_EXTENSION_NAME, named by nothing else
    function = forward_function(softmax_submission.model, softmax_build.functions)
    assert function == "forward"  # self.module.forward(x)
    cases = [torch.randn(37, 200) * 4, torch.randn(3, 64), torch.randn(16, 1024) * 20]
    runs = run_direct_launch_many(softmax_build, function, [[x] for x in cases])
    for x, run in zip(cases, runs):
        torch.testing.assert_close(run.outputs[0], torch.softmax(x, dim=-1), rtol=1e-5, atol=1e-6)
    assert [run.launches[0].block_dim for run in runs] == [8, 3, 8]  # tails: 37 rows over 8 cores, 3 rows


def test_the_shim_api_a_binding_uses(add_submission):
    """Lambdas, scalar and list parameters, views, factories on either device, host-to-device copies, tuples of
    outputs, dtype queries and printing."""
    probe = ('    m.def("probe", [](const at::Tensor &x, int64_t rows, double scale, bool flag, '
             'std::vector<int64_t> shape) {\n'
             '        at::Tensor v = x.view(shape);\n'
             '        at::Tensor host = at::zeros({2}, at::kFloat);\n'
             '        host.data_ptr<float>()[1] = 7.0f;\n'
             '        printf("%ld %g %d %ld %ld %ld %zu %d %d %d%d\\n", (long)rows, scale, (int)flag, (long)v.dim(), '
             '(long)v.size(-1), (long)v.numel(), v.element_size(), (int)(v.dtype() == torch::kFloat32), '
             '(int)(v.options().dtype(at::kHalf).scalar_type() == at::kHalf), (int)host.is_cpu(), (int)x.is_cpu());\n'
             '        return std::make_tuple(v, at::zeros({rows, 3}, x.options().dtype(at::kInt)), '
             'torch::empty_like(x, at::kHalf), host.to(x.device()));\n'
             '    });\n}\n')
    files = dict(add_submission.files)
    files["csrc/pybind11.cpp"] = files["csrc/pybind11.cpp"].rstrip().removesuffix("}") + probe
    x = torch.randn(4, 6)
    run = run_direct_launch(build_direct_launch(files), "probe", [x, 5, 0.5, True, [3, -1]])
    view, zeros, uninitialised, moved = run.outputs
    assert torch.equal(view, x.view(3, 8)) and torch.equal(zeros, torch.zeros(5, 3, dtype=torch.int32))
    assert uninitialised.dtype == torch.float16 and uninitialised.shape == (4, 6)  # x's device, another dtype
    assert uninitialised.isnan().all()  # fresh device memory is not initialised: the simulator poisons it
    assert torch.equal(moved, torch.tensor([0.0, 7.0]))
    assert run.stdout == "5 0.5 1 2 8 24 4 1 1 10\n" and run.launches == []


def test_a_kernel_given_a_cpu_tensor_is_reported_at_the_launch(add_submission):
    files = changed(add_submission.files, "csrc/pybind11.cpp", "at::Tensor z = at::empty_like(x);",
                    "at::Tensor z = at::empty(x.sizes(), at::kFloat);")  # torch's default device: the CPU
    with pytest.raises(SimulatorError) as raised:
        run_direct_launch(build_direct_launch(files), "add_custom", [torch.randn(8, 256), torch.randn(8, 256)])
    error = raised.value
    assert (error.kind, error.file) == ("host_api_misuse", "kernel/add_custom.cpp")
    assert error.line == line_of(files["kernel/add_custom.cpp"], "add_custom<<<")
    assert "argument 2 is not device memory" in str(error)


# ---- what goes back to the model -----------------------------------------------------------------------------


def test_a_failed_torch_check_names_the_binding_line(add_submission, add_build):
    with pytest.raises(SimulatorError) as raised:
        run_direct_launch(add_build, "add_custom", [torch.randn(100), torch.randn(100)])
    error = raised.value
    assert (error.kind, error.file) == ("host_exception", "csrc/pybind11.cpp")
    assert error.line == line_of(add_submission.files["csrc/pybind11.cpp"], "TORCH_CHECK(totalLength %")
    assert "the element count must be a multiple of 2048" in str(error)


def test_a_kernel_reading_past_its_input_names_the_kernel_line(add_submission):
    files = changed(add_submission.files, "csrc/pybind11.cpp", "totalLength / BLOCK_DIM, TILE_LENGTH",
                    "totalLength / BLOCK_DIM + TILE_LENGTH, TILE_LENGTH")  # each core reads one tile too many
    with pytest.raises(SimulatorError) as raised:
        run_direct_launch(build_direct_launch(files), "add_custom", [torch.randn(8, 512), torch.randn(8, 512)])
    error = raised.value
    kernel = files["kernel/add_custom.cpp"]
    assert (error.kind, error.file) == ("gm_out_of_bounds", "kernel/add_custom.cpp")
    assert error.line in (line_of(kernel, "DataCopy(xLocal, xGm"), line_of(kernel, "DataCopy(yLocal, yGm"))
    assert error.source_line.strip().startswith("AscendC::DataCopy(") and "in kernel add_custom" in str(error)


def test_a_compile_error_names_the_submissions_file_and_line(add_submission):
    files = changed(add_submission.files, "csrc/pybind11.cpp", "at::Tensor z = at::empty_like(x);",
                    "at::Tensor z = at::empty_like(x); undeclared_helper(z);")
    with pytest.raises(KernelBuildError) as raised:
        build_direct_launch(files)
    line = line_of(files["csrc/pybind11.cpp"], "undeclared_helper")
    assert f"csrc/pybind11.cpp:{line}:" in str(raised.value) and "'undeclared_helper' was not declared" in str(
        raised.value)
    assert str(config.cache_dir()) not in str(raised.value)  # no machine paths


def test_calls_that_do_not_fit_the_module_list_what_it_defines(add_build):
    x = torch.randn(8, 512)
    with pytest.raises(KernelArgumentError, match=r"defines no function sub_custom .*add_custom\(Tensor, Tensor\)"):
        run_direct_launch(add_build, "sub_custom", [x, x])
    with pytest.raises(KernelArgumentError, match=r"add_custom\(Tensor, Tensor\): it takes 2 argument\(s\), the call "
                                                  r"passes 1"):
        run_direct_launch(add_build, "add_custom", [x])
    with pytest.raises(KernelArgumentError, match="argument 1 is int, where the function takes Tensor"):
        run_direct_launch(add_build, "add_custom", [x, 3])


def test_host_code_touching_device_memory_faults_as_on_the_npu(add_submission):
    files = changed(add_submission.files, "csrc/pybind11.cpp", "at::Tensor z = at::empty_like(x);",
                    'at::Tensor z = at::empty_like(x); printf("%f\\n", x.data_ptr<float>()[1]);')
    with pytest.raises(KernelCrashError, match="SIGSEGV") as raised:
        run_direct_launch(build_direct_launch(files), "add_custom", [torch.randn(8, 512), torch.randn(8, 512)])
    [diagnostic] = raised.value.diagnostics
    assert diagnostic.message.startswith("host code read or wrote device memory directly: byte 4 of a 16384-byte")



def test_exit_in_the_host_code_ends_the_call_not_the_child(add_submission):
    files = changed(add_submission.files, "csrc/pybind11.cpp", "at::Tensor z = at::empty_like(x);",
                    'at::Tensor z = at::empty_like(x); if (x.numel() == 2048) { printf("bye\\n"); exit(3); }')
    build = build_direct_launch(files)
    with pytest.raises(SimulatorError, match=r"called exit\(3\) during add_custom") as raised:
        run_direct_launch(build, "add_custom", [torch.randn(2048), torch.randn(2048)])
    assert (raised.value.kind, raised.value.stdout) == ("host_exit", "bye\n")  # an answer, not a crash
    x = torch.randn(4096)
    first, second = run_direct_launch_many(build, "add_custom", [[x, x], [x, -x]])  # one child, state reset
    assert torch.equal(first.outputs[0], x + x) and torch.equal(second.outputs[0], torch.zeros(4096))

# ---- reading the reply -------------------------------------------------------------------------------------


def test_reading_the_json_and_modelnew_refuses_what_it_cannot_use(add_submission):
    assert set(add_submission.files) == {"csrc/pybind11.cpp", "kernel/add_custom.cpp"}
    assert "class ModelNew" in add_submission.model
    with pytest.raises(ScreenRejected, match="not a JSON object"):
        read_submission("Here is the kernel: {")
    with pytest.raises(ScreenRejected, match="without '..'"):
        read_submission(json.dumps({"sources": [{"path": "../escape.cpp", "content": ""}]}))
    with pytest.raises(ScreenRejected, match="names a.cpp twice"):
        read_submission(json.dumps({"sources": [{"path": "a.cpp", "content": ""}] * 2}))
    with pytest.raises(ScreenRejected, match=r"calls none of the functions .*\(add_custom\)"):
        forward_function("class ModelNew:\n    def forward(self, x):\n        return x + 1\n", ("add_custom",))
    source = "import m\nclass ModelNew:\n    def forward(self, x):\n        y = torch.relu(x)\n        return m.op(y)\n"
    assert forward_function(source, ("op",)) == "op"


# ---- the sandbox ---------------------------------------------------------------------------------------------


def escaping_files(add_submission, marker_dir: Path) -> dict[str, str]:
    """The add submission whose host code runs a shell command and writes a file, both outside its scratch
    directory, and prints what happened."""
    attempt = (f'int shell = std::system("echo escaped > {marker_dir}/by_system");\n'
               f'    FILE *file = std::fopen("{marker_dir}/by_fopen", "w");\n'
               '    int error = file == nullptr ? errno : 0;\n'
               '    if (file != nullptr) { std::fputs("escaped", file); std::fclose(file); }\n'
               '    std::printf("system %d fopen %s errno %d\\n", shell, file ? "opened" : "refused", error);\n'
               "    at::Tensor z = at::empty_like(x);")
    files = changed(add_submission.files, "csrc/pybind11.cpp", "at::Tensor z = at::empty_like(x);", attempt)
    return changed(files, "csrc/pybind11.cpp", "#include <pybind11/pybind11.h>",
                   "#include <pybind11/pybind11.h>\n#include <cerrno>\n#include <cstdio>\n#include <cstdlib>")


@pytest.mark.skipif(not (PROTECTIONS.seccomp and PROTECTIONS.landlock_filesystem),
                    reason=f"this kernel lacks seccomp or Landlock: {PROTECTIONS.notes}")
def test_host_code_reaching_the_os_is_stopped_by_the_sandbox(add_submission, tmp_path, monkeypatch):
    build = build_direct_launch(escaping_files(add_submission, tmp_path))
    x, y = torch.randn(8, 256), torch.randn(8, 256)
    run = run_direct_launch(build, "add_custom", [x, y])
    assert torch.equal(run.outputs[0], x + y)  # the call went on, with nothing escaped
    assert "fopen refused errno 13" in run.stdout  # EACCES: Landlock
    assert not run.stdout.startswith("system 0 ")  # no shell ran: seccomp refuses new programs
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setenv(config.SANDBOX_ENV, "off")  # the control: the same code outside the sandbox escapes
    run = run_direct_launch(build, "add_custom", [x, y])
    assert run.stdout == "system 0 fopen opened errno 0\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["by_fopen", "by_system"]


def test_an_include_of_a_file_outside_the_submission_does_not_leak_it(add_submission):
    files = changed(add_submission.files, "csrc/pybind11.cpp", "#include <pybind11/pybind11.h>",
                    '#include <pybind11/pybind11.h>\n#include "/etc/passwd"')
    with pytest.raises(KernelBuildError) as raised:
        build_direct_launch(files)
    shown = str(raised.value)  # the build sandbox refuses the read; the lines naming the file are dropped anyway
    assert "root:" not in shown and "passwd" not in shown and "about other files omitted" in shown
