"""@ascend_kernel end to end: generate, verify, cache, reuse, fall back — results never wrong."""

import json
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from torch_ascendgen import AscendGenWarning, ascend_kernel
from torch_ascendgen.capture import capture
from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.evaluate.search import search
from torch_ascendgen.evaluate.verify import make_input_sets
from torch_ascendgen.records import Candidate
from torch_ascendgen.targets.target import sim_target

ROOT = Path(__file__).resolve().parents[2]


def swiglu(gate, up):
    """A gated activation no seed kernel covers, so its first call always searches."""
    return F.gelu(gate, approximate="tanh") * up


def test_first_call_generates_a_verified_kernel_and_later_calls_reuse_it(tmp_path, monkeypatch):
    fast = ascend_kernel(swiglu, variants=2, cache_dir=tmp_path, progress=False)
    gate, up = torch.randn(16, 64), torch.randn(16, 64)
    torch.testing.assert_close(fast(gate, up), swiglu(gate, up))
    (kernel,) = fast.kernels()
    assert kernel.origin == "search"
    meta = kernel.entry.meta
    assert meta["winner"]["ok"] and len(meta["candidates"]) == 2
    assert all(c["time_ns"] > 0 for c in meta["candidates"] if c["ok"])
    launches = _launches(monkeypatch)
    torch.testing.assert_close(fast(gate, up), swiglu(gate, up))
    assert len(launches) == 1  # the second call ran the kernel, and nothing else was generated
    assert len(fast.kernels()) == 1


def test_a_new_batch_size_reuses_the_kernel_after_verifying_that_shape(tmp_path):
    fast = ascend_kernel(swiglu, variants=1, cache_dir=tmp_path, progress=False)
    fast(torch.randn(16, 64), torch.randn(16, 64))
    gate, up = torch.randn(5, 64), torch.randn(5, 64)
    torch.testing.assert_close(fast(gate, up), swiglu(gate, up))
    (kernel,) = fast.kernels()
    assert ((320,), (320,)) in kernel.verified_shapes  # the kernel's own shapes: an elementwise chain is 1-D
    on_disk = json.loads((kernel.entry.directory / "meta.json").read_text())
    assert [[320], [320]] in on_disk["verified_shapes"]


def _launches(monkeypatch) -> list:
    """Records every simulator launch from now on (the tensor shapes of each); kernel ops are made once per
    process and cache key, so the runner behind an op may be another test's, with the same kernel."""
    from torch_ascendgen.targets.sim.simulator import SimKernel

    shapes = []
    launch = SimKernel.launch

    def counted(self, block_dim, *args, **kwargs):
        shapes.append(tuple(tuple(a.shape) for a in args if isinstance(a, torch.Tensor)))
        return launch(self, block_dim, *args, **kwargs)

    monkeypatch.setattr(SimKernel, "launch", counted)
    return shapes


def _hit(tmp_path):
    """A decorated swiglu that ran its kernel at 16x64 twice (the second time from the fast path), and its kernel."""
    fast = ascend_kernel(swiglu, variants=1, cache_dir=tmp_path, progress=False)
    gate, up = torch.randn(16, 64), torch.randn(16, 64)
    fast(gate, up)
    torch.testing.assert_close(fast(gate, up), swiglu(gate, up))
    (kernel,) = fast.kernels()
    return fast, kernel


def test_later_calls_with_the_same_signature_skip_the_dispatch_table(tmp_path, monkeypatch):
    fast, kernel = _hit(tmp_path)
    from torch_ascendgen.frontends import decorator as api

    signatures = []
    monkeypatch.setattr(api, "_signature", lambda args, _real=api._signature: signatures.append(1) or _real(args))
    launches = _launches(monkeypatch)
    for _ in range(3):
        gate, up = torch.randn(16, 64), torch.randn(16, 64)  # new tensors, same signature
        torch.testing.assert_close(fast(gate, up), swiglu(gate, up))
    assert signatures == [] and len(launches) == 3


def test_a_dtype_change_after_a_hit_does_not_run_the_kernel(tmp_path, monkeypatch):
    fast, kernel = _hit(tmp_path)
    launches = _launches(monkeypatch)
    gate, up = torch.randn(16, 64, dtype=torch.float64), torch.randn(16, 64, dtype=torch.float64)
    with pytest.warns(AscendGenWarning, match="float64"):
        result = fast(gate, up)
    assert result.dtype == torch.float64 and torch.equal(result, swiglu(gate, up))
    assert launches == []


