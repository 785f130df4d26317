"""The whole pipeline on a real Ascend NPU: detection, the bisheng build, launches on the current
stream in order with torch_npu's own ops, verification, NPU timing against the original, and the
cache reused by a new process. Skipped with the missing piece named where there is no NPU
(conftest.py). Nothing here has run yet: no machine of the project has an NPU (see the README)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings

import pytest
import torch
import torch.nn.functional as F

from torch_ascendgen import AscendGenWarning, ascend_kernel


def swiglu(gate, up):
    return F.silu(gate) * up


def scaled_add(x, y):
    return x * 2 + y


def row_softmax(x):
    return torch.softmax(x, dim=-1)


def rms_norm(x, weight):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * weight


@pytest.fixture
def npu():
    import torch_npu  # noqa: F401 - registers the "npu" device

    torch.npu.set_device(0)
    return torch.device("npu", 0)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_ASCENDGEN_CACHE_DIR", str(tmp_path / "machine"))
    return tmp_path / "kernels"


def strict(function, cache_dir, **options):
    """Decorated in strict mode: a fallback to the original raises, so a test cannot pass on torch_npu's ops."""
    return ascend_kernel(function, strict=True, cache_dir=cache_dir, progress=False, variants=2, **options)


def test_doctor_finds_torch_npu_cann_bisheng_and_the_soc():
    done = subprocess.run([sys.executable, "-m", "torch_ascendgen", "doctor"], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [row.split() for row in done.stdout.splitlines()]  # "  ok    torch_npu  2.x, 8 NPU(s) visible"
    for name in ("torch_npu", "CANN", "bisheng", "SoC"):
        assert any(row[:2] == ["ok", name] for row in rows), done.stdout


def test_bisheng_builds_a_built_in_kernel_and_keeps_its_log(npu, tmp_path, monkeypatch):
    from torch_ascendgen.capture import capture
    from torch_ascendgen.generators.builtin.generator import generate_builtin
    from torch_ascendgen.targets.npu.build import compile_npu_kernel
    from torch_ascendgen.targets.npu.cann import current_soc, require_cann

    monkeypatch.setenv("TORCH_ASCENDGEN_CACHE_DIR", str(tmp_path))
    task = capture(swiglu, [torch.randn(8, 256), torch.randn(8, 256)])
    source = generate_builtin(task, 1)[0].source
    build = compile_npu_kernel(source, 5, current_soc(0), require_cann())
    assert build.library.is_file() and build.log.is_file() and not build.cached
    assert compile_npu_kernel(source, 5, current_soc(0), require_cann()).cached


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_an_elementwise_kernel_matches_the_original_and_is_timed_against_it(npu, cache_dir, dtype):
    fast = strict(swiglu, cache_dir)
    gate, up = torch.randn(64, 1000, dtype=dtype, device=npu), torch.randn(64, 1000, dtype=dtype, device=npu)
    torch.testing.assert_close(fast(gate, up), swiglu(gate, up), rtol=2e-3, atol=2e-3)
    (kernel,) = fast.kernels()
    assert kernel.target.kind == "npu" and kernel.origin in ("search", "seed")  # a seed kernel is a candidate too
    meta = kernel.entry.meta
    assert meta["target"]["kind"] == "npu" and meta["target"]["soc"] == kernel.target.soc
    timing = meta["npu_timing"]
    assert timing["kernel_ns"] > 0 and timing["original_ns"] > 0 and timing["samples"] >= 50
    assert meta["winner"]["time_ns"] > 0


def test_results_are_ordered_with_the_torch_ops_around_them(npu, cache_dir):
    """The kernel reads what a queued torch op wrote just before it, and the next op reads its output."""
    fast = strict(scaled_add, cache_dir)
    x, y = torch.randn(1024, 4096), torch.randn(1024, 4096)
    expected = scaled_add(x + 1, y) * 3
    for _ in range(20):
        x_npu, y_npu = x.to(npu), y.to(npu)
        shifted = x_npu.add(1)  # queued on torch_npu's task queue, not yet run
        out = fast(shifted, y_npu).mul(3)
        torch.testing.assert_close(out.cpu(), expected)


def test_a_launch_on_a_side_stream_is_ordered_on_that_stream(npu, cache_dir):
    fast = strict(scaled_add, cache_dir)
    x, y = torch.randn(512, 4096), torch.randn(512, 4096)
    fast(x.to(npu), y.to(npu))  # generated and cached on the default stream
    side = torch.npu.Stream()
    with torch.npu.stream(side):
        out = fast(x.to(npu).add(1), y.to(npu)).mul(3)
    side.synchronize()
    torch.testing.assert_close(out.cpu(), scaled_add(x + 1, y) * 3)


@pytest.mark.parametrize("function, shapes", [
    (row_softmax, [(32, 1000)]),
    (rms_norm, [(16, 4096), (4096,)]),
], ids=["softmax", "rms-norm"])
def test_reductions_match_the_original_at_new_batch_sizes(npu, cache_dir, function, shapes):
    fast = strict(function, cache_dir)
    # not 1: a size-1 dimension is captured as 1 (another broadcast pattern, so another kernel)
    for batch in (shapes[0][0], 7, 3 * shapes[0][0] + 5):
        inputs = [torch.randn((batch, *shapes[0][1:]), device=npu)] + [torch.randn(s, device=npu) for s in shapes[1:]]
        torch.testing.assert_close(fast(*inputs), function(*inputs), rtol=1e-4, atol=1e-5)
    assert len(fast.kernels()) == 1  # one shape-generic kernel, verified at each new shape


def test_a_new_process_runs_the_cached_kernel_without_building(npu, cache_dir):
    fast = strict(swiglu, cache_dir)
    gate, up = torch.randn(8, 512, device=npu), torch.randn(8, 512, device=npu)
    fast(gate, up)
    script = textwrap.dedent(f"""
        import json, torch, torch_npu, torch.nn.functional as F
        from torch_ascendgen import ascend_kernel
        def swiglu(gate, up):
            return F.silu(gate) * up
        fast = ascend_kernel(swiglu, strict=True, cache_dir={str(cache_dir)!r}, progress=False, variants=2)
        gate, up = torch.randn(8, 512, device="npu:0"), torch.randn(8, 512, device="npu:0")
        torch.testing.assert_close(fast(gate, up), swiglu(gate, up), rtol=1e-4, atol=1e-5)
        print(json.dumps({{"origin": fast.kernels()[0].origin}}))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                          env={**os.environ})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"origin": "cache"}


def test_cpu_inputs_still_use_the_simulator_next_to_the_npu(npu, cache_dir):
    fast = ascend_kernel(scaled_add, cache_dir=cache_dir, progress=False, variants=1)
    x, y = torch.randn(4, 256), torch.randn(4, 256)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AscendGenWarning)
        torch.testing.assert_close(fast(x, y), scaled_add(x, y))
    assert fast.kernels()[0].target.kind == "sim"


def test_cpu_and_npu_calls_of_one_shape_each_run_on_their_own_device(npu, cache_dir):
    """The fast path remembers the last kernel signature; a CPU call with the shapes of an earlier NPU call
    must not reach the NPU kernel's op (it has no CPU implementation), nor an NPU call the simulator's."""
    fast = ascend_kernel(scaled_add, cache_dir=cache_dir, progress=False, variants=1)
    x, y = torch.randn(4, 256), torch.randn(4, 256)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AscendGenWarning)
        torch.testing.assert_close(fast(x.to(npu), y.to(npu)).cpu(), scaled_add(x, y))
        torch.testing.assert_close(fast(x, y), scaled_add(x, y))
        torch.testing.assert_close(fast(x, y), scaled_add(x, y))
        torch.testing.assert_close(fast(x.to(npu), y.to(npu)).cpu(), scaled_add(x, y))
    assert sorted(k.target.kind for k in fast.kernels()) == ["npu", "sim"]
