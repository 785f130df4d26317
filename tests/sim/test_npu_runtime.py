"""The NPU runtime without an NPU: its exact build command, its C++ compiled against the real torch
headers and stand-in ACL/torch_npu headers (a typo or a signature slip fails here), the Python
glue around the module, and importing it with torch_npu absent or broken."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
import torch.utils.cpp_extension as cpp_extension

from torch_ascendgen.errors import NpuUnavailable
from torch_ascendgen.targets.npu import cann
from torch_ascendgen.targets.npu import runtime as npu_runtime
from torch_ascendgen.targets.npu.build import NPU_ABI_VERSION
from torch_ascendgen.targets.npu.cann import CannToolkit
from torch_ascendgen.targets.runtime import ShapeDeclined

REPO = Path(__file__).resolve().parents[2]
STUBS = REPO / "tests" / "npu_stubs" / "include"
STUB_FILES = ("acl/acl.h", "torch_npu/csrc/framework/OpCommand.h", "torch_npu/csrc/core/npu/NPUStream.h")

# What the runtime needs from libascendcl and libtorch_npu at load time (nm -C of the object).
EXPECTED_IMPORTS = {
    "aclGetRecentErrMsg", "aclrtFree", "aclrtGetDevice", "aclrtMalloc", "aclrtMemcpy", "aclrtSynchronizeDevice",
    "c10_npu::getCurrentNPUStream(signed char)",
    "c10_npu::NPUStream::stream(bool) const",
    "at_npu::native::OpCommand::RunOpApi(std::__cxx11::basic_string<char, std::char_traits<char>, "
    "std::allocator<char> > const&, std::function<int ()>, bool)",
}


def _toolkit(home: Path) -> CannToolkit:
    return CannToolkit(home=home, version="8.0.RC3", bisheng=home / "compiler/ccec_compiler/bin/bisheng",
                       include_dirs=(home / "include",), library_dirs=(home / "lib64",), source="ASCEND_HOME_PATH")


# ---- the build command --------------------------------------------------------------------------------


def test_command_is_torch_npus_extension_build(monkeypatch, tmp_path):
    monkeypatch.setenv("TORCH_ASCENDGEN_CXX", "g++")
    npu = tmp_path / "site-packages" / "torch_npu"
    cann_home = tmp_path / "Ascend" / "cann"
    source = REPO / "csrc" / "runtime" / "npu_runtime.cpp"
    command = npu_runtime.npu_runtime_command(_toolkit(cann_home), npu, source, "ascendgen_npu_runtime.so")
    abi = "1" if torch._C._GLIBCXX_USE_CXX11_ABI else "0"
    assert command == [
        "g++", npu_runtime.cxx_standard(), "-O2", "-fPIC", "-fvisibility=hidden", "-DTORCH_API_INCLUDE_EXTENSION_H",
        "-DTORCH_EXTENSION_NAME=ascendgen_npu_runtime", f"-DASCENDGEN_NPU_ABI_VERSION={NPU_ABI_VERSION}",
        f"-D_GLIBCXX_USE_CXX11_ABI={abi}", *npu_runtime.pybind11_abi_flags(),
        *[f"-I{d}" for d in cpp_extension.include_paths()], f"-I{sysconfig.get_paths()['include']}",
        f"-I{npu}/include", f"-I{npu}/include/third_party/acl/inc", f"-I{npu}/include/third_party/hccl/inc",
        f"-I{cann_home}/include",
        str(source), "-shared", "-o", "ascendgen_npu_runtime.so",
        *[f"-L{d}" for d in cpp_extension.library_paths()], f"-L{npu}/lib", f"-L{cann_home}/lib64",
        "-ltorch_npu", "-lascendcl", "-lc10", "-ltorch", "-ltorch_cpu", "-ltorch_python",
    ]


@pytest.mark.parametrize(("version", "standard"), [("2.1.0", "-std=c++17"), ("2.6.0+cpu", "-std=c++17"),
                                                    ("2.11.0", "-std=c++17"), ("2.12.0", "-std=c++20"),
                                                    ("2.13.0+cpu", "-std=c++20")])
def test_cxx_standard_follows_torch(monkeypatch, version, standard):
    monkeypatch.setattr(torch, "__version__", version)
    assert npu_runtime.cxx_standard() == standard


# ---- the C++ against the stand-in headers --------------------------------------------------------------


@pytest.fixture(scope="module")
def runtime_object(tmp_path_factory) -> Path:
    """npu_runtime.cpp compiled once (-c, no link) with npu_runtime_command's flags, the stand-ins in
    place of torch_npu's and CANN's headers, and the installed torch's real headers."""
    cxx = os.environ.get("TORCH_ASCENDGEN_CXX") or os.environ.get("CXX") or "g++"
    if shutil.which(cxx) is None:
        pytest.skip(f"no C++ compiler {cxx!r}")
    root = tmp_path_factory.mktemp("npu_runtime_stubs")
    npu = root / "torch_npu"
    npu.mkdir()
    (npu / "include").symlink_to(STUBS)
    source = REPO / "csrc" / "runtime" / "npu_runtime.cpp"
    command = npu_runtime.npu_runtime_command(_toolkit(root / "cann"), npu, source, root / "unused.so")
    obj = root / "npu_runtime.o"
    compile_only = [*command[:command.index(str(source)) + 1], "-c", "-o", str(obj)]
    done = subprocess.run(compile_only, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-6000:]
    return obj