def test_a_non_contiguous_input_after_a_hit_runs_the_kernel_on_a_contiguous_copy(tmp_path, monkeypatch):
    fast, kernel = _hit(tmp_path)
    launches = _launches(monkeypatch)
    gate, up = torch.randn(64, 16).t(), torch.randn(16, 64)  # same shape and dtype as the hit
    with warnings.catch_warnings():
        warnings.simplefilter("error", AscendGenWarning)
        result = fast(gate, up)
    torch.testing.assert_close(result, swiglu(gate, up))
    assert len(launches) == 1 and not gate.is_contiguous()  # the caller's view is left as it was


def view_of_rows(x):
    return x.view(-1) * 2


def as_strided_diagonal(x):
    return x.as_strided((4,), (5,)) + 1


def test_a_view_the_strides_do_not_allow_raises_as_the_original_does(tmp_path):
    fast = ascend_kernel(view_of_rows, cache_dir=tmp_path, progress=False)
    transposed = torch.randn(4, 8).t()
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        view_of_rows(transposed)
    with pytest.raises(RuntimeError, match="view size is not compatible"), warnings.catch_warnings():
        warnings.simplefilter("ignore", AscendGenWarning)
        fast(transposed)


def test_as_strided_of_a_non_contiguous_input_runs_the_original(tmp_path):
    fast = ascend_kernel(as_strided_diagonal, cache_dir=tmp_path, progress=False)
    x = torch.randn(8, 4).t()
    with pytest.warns(AscendGenWarning, match="as_strided"):
        result = fast(x)
    assert torch.equal(result, as_strided_diagonal(x))


def test_tensors_on_another_device_after_a_hit_run_the_original(tmp_path, monkeypatch):
    fast, kernel = _hit(tmp_path)
    launches = _launches(monkeypatch)
    gate, up = torch.randn(16, 64, device="meta"), torch.randn(16, 64, device="meta")
    with pytest.warns(AscendGenWarning, match="on meta"):
        result = fast(gate, up)
    assert result.device.type == "meta" and result.shape == (16, 64) and launches == []


def test_an_input_requiring_grad_after_a_hit_runs_the_original_and_gets_gradients(tmp_path, monkeypatch):
    fast, kernel = _hit(tmp_path)
    launches = _launches(monkeypatch)
    gate, up = torch.randn(16, 64, requires_grad=True), torch.randn(16, 64)
    with torch.no_grad():  # grad mode off: the same kernel serves it
        torch.testing.assert_close(fast(gate, up), swiglu(gate, up))
    assert len(launches) == 1
    with pytest.warns(AscendGenWarning, match="require grad"):
        out = fast(gate, up)
    out.sum().backward()
    assert out.grad_fn is not None and gate.grad is not None and len(launches) == 1
    assert fast(gate, up).grad_fn is not None and len(launches) == 1  # and again, with grad mode still on


def test_a_new_batch_size_after_a_hit_is_verified_before_the_kernel_runs_on_it(tmp_path, monkeypatch):
    fast, kernel = _hit(tmp_path)
    from torch_ascendgen import pipeline
    from torch_ascendgen.evaluate.verify import Verdict

    launches = _launches(monkeypatch)
    monkeypatch.setattr(pipeline, "verify_loaded",
                        lambda *a, **k: Verdict(False, "rejected by the test", kind="values"))
    from torch_ascendgen.frontends import dispatch

    monkeypatch.setattr(dispatch, "compile_task", _refused)  # and no kernel of its own for those shapes either
    gate, up = torch.randn(5, 64), torch.randn(5, 64)
    with pytest.warns(AscendGenWarning, match="failed verification at shapes .* and for these shapes alone"):
        result = fast(gate, up)
    assert torch.equal(result, swiglu(gate, up)) and launches == []
    assert ((320,), (320,)) not in kernel.verified_shapes
    gate, up = torch.randn(16, 64), torch.randn(16, 64)
    torch.testing.assert_close(fast(gate, up), swiglu(gate, up))
    assert [shapes[0] for shapes in launches] == [(16 * 64,)]  # the verified shape still runs the (1-D) kernel


def _refused(*args, **kwargs):
    raise UnsupportedFunction("no candidate kernel passed verification (refused by the test)")


