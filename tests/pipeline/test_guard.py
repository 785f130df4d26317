"""The guard: in default mode no failure of ours reaches the caller; strict mode raises typed errors.

Failures are injected where they could really happen (capture, the pipeline, a kernel at run time, a signature
that cannot be keyed) and the call must return the original function's result, with one AscendGenWarning that
names the cause, and must not retry on every call. Exceptions of the user's own function stay the caller's.
"""

import warnings

import numpy as np
import pytest
import torch

import torch_ascendgen.frontends.decorator as api
import torch_ascendgen.frontends.dispatch as dispatch
from torch_ascendgen import AscendGenWarning, ascend_kernel, last_report
from torch_ascendgen.errors import InternalError, UnsupportedFunction


def scale_shift(x, y):
    return x * 2.0 + y


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("guard-cache")


def _calls(function, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(*args)
    return result, [w for w in caught if issubclass(w.category, AscendGenWarning)]


def _counting(monkeypatch, name: str, error: Exception) -> list:
    calls = []

    def broken(*args, **kwargs):
        calls.append(args)
        raise error
    monkeypatch.setattr(dispatch, name, broken)
    return calls


def test_an_internal_error_becomes_the_original_result_and_one_warning_naming_it(monkeypatch, cache_dir):
    calls = _counting(monkeypatch, "capture", RuntimeError("self.dim() cannot be 0"))
    fast = ascend_kernel(scale_shift, cache_dir=cache_dir, progress=False, strict=False)
    x, y = torch.randn(4, 8), torch.randn(4, 8)
    result, said = _calls(fast, x, y)
    torch.testing.assert_close(result, scale_shift(x, y))
    assert len(said) == 1
    text = str(said[0].message)
    assert "RuntimeError: self.dim() cannot be 0" in text and "bug in torch_ascendgen" in text
    assert "test_guard.py" not in text and " at " in text  # where in our code it happened
    assert said[0].filename == __file__  # the warning points at the caller's line
    result, said = _calls(fast, x, y)
    torch.testing.assert_close(result, scale_shift(x, y))
    assert said == [] and len(calls) == 1  # the signature is remembered: no retry, no second warning


def test_strict_mode_raises_a_typed_error_with_the_cause(monkeypatch, cache_dir):
    _counting(monkeypatch, "compile_task", KeyError("entry"))
    fast = ascend_kernel(scale_shift, cache_dir=cache_dir, progress=False, strict=True)
    with pytest.raises(InternalError, match="KeyError") as raised:
        fast(torch.randn(4, 8), torch.randn(4, 8))
    assert isinstance(raised.value.__cause__, KeyError)


def test_the_functions_own_exception_reaches_the_caller_unwarned(cache_dir):
    def picky(x):
        if x.shape[0] != 3:
            raise ValueError("expects three rows")
        return x + 1

    fast = ascend_kernel(picky, cache_dir=cache_dir, progress=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="expects three rows"):
            fast(torch.randn(5, 4))
    assert not [w for w in caught if issubclass(w.category, AscendGenWarning)]


def test_a_kernel_that_fails_at_run_time_hands_over_to_the_original_for_good(monkeypatch, cache_dir):
    fast = ascend_kernel(scale_shift, cache_dir=cache_dir, progress=False)
    x, y = torch.randn(4, 8), torch.randn(4, 8)
    _, said = _calls(fast, x, y)
    assert said == [] and fast.kernels()  # a kernel route, now also the fast path's
    route = next(iter(fast._dispatch.values()))
    failures = []

    def failing(args):
        failures.append(args)
        raise RuntimeError("device lost")
    fast._dispatch = {key: api._Route(failing, (*r.recent[:3], failing)) for key, r in fast._dispatch.items()}
    fast._recent = (*route.recent[:3], failing)
    result, said = _calls(fast, x, y)  # the fast path
    torch.testing.assert_close(result, scale_shift(x, y))
    assert len(said) == 1 and "device lost" in str(said[0].message)
    result, said = _calls(fast, x, y)
    torch.testing.assert_close(result, scale_shift(x, y))
    assert said == [] and len(failures) == 1


def test_an_argument_that_cannot_be_keyed_runs_the_original(cache_dir):
    def scaled(x, factors):
        return x * float(factors.sum())

    fast = ascend_kernel(scaled, cache_dir=cache_dir, progress=False)
    x, factors = torch.randn(3, 5), np.array([1.0, 2.0])  # an ndarray is not hashable
    result, said = _calls(fast, x, factors)
    torch.testing.assert_close(result, scaled(x, factors))
    assert len(said) == 1 and "pass arrays as tensors" in str(said[0].message)


@pytest.mark.parametrize("shapes", [((), ()), ((6, 7), ()), ((), (1,))], ids=["0-dim", "with-0-dim", "0-dim-and-1"])
def test_zero_dim_tensors_get_a_kernel(shapes, cache_dir):
    fast = ascend_kernel(scale_shift, cache_dir=cache_dir, progress=False)
    x, y = torch.randn(shapes[0]), torch.tensor(3.14).reshape(shapes[1])
    result, said = _calls(fast, x, y)
    assert said == [] and fast.kernels()
    assert result.shape == scale_shift(x, y).shape
    torch.testing.assert_close(result, scale_shift(x, y))


def test_empty_tensors_run_the_original_quietly_when_we_fail(cache_dir, monkeypatch):
    calls = _counting(monkeypatch, "capture", AssertionError("capture failed"))
    fast = ascend_kernel(scale_shift, cache_dir=cache_dir, progress=False, strict=True)
    x, y = torch.randn(0, 8), torch.randn(0, 8)
    result, said = _calls(fast, x, y)  # strict mode too: there is nothing for a kernel to compute
    assert said == [] and len(calls) == 1 and result.shape == (0, 8)


def test_refusals_keep_their_own_type_in_strict_mode(cache_dir):
    fast = ascend_kernel(lambda x: torch.linalg.inv(x).sum(), cache_dir=cache_dir, progress=False, strict=True)
    with pytest.raises(UnsupportedFunction):
        fast(torch.randn(4, 3, 3))


# ---- the torch.compile backend -------------------------------------------------------------------------


class BiasGelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(64))

    def forward(self, x):
        return torch.nn.functional.gelu(x + self.bias) * 0.5