def _imports(obj: Path) -> set[str]:
    listing = subprocess.run(["nm", "-C", "--undefined-only", str(obj)], capture_output=True, text=True, check=True)
    names = {line.split(None, 1)[1] for line in listing.stdout.splitlines() if line.strip()}
    return {n for n in names if n.startswith(("acl", "c10_npu::", "at_npu::"))}


def test_runtime_compiles_against_real_torch_and_stub_headers(runtime_object):
    assert runtime_object.stat().st_size > 0
    if shutil.which("nm") is None:
        pytest.skip("no nm to list the object's symbols")
    assert _imports(runtime_object) == EXPECTED_IMPORTS


def test_stubs_declare_only_what_the_runtime_uses(runtime_object):
    if shutil.which("nm") is None:
        pytest.skip("no nm to list the object's symbols")
    used = _imports(runtime_object)
    acl_text = (STUBS / "acl/acl.h").read_text()
    declared = set(re.findall(r"^(?:aclError|const char\*)\s+(\w+)\(", acl_text, flags=re.M))
    assert declared == {n for n in used if n.startswith("acl")}
    for name in STUB_FILES:
        text = (STUBS / name).read_text()
        assert "Stand-in for" in text and "Followed:" in text, f"{name} must name the header/doc it follows"
        body = re.sub(r"//[^\n]*", "", text)
        assert not re.search(r"\)\s*(const\s*)?\{", body), f"{name} must hold declarations only"


# ---- the Python glue, with a stand-in module and library -------------------------------------------------


class _FakeLibrary:
    def __init__(self, block_dim=4, workspace=0):
        self.calls = []
        self.block_dim, self.workspace = block_dim, workspace

    def tiling(self, shapes, core_num):
        self.calls.append((shapes, core_num))
        return self.block_dim, self.workspace, b"\x01\x02\x03\x04"


class _FakeRuntime:
    def __init__(self):
        self.tilings, self.launches = [], []

    def DeviceTiling(self, data, device_index):  # noqa: N802 - the module's class name
        self.tilings.append((data, device_index))
        return ("device tiling", len(self.tilings))

    def launch(self, library, block_dim, inputs, outputs, workspace, tiling):
        self.launches.append((library, block_dim, inputs, outputs, workspace, tiling))


def _task():
    spec = SimpleNamespace
    return SimpleNamespace(specialized=False, traced_shapes=None, guards=(),
                           inputs=[spec(shape=("s0", 8), dtype=torch.float32), spec(shape=(1, 8), dtype=torch.float32)],
                           outputs=[spec(shape=("s0", 8), dtype=torch.float16)])


def _kernel(monkeypatch, library) -> tuple[npu_runtime.NpuKernel, _FakeRuntime]:
    """An NpuKernel wired to stand-ins (no module build), taking CPU tensors as if they were on NPU 0."""
    runtime = _FakeRuntime()
    kernel = npu_runtime.NpuKernel.__new__(npu_runtime.NpuKernel)
    kernel.build, kernel.task, kernel.soc = SimpleNamespace(library=Path("k.so")), _task(), "Ascend910B4"
    kernel._runtime, kernel._library, kernel._tilings = runtime, library, {}
    monkeypatch.setattr(npu_runtime, "_device_index", lambda inputs: 0)
    return kernel, runtime