def test_alternating_batch_sizes_each_get_their_own_verified_route(tmp_path, monkeypatch):
    fast, kernel = _hit(tmp_path)
    launches = _launches(monkeypatch)
    for rows in (5, 16, 5, 16, 5):
        gate, up = torch.randn(rows, 64), torch.randn(rows, 64)
        torch.testing.assert_close(fast(gate, up), swiglu(gate, up))
    assert [shapes[0] for shapes in launches[-5:]] == [(320,), (1024,), (320,), (1024,), (320,)]  # 1-D kernel
    assert ((320,), (320,)) in kernel.verified_shapes


def test_modules_run_with_their_parameters_as_inputs(tmp_path):
    class RMSNorm(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.rand(64) + 0.5)

        @ascend_kernel(variants=1, cache_dir=tmp_path, progress=False)
        def forward(self, x):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight

    norm, x = RMSNorm(), torch.randn(8, 64)
    with torch.no_grad():
        expected = type(norm).forward.__wrapped__(norm, x)
        torch.testing.assert_close(norm(x), expected)
        norm.weight.mul_(2)  # new weights, same kernel: parameters are inputs, not constants
        torch.testing.assert_close(norm(x), type(norm).forward.__wrapped__(norm, x))
        norm.weight = torch.nn.Parameter(norm.weight.double())  # a parameter's dtype is part of the signature
        with pytest.warns(AscendGenWarning, match="float64"):
            result = norm(x)
        assert result.dtype == torch.float64
        torch.testing.assert_close(result, type(norm).forward.__wrapped__(norm, x))


def inverse_rows(x):
    """A function the built-in generator has no kernel for (a matrix inverse: a library call)."""
    return torch.linalg.inv(x).sum(-1)


def test_unsupported_functions_fall_back_with_one_warning_and_equal_results(tmp_path):
    fast = ascend_kernel(inverse_rows, variants=1, cache_dir=tmp_path, progress=False)
    x = torch.randn(4, 3, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first, second = fast(x), fast(x)
    assert torch.equal(first, inverse_rows(x)) and torch.equal(second, first)
    messages = [str(w.message) for w in caught if issubclass(w.category, AscendGenWarning)]
    assert len(messages) == 1 and "aten.linalg_inv" in messages[0]
    assert caught[0].filename == __file__  # the warning points at the caller


def test_route_says_what_each_signature_runs_and_why(tmp_path):
    fast = ascend_kernel(inverse_rows, variants=1, cache_dir=tmp_path, progress=False)
    x = torch.randn(4, 3, 3)
    assert fast.route(x) == ("unseen", "")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast(x)
        fast(torch.randn(8, 3, 3))  # the same reason again: the warning is not repeated, the route still says it
    kind, reason = fast.route(torch.randn(8, 3, 3))
    assert kind == "original" and "aten.linalg_inv" in reason
    doubled = ascend_kernel(lambda t: t * 2 + 1, variants=1, cache_dir=tmp_path, progress=False)
    doubled(x)
    assert doubled.route(x) == ("kernel", "")


def test_strict_mode_raises_with_the_reason(tmp_path):
    fast = ascend_kernel(inverse_rows, strict=True, cache_dir=tmp_path, progress=False)
    with pytest.raises(UnsupportedFunction, match="does not know aten.linalg_inv"):
        fast(torch.randn(4, 3, 3))
    with pytest.raises(UnsupportedFunction):  # every time: a refusal is not remembered as a fallback
        fast(torch.randn(4, 3, 3))


def test_grad_and_mutation_run_as_the_original(tmp_path):
    fast = ascend_kernel(swiglu, variants=1, cache_dir=tmp_path, progress=False)
    gate = torch.randn(4, 32, requires_grad=True)
    with pytest.warns(AscendGenWarning, match="require grad"):
        out = fast(gate, torch.randn(4, 32))
    out.sum().backward()
    assert gate.grad is not None

    def scale_in_place(x):
        x.mul_(2)
        return x + 1

    x = torch.ones(3)
    with pytest.warns(AscendGenWarning, match="in place"):
        result = ascend_kernel(scale_in_place, cache_dir=tmp_path, progress=False)(x)
    assert torch.equal(x, torch.full((3,), 2.0)) and torch.equal(result, torch.full((3,), 3.0))


def test_batchnorm_in_training_mode_runs_as_the_original(tmp_path):
    bn = torch.nn.BatchNorm1d(8).train()
    fast = ascend_kernel(lambda x: bn(x), cache_dir=tmp_path, progress=False)
    x = torch.randn(16, 8)
    with torch.no_grad(), pytest.warns(AscendGenWarning):
        fast(x)
    assert bn.num_batches_tracked.item() == 1  # its statistics were updated, as the original does


def test_a_crashing_or_hanging_variant_costs_only_itself(monkeypatch):
    monkeypatch.setenv("TORCH_ASCENDGEN_RUN_TIMEOUT", "10")
    function = swiglu
    inputs = [torch.randn(8, 64), torch.randn(8, 64)]
    task = capture(function, inputs)
    from torch_ascendgen.generators.builtin.generator import generate_builtin

    good = generate_builtin(task, 1)[0]
    crash = Candidate(good.source.replace("GET_TILING_DATA(t, tiling);",
                                          "GET_TILING_DATA(t, tiling); *(volatile int*)nullptr = 1;"), "test")
    hang = Candidate(good.source.replace("GET_TILING_DATA(t, tiling);",
                                         "GET_TILING_DATA(t, tiling); for (volatile int i = 0; i >= 0; i = i * 1) {}"),
                     "test", {"hang": 1})
    sets = make_input_sets(task.inputs, task.traced_shapes)
    result = search(task, function, [crash, hang, good], sets, None, sim_target("Ascend910B2"))
    crashed, hung, passed = result.records
    assert "SIGSEGV" in crashed.failure and "did not finish" in hung.failure
    assert result.winner is passed and passed.ok


def _run_script(code: str, cache_dir: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, TORCH_ASCENDGEN_CACHE_DIR=str(cache_dir), TORCH_ASCENDGEN_PROGRESS="0",
               TORCH_ASCENDGEN_VARIANTS="1")
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                          cwd=ROOT, timeout=600)


