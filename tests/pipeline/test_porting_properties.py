"""Default mode never raises, never differs from the original, never blows the caller's memory (issue 11).

For each snippet of real model-porting code (tests/porting_corpus.py; one hypothesis test per snippet, so
every snippet is exercised however the examples fall), hypothesis draws a rank (0-8 where the snippet allows), sizes
including 0 and 1, a float dtype and the snippet's int/bool dtypes, a layout per input (contiguous, transposed, a
strided slice, channels_last for 4-d) and edge values (0, +-inf, NaN, huge, a value whose square overflows, the dtype's
max, tiny, subnormal) where the snippet is numeric. The decorated function (default mode, one variant) and the
torch.compile backend must then return what the original returns, warn only with AscendGenWarning, let no exception
escape, and keep the caller's peak memory within a bound.

Examples whose ORIGINAL raises are skipped (``assume(False)``): those inputs are not ours to handle.

One allowance: kernels round every float16/bfloat16 op's result as eager does (README, "Numerics"), but a
math function's last float32 bits may differ from eager's and round the other way. An element of a
float16/bfloat16 output therefore also passes when it matches the same function run on float32 inputs and
rounded once to the output dtype; float32, int and bool outputs must match the original itself.
Each decorated call is made twice: the first call of a signature prepares it (capture, search or cache,
verification) and the second takes the prepared route (the kernel, or the original after a fallback), so
both paths are held to the property. Cost: the first call of a new signature searches kernels (a few
seconds of C++ builds); one cache directory serves the session, sizes stay at a few thousand elements.

Profiles: three examples per snippet (two per torch.compile case), derandomized, and no example database is
written, so CI and every local run see the same examples in about two minutes;
TORCH_ASCENDGEN_PORTING_EXPLORE=N runs N fresh random examples per snippet instead (bug hunting).
"""

from __future__ import annotations

import copy
import math
import os
import resource
import warnings
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import torch
import torch.utils._pytree as pytree
from hypothesis import HealthCheck, assume, event, given, note, settings
from hypothesis import strategies as st

from porting_corpus import CORPUS, FLOAT, INDEX, INT, MASK, UNIQUE, Snippet
from torch_ascendgen import AscendGenWarning, ascend_kernel
from torch_ascendgen.evaluate.verify import default_tolerance

ELEMENT_BUDGET = 2048  # elements of the drawn dims; a snippet's inputs are at most a few times that
MAX_DIM = 40
NARROW = (torch.float16, torch.bfloat16)
LAYOUTS = ("contiguous", "transposed", "strided", "channels_last")
# The caller's peak RSS may grow by at most this much in one call. Legitimate growth is the kernel runtime
# and a kernel library loaded once, torch.library registrations, the traced graph and the verification input
# sets of the new shape (at most 2**20 elements each, float64 references included: tens of MB); searches run
# in child processes, which RUSAGE_SELF does not count. 2 GB is ten times that and a twelfth of the
# machine: crossing it means a runaway allocation in the caller, the failure issue 11 names.
PEAK_GROWTH_BYTES = 2 << 30

_EXPLORE = int(os.environ.get("TORCH_ASCENDGEN_PORTING_EXPLORE", "0"))
_SLOW_BY_DESIGN = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]
settings.register_profile("porting-fixed", max_examples=3, derandomize=True, database=None, deadline=None,
                          suppress_health_check=_SLOW_BY_DESIGN, print_blob=True)
settings.register_profile("porting-explore", max_examples=max(_EXPLORE, 1), derandomize=False, database=None,
                          deadline=None, suppress_health_check=_SLOW_BY_DESIGN, print_blob=True)
PROFILE = settings.get_profile("porting-explore" if _EXPLORE else "porting-fixed")
COMPILE_PROFILE = settings(PROFILE, max_examples=_EXPLORE or 2)


@pytest.fixture(scope="session")
def kernel_dir(tmp_path_factory) -> str:
    """One kernel cache for the session: a signature searched once is a hit for every later example."""
    return str(tmp_path_factory.mktemp("porting_kernels"))