def test_tiling_is_memoised_per_shape_in_device_memory(monkeypatch):
    library = _FakeLibrary(block_dim=5)
    kernel, runtime = _kernel(monkeypatch, library)
    x, bias = torch.randn(3, 8), torch.randn(1, 8)
    shapes, tiling = kernel.plan([x, bias])
    assert shapes == [(3, 8)]
    assert (tiling.block_dim, tiling.workspace_bytes, tiling.data) == (5, 0, b"\x01\x02\x03\x04")
    assert library.calls == [([[3, 8], [1, 8], [3, 8]], 40)]  # inputs then outputs; 910B4 has 40 vector cores
    assert kernel.plan([torch.randn(3, 8), bias])[1] is tiling
    kernel.plan([torch.randn(6, 8), bias])
    assert len(library.calls) == 2 and runtime.tilings == [(b"\x01\x02\x03\x04", 0)] * 2


def test_run_allocates_outputs_on_the_inputs_device_and_launches(monkeypatch):
    kernel, runtime = _kernel(monkeypatch, _FakeLibrary(block_dim=2, workspace=96))
    x, bias = torch.randn(4, 8).t().contiguous().t(), torch.randn(1, 8)  # x not contiguous
    (out,) = kernel(x, bias)
    assert out.shape == (4, 8) and out.dtype == torch.float16 and out.device == x.device
    ((library, block_dim, inputs, outputs, workspace, tiling),) = runtime.launches
    assert library is kernel._library and block_dim == 2 and tiling == ("device tiling", 1)
    assert all(t.is_contiguous() for t in inputs) and torch.equal(inputs[0], x)
    assert outputs == [out]
    assert workspace.dtype == torch.uint8 and workspace.numel() == 96 and workspace.device == x.device
    assert kernel.run(x, bias)[1] is None


def test_a_declined_shape_runs_as_the_original(monkeypatch):
    kernel, runtime = _kernel(monkeypatch, _FakeLibrary(block_dim=0))
    with pytest.raises(ShapeDeclined):
        kernel.plan([torch.randn(2, 8), torch.randn(1, 8)])
    assert runtime.tilings == []


def test_inputs_must_be_on_the_npu():
    with pytest.raises(ValueError, match="on the NPU"):
        npu_runtime._device_index([torch.randn(2)])


# ---- without torch_npu ----------------------------------------------------------------------------------


def test_absent_torch_npu_is_npu_unavailable(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch_npu", None)  # an import of it fails as if not installed
    monkeypatch.setattr(cann, "_import_failure", None)
    for attempt in (npu_runtime.npu_runtime_module,
                    lambda: npu_runtime.NpuKernel(SimpleNamespace(library=Path("k.so")), _task(), "Ascend910B2")):
        with pytest.raises(NpuUnavailable, match="torch_npu") as caught:
            attempt()
        assert not isinstance(caught.value, ImportError)


def test_package_imports_with_a_broken_torch_npu(tmp_path):
    """A torch_npu that fails to load (no CANN libraries) is never imported by importing the runtime,
    and asking for the runtime gives NpuUnavailable."""
    broken = tmp_path / "site" / "torch_npu"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text(
        'raise OSError("libhccl.so: cannot open shared object file: No such file or directory")\n')
    script = textwrap.dedent("""
        import sys
        from pathlib import Path
        from types import SimpleNamespace
        import torch_ascendgen.targets.npu.runtime as r
        from torch_ascendgen.errors import NpuUnavailable
        assert "torch_npu" not in sys.modules, "importing the runtime imported torch_npu"
        kernel = lambda: r.NpuKernel(SimpleNamespace(library=Path("k.so")), None, "Ascend910B2")
        for attempt in (r.npu_runtime_module, kernel):
            try:
                attempt()
            except NpuUnavailable as exc:
                print("NpuUnavailable:", str(exc).splitlines()[0])
            else:
                raise SystemExit("no NpuUnavailable")
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(broken.parent), str(REPO)]),
           "TORCH_ASCENDGEN_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("NpuUnavailable: torch_npu is installed but cannot load CANN's libraries") == 2