SCRIPT = """
    import torch, torch.nn.functional as F
    from torch_ascendgen import ascend_kernel
    @ascend_kernel
    def swiglu(gate, up):
        return F.gelu(gate, approximate="tanh") * up
    torch.manual_seed(0)
    gate, up = torch.randn(16, 64), torch.randn(16, 64)
    assert torch.allclose(swiglu(gate, up), F.gelu(gate, approximate="tanh") * up, atol=1e-5)
    print("ORIGIN", swiglu.kernels()[0].origin)
"""


def test_two_processes_cold_starting_at_once_generate_once_and_a_third_reuses(tmp_path):
    env = dict(os.environ, TORCH_ASCENDGEN_CACHE_DIR=str(tmp_path), TORCH_ASCENDGEN_PROGRESS="0",
               TORCH_ASCENDGEN_VARIANTS="1")
    processes = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(SCRIPT)], env=env, cwd=ROOT,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [p.communicate(timeout=600) for p in processes]
    assert all(p.returncode == 0 for p in processes), outputs
    origins = sorted(line.split()[1] for out, _ in outputs for line in out.splitlines() if line.startswith("ORIGIN"))
    assert origins == ["cache", "search"]
    third = _run_script(SCRIPT, tmp_path)
    assert third.returncode == 0 and "ORIGIN cache" in third.stdout, third.stderr


def test_a_corrupt_cache_entry_is_detected_and_rebuilt(tmp_path):
    first = _run_script(SCRIPT, tmp_path)
    assert "ORIGIN search" in first.stdout, first.stderr
    (library,) = (tmp_path / "kernels").rglob("kernel.so")
    library.write_bytes(library.read_bytes()[:1000])  # truncated
    second = _run_script(SCRIPT, tmp_path)
    assert second.returncode == 0 and "ORIGIN search" in second.stdout, second.stderr
    assert "corrupt" in second.stderr.lower()
    (meta,) = [p for p in (tmp_path / "kernels").rglob("meta.json") if ".corrupt" not in str(p)]
    meta.write_text("{not json")
    third = _run_script(SCRIPT, tmp_path)
    assert third.returncode == 0 and "ORIGIN search" in third.stdout, third.stderr