# ---- drawing cases ------------------------------------------------------------------------------------------


@dataclass
class Case:
    """One drawn example: a snippet and everything that decides its inputs."""

    snippet: Snippet
    dims: tuple[int, ...]
    float_dtype: torch.dtype
    int_dtype: torch.dtype
    layouts: tuple[str, ...]
    edges: tuple[str, ...]
    edge_sign: float
    seed: int

    def inputs(self) -> list[torch.Tensor]:
        generator = torch.Generator().manual_seed(self.seed ^ zlib.crc32(self.snippet.name.encode()))
        return [_layout(_values(self, arg, generator), layout) for arg, layout in zip(self.snippet.args, self.layouts)]

    def module(self) -> torch.nn.Module | None:
        return None if self.snippet.module is None else self.snippet.module(self.dims, self.float_dtype)

    def __repr__(self) -> str:
        return (f"Case({self.snippet.name}, dims={self.dims}, float={self.float_dtype}, int={self.int_dtype}, "
                f"layouts={self.layouts}, edges={self.edges}, sign={self.edge_sign}, seed={self.seed})")


def _max_dim(rank: int) -> int:
    return max(1, min(MAX_DIM, int(ELEMENT_BUDGET ** (1 / rank)))) if rank else 1


@st.composite
def cases(draw, snippets: tuple[Snippet, ...] = CORPUS) -> Case:
    snippet = draw(st.sampled_from(snippets))
    rank = draw(st.integers(*snippet.ranks))
    dims = draw(st.lists(st.integers(1, _max_dim(rank)), min_size=rank, max_size=rank))
    if rank and draw(st.integers(0, 5)) == 0:  # one example in six has a zero-size dim
        dims[draw(st.integers(0, rank - 1))] = 0
    strided = draw(st.booleans())  # half the examples contiguous throughout, so that kernels run
    layouts = tuple(draw(st.sampled_from(LAYOUTS)) if strided else LAYOUTS[0] for _ in snippet.args)
    edges = tuple(draw(st.lists(st.sampled_from(snippet.edges), max_size=3, unique=True))) if snippet.edges else ()
    return Case(snippet, tuple(dims), draw(st.sampled_from(snippet.float_dtypes)),
                draw(st.sampled_from(snippet.int_dtypes)), layouts, edges, draw(st.sampled_from((1.0, -1.0))),
                draw(st.integers(0, 2**31 - 1)))


def _values(case: Case, arg, generator: torch.Generator) -> torch.Tensor:
    shape = arg.shape(case.dims)
    if arg.role == FLOAT:
        return _with_edges(torch.randn(shape, generator=generator).to(case.float_dtype), case, generator)
    if arg.role == MASK:
        return torch.rand(shape, generator=generator) < 0.5
    if arg.role == INDEX:
        return torch.randint(0, max(arg.high(case.dims), 1), shape, generator=generator)
    if arg.role == UNIQUE:
        return torch.randperm(max(arg.high(case.dims), 1), generator=generator)[:math.prod(shape)].reshape(shape)
    assert arg.role == INT, arg.role
    return _integers(arg, shape, case.int_dtype, generator)


def _integers(arg, shape: tuple[int, ...], dtype: torch.dtype, generator: torch.Generator) -> torch.Tensor:
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=generator).bool()
    info = torch.iinfo(dtype)
    low, high = max(arg.values[0], info.min), min(arg.values[1], info.max + 1)
    values = torch.randint(low, high, shape, generator=generator)
    if arg.nonzero:
        values[values == 0] = 1
    return values.to(dtype)


def _edge_value(kind: str, dtype: torch.dtype, sign: float) -> float:
    """One sign per example for the big and small magnitudes: +huge and -huge in one row cancel, and what is
    left then depends on the summation order, which no two correct reductions need share."""
    info = torch.finfo(dtype)
    fixed = {"zero": 0.0, "inf": math.inf, "-inf": -math.inf, "nan": math.nan}
    if kind in fixed:
        return fixed[kind]
    magnitude = {"huge": 1e4 if dtype == torch.float16 else 1e15, "big": 2 * info.max ** 0.5, "max": info.max,
                 "tiny": info.smallest_normal, "subnormal": info.smallest_normal / 4}[kind]
    return sign * magnitude


