"""Kernel-launch samples (kernel .cpp + host main.cpp + data_utils.h) built and run unmodified on the simulator.

The samples in tests/launch_samples are written in the tutorial style: add_custom (the NPU branch through the ACL
runtime shim and a <<<>>> launcher, and the ASCENDC_CPU_DEBUG branch through GmAlloc/ICPU_RUN_KF) and
scale_template (a template entry instantiated at its <<<>>> launch, ACLRT_LAUNCH_KERNEL, kernel printf, events).
Each build happens once per session; the variants with a broken host or kernel are the same sample with one line
changed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from torch_ascendgen.errors import KernelArgumentError, KernelCrashError, KernelTimeoutError
from torch_ascendgen.targets.sim.launch_sample import (
    SampleRun,
    build_sample,
    read_sample,
    rewrite_launches,
    run_sample,
)
from torch_ascendgen.targets.sim.simulator import compile_kernel, find_entry

SAMPLES = Path(__file__).resolve().parent.parent / "launch_samples"
N = 8 * 2048  # add_custom's length


def add_sources() -> dict[str, str]:
    return read_sample(SAMPLES / "add_custom")


def changed(sources: dict[str, str], path: str, old: str, new: str) -> dict[str, str]:
    """``sources`` with one line of ``path`` changed (the line must be there)."""
    assert old in sources[path], old
    return {**sources, path: sources[path].replace(old, new, 1)}


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def add_inputs(n: int = N, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, dict[str, bytes]]:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(n, generator=generator).half()
    y = torch.randn(n, generator=generator).half()
    return x, y, {"input/input_x.bin": x.numpy().tobytes(), "input/input_y.bin": y.numpy().tobytes()}


def output(run: SampleRun, path: str, dtype: torch.dtype) -> torch.Tensor:
    return torch.frombuffer(bytearray(run.files[path]), dtype=dtype)


@pytest.fixture(scope="module")
def npu_build():
    return build_sample(add_sources())


@pytest.fixture(scope="module")
def cpu_build():
    return build_sample(add_sources(), cpu_debug=True)


@pytest.fixture(scope="module")
def template_build():
    return build_sample(read_sample(SAMPLES / "scale_template"))


def test_npu_branch_runs_unmodified_and_matches_torch(npu_build):
    x, y, inputs = add_inputs()
    run = run_sample(npu_build, inputs)
    assert run.exit_status == 0, run.stderr
    assert run.diagnostics == [] and run.stderr == ""
    assert [(launch.kernel, launch.block_dim, launch.ok) for launch in run.launches] == [("add_custom", 8, True)]
    assert run.launches[0].estimated_ns > 0
    assert set(run.files) == {"output/output_z.bin"}  # the inputs it only read are not returned
    assert torch.equal(output(run, "output/output_z.bin", torch.float16), x + y)


@pytest.mark.parametrize("soc, vector_cores, cube_cores", [("Ascend910B1", 48, 24), ("Ascend310P3", 8, 8)])
def test_host_platform_queries_describe_the_simulated_soc(soc, vector_cores, cube_cores):
    sources = changed(add_sources(), "main.cpp", '#include "acl/acl.h"\n',
                      '#include "acl/acl.h"\n#include "tiling/platform/platform_ascendc.h"\n')
    sources = changed(sources, "main.cpp", "    CHECK_ACL(aclInit(nullptr));\n",
                      "    CHECK_ACL(aclInit(nullptr));\n"
                      "    auto *platform = platform_ascendc::PlatformAscendCManager::GetInstance();\n"
                      '    std::cout << "cores " << platform->GetCoreNumAiv() << " "\n'
                      '              << platform->GetCoreNumAic() << std::endl;\n')
    _, _, inputs = add_inputs(seed=2)
    run = run_sample(build_sample(sources), inputs, soc=soc)
    assert run.exit_status == 0, run.stderr
    assert f"cores {vector_cores} {cube_cores}" in run.stdout


def test_cpu_debug_branch_runs_the_same_sample(cpu_build):
    x, y, inputs = add_inputs(seed=1)
    run = run_sample(cpu_build, inputs)
    assert run.exit_status == 0, run.stderr
    assert run.diagnostics == []
    assert [(launch.kernel, launch.ok) for launch in run.launches] == [("add_custom", True)]
    assert torch.equal(output(run, "output/output_z.bin", torch.float16), x + y)


def test_template_entries_aclrt_launch_kernel_and_printf(template_build):
    xf = torch.randn(256, generator=torch.Generator().manual_seed(2))
    xh = torch.randn(256, generator=torch.Generator().manual_seed(3)).half()
    run = run_sample(template_build, {"input/x_float.bin": xf.numpy().tobytes(),
                                      "input/x_half.bin": xh.numpy().tobytes()}, soc="Ascend910B4")
    assert run.exit_status == 0, run.stderr
    assert [launch.kernel for launch in run.launches] == ["scale_kernel<float>", "scale_kernel<half>", "offset_custom"]
    assert torch.equal(output(run, "output/y_float.bin", torch.float32), xf * 3 + 0.5)
    assert torch.equal(output(run, "output/y_half.bin", torch.float16), xh * 3)
    assert run.debug_text == "[block 0] scale_kernel on 4 cores\n" * 2
    assert run.stdout.startswith(run.debug_text)  # as on the NPU, the kernel's printf reaches the screen
    assert f"first result {(xf[0] * 3 + 0.5).item():f}" in run.stdout
    assert "running on Ascend910B4\n" in run.stdout
    simulated_ms = sum(launch.estimated_ns for launch in run.launches) / 1e6  # events time the simulated NPU
    assert f"three kernels took {simulated_ms:.6f} ms\n" in run.stdout
    assert f"0.1 as aclFloat16: {torch.tensor(0.1).half().item():.10f}" in run.stdout  # 0.0999755859


def test_template_entry_builds_directly_with_compile_kernel():
    source = (SAMPLES / "scale_template" / "scale_custom.cpp").read_text()
    kernel = compile_kernel(source, entry="scale_kernel<half>", filename="scale_custom.cpp")
    x = torch.randn(128).half()
    y = torch.empty(128, dtype=torch.float16)
    report = kernel.launch(2, x, y, 0.25, 128)
    assert torch.equal(y, x * 0.25)
    assert kernel.entry == "scale_kernel<half>" and "scale_kernel on 2 cores" in report.debug_text
    isolated = torch.empty(128, dtype=torch.float16)
    kernel.launch_isolated(2, x, isolated, 0.25, 128)  # the instantiation travels to a sandboxed child by name
    assert torch.equal(isolated, x * 0.25)
    with pytest.raises(KernelArgumentError, match=r'entry="scale_kernel<float>"'):
        find_entry(source.replace('extern "C" __global__ __aicore__ void offset_custom', "void offset_custom"))
    with pytest.raises(KernelArgumentError, match="not a C identifier"):
        compile_kernel(source, entry="scale_kernel<float>); int x(")


def test_launch_rewrite_keeps_lines_comments_and_strings():
    text = ('// add<<<8, nullptr, s>>>(x);\nconst char* s = "a<<<b>>>";\n'
            "ns::add_kernel<float, 8> <<<blockDim,\n nullptr, stream>>>(x, y);\nadd<<<1, nullptr, nullptr>>>(x);\n")
    rewritten, changed_any = rewrite_launches(text)
    assert changed_any and rewritten.count("\n") == text.count("\n")
    lines = rewritten.splitlines()
    assert lines[:2] == text.splitlines()[:2]
    assert lines[2] == 'ascendc_sim_host::kernel_call(ns::add_kernel<float, 8> , "ns::add_kernel<float,8>", blockDim,'
    assert lines[3] == " nullptr, stream)(x, y);"
    assert lines[4] == 'ascendc_sim_host::kernel_call(add, "add", 1, nullptr, nullptr)(x);'
    in_macro = "#define LAUNCH(T) \\\n    rope_##T<<<n, nullptr, s>>>(a); \\\n"  # a name pasted in a macro
    assert rewrite_launches(in_macro)[0].splitlines()[1] == (
        '    ascendc_sim_host::kernel_call(rope_##T, "rope_##T", n, nullptr, s)(a); \\')


def test_asynchronous_copies_run_in_order_with_the_stream():
    copy_x = "aclrtMemcpy(xDevice, inputByteSize, xHost, inputByteSize, ACL_MEMCPY_HOST_TO_DEVICE)"
    sources = changed(add_sources(), "main.cpp", copy_x,
                      copy_x.replace("aclrtMemcpy", "aclrtMemcpyAsync").replace(")", ", stream)"))
    sources = changed(sources, "main.cpp", "CHECK_ACL(aclrtSynchronizeStream(stream));",
                      "CHECK_ACL(aclrtMemcpyAsync(zHost, outputByteSize, zDevice, outputByteSize, "
                      "ACL_MEMCPY_DEVICE_TO_HOST, stream)); CHECK_ACL(aclrtSynchronizeStream(stream));")
    x, y, inputs = add_inputs(seed=4)
    run = run_sample(build_sample(sources), inputs)
    assert run.exit_status == 0 and run.diagnostics == [], run.stderr
    assert torch.equal(output(run, "output/output_z.bin", torch.float16), x + y)


def test_host_reading_a_missing_file_fails_like_the_sample_says(npu_build):
    run = run_sample(npu_build, {})
    assert run.exit_status == 1
    assert "[ERROR]  failed to get file ./input/input_x.bin" in run.stderr
    assert run.launches == [] and run.files == {}


@pytest.mark.parametrize("cpu_debug", [False, True])
def test_kernel_diagnostic_propagates_with_the_kernel_file_and_line(cpu_debug):
    sources = changed(add_sources(), "main.cpp", "size_t inputByteSize = 8 * 2048 * sizeof(uint16_t);",
                      "size_t inputByteSize = 8 * 1024 * sizeof(uint16_t);")  # inputs half as long as the kernel reads
    _, _, inputs = add_inputs(n=N // 2)
    run = run_sample(build_sample(sources, cpu_debug=cpu_debug), inputs)
    # Both inputs are short. Which copy is named first depends on where the host allocator put them: a read past
    # x's end may land inside y's allocation (GmAlloc memory can be adjacent), and then y's read is the first
    # to leave every tensor of the launch.
    copy_lines = {line_of(sources["add_custom.cpp"], "DataCopy(xLocal, xGm"),
                  line_of(sources["add_custom.cpp"], "DataCopy(yLocal, yGm")}
    [diagnostic] = run.diagnostics
    assert (diagnostic.kind, diagnostic.file, diagnostic.where) == ("gm_out_of_bounds", "add_custom.cpp", "add_custom")
    assert diagnostic.line in copy_lines
    kernel_line = diagnostic.line
    assert diagnostic.block >= 4  # the blocks past the shortened inputs
    assert f"add_custom.cpp:{kernel_line}: error: gm_out_of_bounds in kernel add_custom" in run.stderr
    if not cpu_debug:
        sync_line = line_of(sources["main.cpp"], "aclrtSynchronizeStream(stream)")
        assert f"main.cpp:{sync_line} aclError:507015" in run.stderr  # ACL_ERROR_RT_AICORE_EXCEPTION
    assert [launch.ok for launch in run.launches] == [False]


MISUSES = {
    "copy past the allocation": (
        "CHECK_ACL(aclrtMemcpy(xDevice, inputByteSize, xHost, inputByteSize, ACL_MEMCPY_HOST_TO_DEVICE));",
        "CHECK_ACL(aclrtMemcpy(xDevice, inputByteSize + 64, xHost, inputByteSize + 64, ACL_MEMCPY_HOST_TO_DEVICE));",
        "aclrtMemcpy", "32832 bytes from byte 0 of a 32768-byte allocation run 64 bytes past its end", "100000"),
    "wrong copy kind": (
        "CHECK_ACL(aclrtMemcpy(yDevice, inputByteSize, yHost, inputByteSize, ACL_MEMCPY_HOST_TO_DEVICE));",
        "CHECK_ACL(aclrtMemcpy(yDevice, inputByteSize, yHost, inputByteSize, ACL_MEMCPY_DEVICE_TO_HOST));",
        "aclrtMemcpy", "dst is device memory, but the copy kind says it is host memory", "100000"),
    "use after free": (
        "add_custom_do(blockDim, stream, xDevice, yDevice, zDevice);",
        "CHECK_ACL(aclrtFree(xDevice)); add_custom_do(blockDim, stream, xDevice, yDevice, zDevice);",
        "add_custom", "argument 0 points into device memory (aclrtMalloc) that was freed at main.cpp:", "507015"),
    "aclInit twice": (
        "CHECK_ACL(aclInit(nullptr));", "CHECK_ACL(aclInit(nullptr)); CHECK_ACL(aclInit(nullptr));",
        "aclInit", "called a second time", "100002"),  # ACL_ERROR_REPEAT_INITIALIZE
    "a device that does not exist": (
        "int32_t deviceId = 0;", "int32_t deviceId = 1;",
        "aclrtSetDevice", "device 1 does not exist", "107001"),  # ACL_ERROR_RT_INVALID_DEVICEID
    "elapsed time of events not reached": (
        "CHECK_ACL(aclrtSynchronizeStream(stream));",
        "aclrtEvent e1, e2; CHECK_ACL(aclrtCreateEvent(&e1)); CHECK_ACL(aclrtCreateEvent(&e2)); "
        "CHECK_ACL(aclrtRecordEvent(e1, stream)); CHECK_ACL(aclrtRecordEvent(e2, stream)); float ms = 0; "
        "CHECK_ACL(aclrtEventElapsedTime(&ms, e1, e2)); CHECK_ACL(aclrtSynchronizeStream(stream));",
        "aclrtEventElapsedTime", "both events must be recorded (aclrtRecordEvent) and reached", "100000"),
    "no synchronize": (
        "CHECK_ACL(aclrtSynchronizeStream(stream));", "",
        "aclrtMemcpy", "src is device memory that kernel add_custom (launched at add_custom.cpp:", None),
}


@pytest.mark.parametrize("misuse", list(MISUSES))
def test_host_api_misuse_is_reported_at_the_host_line(misuse):
    old, new, api, message, error = MISUSES[misuse]
    sources = changed(add_sources(), "main.cpp", old, new)
    _, _, inputs = add_inputs()
    run = run_sample(build_sample(sources), inputs)
    line = line_of(sources["main.cpp"], {"": "aclrtMemcpy(zHost", "int32_t deviceId = 1;": "aclrtSetDevice(deviceId)"}
                   .get(new, new))
    found = [d for d in run.diagnostics if d.kind == "host_api_misuse" and d.where == api]
    assert found, run.stderr
    assert message in found[0].message
    if api != "add_custom":
        assert (found[0].file, found[0].line) == ("main.cpp", line)
    assert f"error: {api}: {found[0].message}" in run.stderr
    if error is not None:
        assert f"aclError:{error}" in run.stderr


def test_cpu_debug_gm_misuse_is_reported_at_the_host_line():
    sources = changed(add_sources(), "main.cpp", "AscendC::GmFree((void *)z);",
                      "AscendC::GmFree((void *)z); AscendC::GmFree((void *)z); AscendC::GmAlloc(0);")
    run = run_sample(build_sample(sources, cpu_debug=True), add_inputs()[2])
    line = line_of(sources["main.cpp"], "AscendC::GmAlloc(0);")
    assert [(d.where, d.file, d.line) for d in run.diagnostics] == [("GmFree", "main.cpp", line),
                                                                    ("GmAlloc", "main.cpp", line)]
    assert "was already freed at main.cpp:" in run.diagnostics[0].message
    assert run.exit_status == 0 and run.launches[0].ok


def test_exit_in_main_ends_the_sample_not_the_runner(npu_build):
    sources = changed(add_sources(), "main.cpp", "CHECK_ACL(aclInit(nullptr));", 'printf("bye\\n"); exit(3);')
    run = run_sample(build_sample(sources), add_inputs()[2])
    assert (run.exit_status, run.stdout) == (3, "bye\n")
    assert os.getpid() > 0 and run_sample(npu_build, add_inputs()[2]).exit_status == 0


def test_a_host_crash_is_a_clear_error_and_the_caller_survives(npu_build):
    sources = changed(add_sources(), "main.cpp", "CHECK_ACL(aclInit(nullptr));",
                      'printf("before the crash\\n"); *(volatile int *)nullptr = 1;')
    with pytest.raises(KernelCrashError, match="SIGSEGV") as raised:
        run_sample(build_sample(sources), add_inputs()[2])
    assert raised.value.stdout == "before the crash\n"
    assert run_sample(npu_build, add_inputs()[2]).exit_status == 0


def test_host_code_touching_device_memory_faults_as_on_the_npu():
    sources = changed(add_sources(), "main.cpp", "add_custom_do(blockDim, stream, xDevice, yDevice, zDevice);",
                      "add_custom_do(blockDim, stream, xDevice, yDevice, zDevice); printf(\"%d\\n\", zDevice[64]);")
    with pytest.raises(KernelCrashError, match="SIGSEGV") as raised:
        run_sample(build_sample(sources), add_inputs()[2])
    [diagnostic] = raised.value.diagnostics
    assert (diagnostic.kind, diagnostic.where) == ("host_api_misuse", "host code")
    assert diagnostic.message.startswith("host code read or wrote device memory directly: byte 64 of a 32768-byte "
                                         "aclrtMalloc allocation")
    assert "host code read or wrote device memory directly" in str(raised.value)


def test_a_host_that_never_ends_times_out(npu_build):
    sources = changed(add_sources(), "main.cpp", "CHECK_ACL(aclInit(nullptr));",
                      'printf("spinning\\n"); for (volatile int i = 0; ; i = i + 1) {}')
    with pytest.raises(KernelTimeoutError, match="did not finish within 3.0 s") as raised:
        run_sample(build_sample(sources), add_inputs()[2], timeout=3.0)
    assert raised.value.stdout == "spinning\n"