def test_when_every_template_kernel_fails_verification_the_general_lowering_gets_its_turn(tmp_path, monkeypatch):
    from torch_ascendgen.generators.builtin import generator

    real = generator._template_candidates

    def wrong_templates(task, variants):  # a template that gets the function wrong: another function's kernel
        return real(capture(lambda x, y: x * y + 1, [torch.randn(4, 64), torch.randn(4, 64)]), variants)

    monkeypatch.setattr(generator, "_template_candidates", wrong_templates)
    fast = ascend_kernel(lambda x, y: x * y - 1, variants=1, cache_dir=tmp_path, progress=False, strict=True)
    x, y = torch.randn(8, 64), torch.randn(8, 64)
    torch.testing.assert_close(fast(x, y), x * y - 1)
    (kernel,) = fast.kernels()
    candidates = kernel.entry.meta["candidates"]
    assert [c["ok"] for c in candidates] == [False, True], candidates
    assert kernel.entry.meta["generator"].startswith("builtin-loops-")



def moe_gating(logits):
    """Mixtral-style routing: a softmax, its top-k (unsorted, as vLLM asks), the weights renormalized."""
    weights = torch.softmax(logits, dim=-1, dtype=torch.float)
    top, ids = torch.topk(weights, 2, sorted=False)
    return (top / top.sum(-1, keepdim=True)).to(logits.dtype), ids


def test_a_function_that_sorts_around_other_work_runs_a_kernel_per_stage(tmp_path, monkeypatch):
    fast = ascend_kernel(moe_gating, cache_dir=tmp_path, progress=False, strict=True)
    fast(torch.randn(64, 8, dtype=torch.bfloat16))  # the first call: stages captured, generated, verified
    logits = torch.randn(64, 8, dtype=torch.bfloat16)
    launches = _launches(monkeypatch)
    weights, ids = fast(logits)
    expected_weights, expected_ids = moe_gating(logits)
    assert torch.equal(ids, expected_ids)
    torch.testing.assert_close(weights, expected_weights)
    templates = sorted(k.entry.meta["winner"]["variant"]["template"] for k in fast.kernels())
    assert "sort" in templates and len(templates) == 3, templates
    assert len(launches) == 3  # the call ran the stages' kernels, one launch each


def qkv_split(qkv):
    """ViT attention's input: q scaled (computed), k and v views of the input, as timm returns them."""
    q, k, v = qkv.reshape(qkv.shape[0], qkv.shape[1], 3, 4, -1).permute(2, 0, 3, 1, 4).unbind(0)
    return q * 0.125, k, v


def test_outputs_that_are_views_of_inputs_stay_views_and_the_computed_ones_get_a_kernel(tmp_path, monkeypatch):
    fast = ascend_kernel(qkv_split, cache_dir=tmp_path, progress=False, strict=True)
    qkv = torch.randn(2, 5, 3 * 32)
    fast(qkv)
    launches = _launches(monkeypatch)
    q, k, v = fast(qkv)
    expected = qkv_split(qkv)
    assert torch.equal(q, expected[0]) and torch.equal(k, expected[1]) and torch.equal(v, expected[2])
    assert k.untyped_storage().data_ptr() == qkv.untyped_storage().data_ptr() == v.untyped_storage().data_ptr()
    assert q.untyped_storage().data_ptr() != qkv.untyped_storage().data_ptr() and len(launches) == 1


def lrn(x):
    return F.local_response_norm(x, size=5)


def test_shapes_the_generic_kernel_declines_get_a_kernel_of_their_own(tmp_path):
    """The window's padding guard holds for 16 channels, not for 3: the generic kernel declines [2, 3, 4, 4], and
    the function traced for those shapes alone gets its own kernel."""
    fast = ascend_kernel(lrn, cache_dir=tmp_path, progress=False, strict=True)
    wide, narrow = torch.randn(2, 16, 4, 4), torch.randn(2, 3, 4, 4)
    torch.testing.assert_close(fast(wide), lrn(wide))
    torch.testing.assert_close(fast(narrow), lrn(narrow))
    assert fast.route(narrow) == ("kernel", "") and len(fast.kernels()) == 2
    assert [k.runner.task.specialized for k in fast.kernels()] == [False, True]


def test_an_expanded_input_runs_the_original_instead_of_being_copied_out(tmp_path):
    fast = ascend_kernel(swiglu, cache_dir=tmp_path, progress=False)
    gate, up = torch.randn(1, 64).expand(4096, 64), torch.randn(4096, 64)  # 64 floats seen 4096 times
    with pytest.warns(AscendGenWarning, match="share memory"):
        result = fast(gate, up)
    assert torch.equal(result, swiglu(gate, up))