def _with_edges(tensor: torch.Tensor, case: Case, generator: torch.Generator) -> torch.Tensor:
    flat = tensor.view(-1)
    for kind in case.edges:
        if flat.numel():
            flat[int(torch.randint(0, flat.numel(), (), generator=generator))] = _edge_value(kind, tensor.dtype,
                                                                                            case.edge_sign)
    return tensor


def _layout(tensor: torch.Tensor, layout: str) -> torch.Tensor:
    """The same values in another memory layout; the bytes a view skips hold NaN (floats) or zeros."""
    fill = math.nan if tensor.dtype.is_floating_point else 0
    if layout == "transposed" and tensor.dim() >= 2:
        shape = (*tensor.shape[:-2], tensor.shape[-1], tensor.shape[-2])
        base = torch.full(shape, fill, dtype=tensor.dtype).transpose(-1, -2)
    elif layout == "strided" and tensor.dim() >= 1:
        base = torch.full((*tensor.shape[:-1], 2 * tensor.shape[-1]), fill, dtype=tensor.dtype)[..., ::2]
    elif layout == "channels_last" and tensor.dim() == 4:
        base = torch.empty_like(tensor, memory_format=torch.channels_last)
    else:
        return tensor
    return base.copy_(tensor)


# ---- the properties ---------------------------------------------------------------------------------------