@pytest.fixture
def compile_options(cache_dir):
    torch._dynamo.reset()
    yield {"variants": 1, "progress": False, "cache_dir": str(cache_dir)}
    torch._dynamo.reset()


def test_backend_keeps_a_region_eager_when_its_kernel_is_estimated_slower(monkeypatch, compile_options):
    import torch_ascendgen.frontends.dynamo.region as region

    monkeypatch.setattr(region, "_kernel_ns", lambda compiled, tensors: 1e9)
    model = BiasGelu().eval()
    x = torch.randn(8, 64)
    with torch.no_grad():
        torch.testing.assert_close(torch.compile(model, backend="ascendgen", options=compile_options)(x), model(x))
    report = last_report()
    assert report.regions and not report.kernels
    assert "not faster than eager" in report.regions[0].reason


def test_backend_region_whose_kernel_fails_at_run_time_runs_eagerly(monkeypatch, compile_options):
    from torch_ascendgen.frontends.dynamo.region import RegionRunner

    runners = []
    made = RegionRunner.__init__

    def recording(self, *args, **kwargs):
        made(self, *args, **kwargs)
        runners.append(self)
    monkeypatch.setattr(RegionRunner, "__init__", recording)
    model = BiasGelu().eval()
    compiled = torch.compile(model, backend="ascendgen", options=compile_options)
    x = torch.randn(8, 64)
    with torch.no_grad():
        compiled(x)
    kernels = [runner for runner in runners if runner.report.kernel]
    assert kernels
    broken = []

    def failing(inputs):
        broken.append(inputs)
        raise RuntimeError("device lost")
    for runner in kernels:
        runner.dispatch = {key: failing for key in runner.dispatch}
    with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.testing.assert_close(compiled(x), model(x))
        torch.testing.assert_close(compiled(x), model(x))
    said = [w for w in caught if issubclass(w.category, AscendGenWarning)]
    assert len(broken) == len(kernels) and len(said) == len(kernels)
    assert "device lost" in str(said[0].message)


def test_backend_internal_failure_runs_the_graph_as_given(monkeypatch, compile_options):
    import torch_ascendgen.frontends.dynamo.backend as backend

    def broken(*args, **kwargs):
        raise RuntimeError("aot failed")
    monkeypatch.setattr(backend, "_backend", broken)
    model = BiasGelu().eval()
    x = torch.randn(8, 64)
    with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.testing.assert_close(torch.compile(model, backend="ascendgen", options=compile_options)(x), model(x))
    said = [w for w in caught if issubclass(w.category, AscendGenWarning)]
    assert len(said) == 1 and "aot failed" in str(said[0].message)


def test_backend_keeps_std_one_op_so_eager_regions_compute_what_the_model_does(compile_options):
    """PyTorch's std accumulates in double; written out as sqrt(var) it would overflow float32 on this input."""
    def spread(x):
        return x.std(dim=0) - x.mean(dim=0)

    x = torch.tensor([[3.4e38, 0.0], [1.0, 2.0]])
    with torch.no_grad():
        got = torch.compile(spread, backend="ascendgen", options=compile_options)(x)
    torch.testing.assert_close(got, spread(x))
    assert torch.isfinite(got[0])