def _run_original(call: Callable[[], Any]) -> tuple[Any, set[tuple[type, str]]]:
    """The original's result and the warnings it raises itself; skips the example if the original raises."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            result = call()
        except Exception as exc:  # noqa: BLE001 - inputs the original rejects are not ours to handle
            note(f"the original raises {type(exc).__name__}: {exc}")
            assume(False)
    return result, {(w.category, str(w.message)) for w in seen}


def _peak_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB


def _run_ours(call: Callable[[], Any], allowed: set[tuple[type, str]], what: str) -> Any:
    """Our call: no exception escapes, only AscendGenWarning (or the original's own warnings), bounded peak.
    Each AscendGenWarning's reason becomes a hypothesis event (``--hypothesis-show-statistics``)."""
    before = _peak_bytes()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            result = call()
        except Exception as exc:
            raise AssertionError(f"{what}: an exception escaped default mode: {type(exc).__name__}: {exc}") from exc
    grown = _peak_bytes() - before
    assert grown <= PEAK_GROWTH_BYTES, f"{what}: the caller's peak memory grew by {grown / 2**30:.2f} GiB"
    foreign = [f"{w.category.__name__}: {w.message} ({w.filename}:{w.lineno})" for w in seen
               if not issubclass(w.category, AscendGenWarning) and (w.category, str(w.message)) not in allowed]
    assert not foreign, f"{what}: warnings other than AscendGenWarning: {foreign}"
    for w in seen:
        if issubclass(w.category, AscendGenWarning):
            event(f"fallback: {str(w.message).partition(': ')[2][:90]}")
    return result


def assert_same(got: Any, expected: Any, what: str, wide: Callable[[], Any] | None = None) -> None:
    """Same structure, and each tensor the same shape, dtype and device; ints and bools bitwise, floats within
    verify.default_tolerance of their dtype with NaN (and inf) at the same positions. ``wide`` gives the function's
    result on float32 inputs: the README's allowance for float16/bfloat16 outputs (see the module docstring)."""
    got_leaves, got_tree = pytree.tree_flatten(got)
    expected_leaves, expected_tree = pytree.tree_flatten(expected)
    assert got_tree == expected_tree, f"{what}: structure {got_tree} != the original's {expected_tree}"
    for index, (g, e) in enumerate(zip(got_leaves, expected_leaves)):
        where = f"{what}: output {index}"
        if not isinstance(e, torch.Tensor):
            assert g == e or (g != g and e != e), f"{where}: {g!r} != the original's {e!r}"
            continue
        assert isinstance(g, torch.Tensor), f"{where}: {type(g).__name__}, the original returns a tensor"
        assert (g.shape, g.dtype, g.device) == (e.shape, e.dtype, e.device), \
            f"{where}: {tuple(g.shape)} {g.dtype} {g.device} != the original's {tuple(e.shape)} {e.dtype} {e.device}"
        _assert_values(g, e, where, lambda index=index, e=e: _wide_leaf(wide, index, e))


def _assert_values(got: torch.Tensor, expected: torch.Tensor, where: str,
                   wide: Callable[[], torch.Tensor | None]) -> None:
    if not expected.dtype.is_floating_point:
        bad = got != expected
        assert not bad.any(), f"{where}: {int(bad.sum())} of {bad.numel()} values differ; first at " \
                              f"{_first(bad)}: {got[bad][0].item()} != the original's {expected[bad][0].item()}"
        return
    bad = _not_close(got, expected)
    rounded_once = wide() if bad.any() and expected.dtype in NARROW else None
    if rounded_once is not None:
        bad &= _not_close(got, rounded_once)
    assert not bad.any(), (f"{where}: {int(bad.sum())} of {bad.numel()} values differ beyond "
                           f"{default_tolerance(expected.dtype)}; first at {_first(bad)}: {got[bad][0].item()!r} != "
                           f"the original's {expected[bad][0].item()!r}"
                           + ("" if rounded_once is None
                              else f" (float32, rounded once: {rounded_once[bad][0].item()!r})"))


def _not_close(got: torch.Tensor, expected: torch.Tensor) -> torch.Tensor:
    tolerance = default_tolerance(expected.dtype)
    return ~torch.isclose(got.double(), expected.double(), rtol=tolerance.rtol, atol=tolerance.atol, equal_nan=True)


def _wide_leaf(wide: Callable[[], Any] | None, index: int, expected: torch.Tensor) -> torch.Tensor | None:
    """Output ``index`` of the float32 run, rounded once to the original's dtype; None if there is no such output."""
    leaves = pytree.tree_leaves(wide()) if wide is not None else []
    if index >= len(leaves) or not isinstance(leaves[index], torch.Tensor) or leaves[index].shape != expected.shape:
        return None
    return leaves[index].to(expected.dtype)


def _in_float32(function: Callable, module: torch.nn.Module | None, inputs: list[torch.Tensor]) -> Callable[[], Any]:
    """The same call with float16/bfloat16 inputs (and module state) in float32, memoised; None if it raises."""
    memo: list = []

    def run():
        if not memo:
            wide_inputs = [t.float() if t.dtype in NARROW else t for t in inputs]
            wide_module = None if module is None else copy.deepcopy(module).float()
            try:
                memo.append(_bound(function, wide_module, wide_inputs)())
            except Exception:  # noqa: BLE001 - no float32 run, no allowance
                memo.append(None)
        return memo[0]
    return run


def _first(mask: torch.Tensor) -> tuple[int, ...]:
    return tuple(int(i) for i in mask.nonzero()[0]) if mask.dim() else ()


def _snapshot(tensors: list[torch.Tensor]) -> list[torch.Tensor]:
    return [t.clone() for t in tensors]


def _assert_unchanged(tensors: list[torch.Tensor], before: list[torch.Tensor], what: str) -> None:
    for index, (now, then) in enumerate(zip(tensors, before)):
        assert torch.equal(_bits(now), _bits(then)), f"{what}: input {index} was modified"


def _bits(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.clone(memory_format=torch.contiguous_format).reshape(-1).view(torch.uint8)


_DECORATED: dict[str, Callable] = {}


def _decorated(snippet: Snippet, kernel_dir: str) -> Callable:
    """One decorated function per snippet for the session, as a user keeps one: later examples reuse its
    dispatch table and kernels, as a model's later calls do."""
    if snippet.name not in _DECORATED:
        _DECORATED[snippet.name] = ascend_kernel(snippet.function, variants=1, progress=False, cache_dir=kernel_dir)
    return _DECORATED[snippet.name]


def _bound(function: Callable, module: torch.nn.Module | None, inputs: list[torch.Tensor]) -> Callable[[], Any]:
    return (lambda: function(*inputs)) if module is None else (lambda: function(module, *inputs))


def check_decorated(case: Case, kernel_dir: str) -> None:
    """The whole property for one case of the decorator: used by the test and by exploration scripts."""
    note(repr(case))
    inputs, module = case.inputs(), case.module()
    before = _snapshot(inputs)
    expected, allowed = _run_original(_bound(case.snippet.function, module, inputs))
    _assert_unchanged(inputs, before, "the original")  # snippets are pure; a check of the corpus itself
    decorated = _decorated(case.snippet, kernel_dir)
    wide = _in_float32(case.snippet.function, module, inputs)
    for attempt in ("first call", "second call"):
        what = f"{case.snippet.name} ({attempt})"
        got = _run_ours(_bound(decorated, module, inputs), allowed, what)
        assert_same(got, expected, what, wide)
        _assert_unchanged(inputs, before, what)
    event(f"kernels used by {case.snippet.name} so far: {len(decorated.kernels())}")


@pytest.mark.parametrize("snippet", CORPUS, ids=lambda snippet: snippet.name)
@settings(PROFILE)
@given(data=st.data())
def test_the_decorator_in_default_mode_matches_the_original(snippet, data, kernel_dir):
    with torch.no_grad():
        check_decorated(data.draw(cases((snippet,)), label="case"), kernel_dir)


# ---- torch.compile(backend="ascendgen") ----------------------------------------------------------------------

COMPILED = tuple(snippet for snippet in CORPUS if snippet.compile)


def _compiled(snippet: Snippet, module: torch.nn.Module | None, backend: str, options: dict | None) -> Callable:
    target = snippet.function if module is None else module
    return torch.compile(target, backend=backend, options=options)


def check_compiled(case: Case, kernel_dir: str) -> None:
    """The property for torch.compile(backend="ascendgen"): dynamo may break graphs; the result must not change.
    Warnings dynamo raises under its own eager backend are torch's, not ours, and are allowed."""
    note(repr(case))
    inputs, module = case.inputs(), case.module()
    before = _snapshot(inputs)
    expected, allowed = _run_original(_bound(case.snippet.function, module, inputs))
    torch._dynamo.reset()
    _, dynamo_own = _run_original(lambda: _compiled(case.snippet, module, "eager", None)(*inputs))
    torch._dynamo.reset()
    options = {"variants": 1, "progress": False, "cache_dir": kernel_dir}
    compiled = _compiled(case.snippet, module, "ascendgen", options)
    wide = _in_float32(case.snippet.function, module, inputs)
    for attempt in ("first call", "second call"):
        what = f"torch.compile {case.snippet.name} ({attempt})"
        got = _run_ours(lambda: compiled(*inputs), allowed | dynamo_own, what)
        assert_same(got, expected, what, wide)
        _assert_unchanged(inputs, before, what)


@pytest.mark.parametrize("snippet", COMPILED, ids=lambda snippet: snippet.name)
@settings(COMPILE_PROFILE)
@given(data=st.data())
def test_torch_compile_with_ascendgen_matches_eager(snippet, data, kernel_dir):
    try:
        with torch.no_grad():
            check_compiled(data.draw(cases((snippet,)), label="case"), kernel_dir)
    finally:
        torch._dynamo.reset()


def test_the_corpus_covers_what_issue_11_names():
    """At least 45 snippets, each documented, with 0-dim, rank-8, int, bool and module entries among them."""
    assert len(CORPUS) >= 45
    assert len({s.name for s in CORPUS}) == len(CORPUS)
    assert all(s.function.__doc__ and s.function.__doc__.strip() for s in CORPUS)
    assert any(s.ranks[0] == 0 for s in CORPUS) and any(s.ranks[1] == 8 for s in CORPUS)
    roles = {arg.role for s in CORPUS for arg in s.args}
    assert roles == {FLOAT, INDEX, UNIQUE, MASK, INT}
    assert any(s.module is not None for s in CORPUS) and len(COMPILED) >= 5
