"""Issue 15's first question, measured: lower from PyTorch Inductor's loop-level IR, or extend our own lowering?

    python benchmarks/lowering_eval.py            # every probe function
    python benchmarks/lowering_eval.py --verbose  # also each Inductor node's loads and ops

For a set of functions model-porting engineers write (the categories issue 15 lists), it measures side by side:

- **ours**: does ``capture`` trace the function, and does the built-in generator (``generate_builtin``) give a
  candidate kernel for it? (The reason when not.)
- **inductor**: does Inductor's graph lowering (``GraphLowering.run``, its decompositions and lowerings, symbolic
  shapes, no code generation) express the function as loop-level nodes (``Pointwise``, ``Reduction``, ``Scan``,
  ``Sort``, ``Scatter``) whose bodies an AscendC code generator can walk, or does it leave parts as fallback
  kernels (an eager ATen call)? For each node the loads are classed by how their index moves with the innermost
  output index (contiguous, broadcast, strided, indirect through an index tensor, guarded by a mask), which is
  what decides the vector-unit code: DataCopy tiles, Duplicate/Brcb, strided DataCopy, Gather, DataCopyPad or
  Select. The backend features a vector-unit code generator would declare (scan, sort, bucketize, tuple
  reductions) are switched on, so the count shows what Inductor can express, not what its CPU backend prints.

Times are the trace (make_fx with Inductor's decompositions) and the lowering, per function, in milliseconds.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import sympy
import torch
import torch.nn.functional as F

if str(Path(__file__).resolve().parent.parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from torch_ascendgen.capture import capture  # noqa: E402
from torch_ascendgen.errors import UnsupportedFunction  # noqa: E402
from torch_ascendgen.generators.builtin.generator import generate_builtin  # noqa: E402

LOOP_NODES = ("Pointwise", "Reduction", "WelfordReduction", "Scan", "Sort", "Scatter")


@dataclass(frozen=True)
class Probe:
    category: str
    name: str
    fn: Callable
    make: Callable[[], tuple]


def _f(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


def _i(hi, *shape, dtype=torch.int64):
    return torch.randint(0, hi, shape, dtype=dtype)


def _rope_half(x, cos, sin):
    half = x.shape[-1] // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], -1)
    return x * cos + rotated * sin


def _rope_interleaved(x, cos, sin):
    pairs = x.unflatten(-1, (-1, 2))
    rotated = torch.stack([-pairs[..., 1], pairs[..., 0]], -1).flatten(-2)
    return x * cos + rotated * sin


def _swiglu_quant(x):
    a, b = x.chunk(2, -1)
    y = F.silu(a) * b
    scale = y.abs().amax(-1, keepdim=True) / 127.0
    return torch.round(y / scale).clamp(-128, 127).to(torch.int8), scale


def _moe_gating(logits):
    weights, ids = torch.topk(torch.softmax(logits, -1), 2, -1)
    return weights / weights.sum(-1, keepdim=True), ids.to(torch.int32)


def _add_rmsnorm(x, r, w):
    h = x + r
    return h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6) * w, h


def _kv_update(cache, new, slots):
    return cache.index_copy(0, slots, new)


def _softcap_softmax(x):
    return torch.softmax(30.0 * torch.tanh(x / 30.0), -1)


def _masked_softmax(x, mask):
    return torch.softmax(x.masked_fill(~mask, float("-inf")), -1)


PROBES = [
    Probe("elementwise", "add_relu_bcast", lambda x, y: torch.relu(x + y), lambda: (_f(4, 8), _f(8))),
    Probe("elementwise", "sin_cos", lambda x: torch.sin(x) * torch.cos(x), lambda: (_f(4, 8),)),
    Probe("elementwise", "full_like", lambda x: x + torch.full_like(x, 2.0), lambda: (_f(4, 8),)),
    Probe("elementwise", "rank8", lambda x: x * 2 + 1, lambda: (_f(2, 1, 2, 3, 1, 2, 2, 3),)),
    Probe("elementwise", "rank0", lambda x: x.exp(), lambda: (torch.tensor(0.5),)),
    Probe("integer", "floor_divide", torch.floor_divide, lambda: (_i(50, 16) - 25, _i(5, 16) + 1)),
    Probe("integer", "remainder_i32", torch.remainder, lambda: (_i(50, 16, dtype=torch.int32) - 25,
                                                              _i(5, 16, dtype=torch.int32) + 1)),
    Probe("integer", "bitwise_and_eq", lambda x, y: (x & y) == 0, lambda: (_i(9, 16, dtype=torch.int32),
                                                                          _i(9, 16, dtype=torch.int32))),
    Probe("integer", "logical_not_and", lambda a, b: torch.logical_and(~a, b), lambda: (_i(2, 16).bool(),
                                                                                       _i(2, 16).bool())),
    Probe("integer", "compare_to_bool", lambda x, y: x > y, lambda: (_f(4, 8), _f(4, 8))),
    Probe("integer", "int8_add_sat", lambda x, y: (x.to(torch.int16) + y).clamp(-128, 127).to(torch.int8),
          lambda: (_i(100, 16, dtype=torch.int8), _i(100, 16, dtype=torch.int8))),
    Probe("integer", "argmax", lambda x: x.argmax(-1), lambda: (_f(4, 8),)),
    Probe("views", "chunk_mul", lambda x: x.chunk(2, -1)[0] * x.chunk(2, -1)[1], lambda: (_f(4, 8),)),
    Probe("views", "split_sizes", lambda x: torch.split(x, [3, 5], -1)[1].sum(-1), lambda: (_f(4, 8),)),
    Probe("views", "reshape_arith", lambda x: x.reshape(x.shape[0] * 2, x.shape[1] // 2).mean(-1),
          lambda: (_f(4, 8),)),
    Probe("views", "slice_step", lambda x: x[:, ::2] + 1, lambda: (_f(4, 8),)),
    Probe("views", "transpose_add", lambda x: x.t() + 1, lambda: (_f(4, 8),)),
    Probe("movement", "cat", lambda x, y: torch.cat([x, y], 1) * 2, lambda: (_f(4, 8), _f(4, 3))),
    Probe("movement", "pad", lambda x: F.pad(x, (1, 2)), lambda: (_f(4, 8),)),
    Probe("movement", "repeat", lambda x: x.repeat(2, 3), lambda: (_f(4, 8),)),
    Probe("movement", "repeat_interleave", lambda x: x.repeat_interleave(2, 0), lambda: (_f(4, 8),)),
    Probe("indexing", "gather", lambda x, i: x.gather(1, i), lambda: (_f(4, 8), _i(8, 4, 3))),
    Probe("indexing", "index_select", lambda x, i: x.index_select(0, i), lambda: (_f(6, 8), _i(6, 3))),
    Probe("indexing", "embedding", lambda w, i: F.embedding(i, w), lambda: (_f(10, 8), _i(10, 5))),
    Probe("indexing", "index_put", lambda x, i, v: x.index_put((i,), v), lambda: (_f(8, 4), torch.tensor([1, 3]),
                                                                                 _f(2, 4))),
    Probe("indexing", "kv_cache_update", _kv_update, lambda: (_f(16, 2, 8), _f(3, 2, 8), torch.tensor([4, 0, 9]))),
    Probe("indexing", "scatter_add", lambda x, i, s: x.scatter_add(1, i, s), lambda: (_f(4, 8), _i(8, 4, 3),
                                                                                     _f(4, 3))),
    Probe("norm", "add_rmsnorm", _add_rmsnorm, lambda: (_f(4, 64), _f(4, 64), _f(64))),
    Probe("norm", "qk_norm", lambda q, w: F.rms_norm(q, (q.shape[-1],), w, 1e-6), lambda: (_f(2, 4, 64), _f(64))),
    Probe("norm", "group_norm", lambda x: F.group_norm(x, 2), lambda: (_f(2, 4, 8),)),
    Probe("norm", "two_domains", lambda x: x.sum(-1) + x.sum(0).mean(), lambda: (_f(4, 8),)),
    Probe("norm", "cosine_similarity", lambda a, b: F.cosine_similarity(a, b, -1), lambda: (_f(4, 8), _f(4, 8))),
    Probe("softmax", "softcap_softmax", _softcap_softmax, lambda: (_f(4, 8),)),
    Probe("softmax", "masked_softmax", _masked_softmax, lambda: (_f(4, 8), _i(2, 4, 8).bool())),
    Probe("rope", "rope_half", _rope_half, lambda: (_f(2, 3, 8), _f(3, 8), _f(3, 8))),
    Probe("rope", "rope_interleaved", _rope_interleaved, lambda: (_f(2, 3, 8), _f(3, 8), _f(3, 8))),
    Probe("quant", "swiglu_dynamic_quant", _swiglu_quant, lambda: (_f(4, 16),)),
    Probe("moe", "moe_gating_topk", _moe_gating, lambda: (_f(4, 8),)),
    Probe("scan_sort", "cumsum_dim0", lambda x: torch.cumsum(x, 0), lambda: (_f(4, 8),)),
    Probe("scan_sort", "sort", lambda x: torch.sort(x, -1).values, lambda: (_f(4, 8),)),
    Probe("scan_sort", "topk", lambda x: torch.topk(x, 3, -1).values, lambda: (_f(4, 8),)),
    Probe("scan_sort", "histc", lambda x: torch.histc(x, 10), lambda: (_f(100),)),
    Probe("loss", "cross_entropy_i64", lambda x, t: F.cross_entropy(x, t), lambda: (_f(4, 8), _i(8, 4))),
    Probe("loss", "nll_loss", lambda x, t: F.nll_loss(x, t), lambda: (F.log_softmax(_f(4, 8), -1), _i(8, 4))),
    Probe("pool", "max_pool2d", lambda x: F.max_pool2d(x, 2), lambda: (_f(1, 2, 8, 8),)),
    Probe("pool", "avg_pool1d", lambda x: F.avg_pool1d(x, 3, 2), lambda: (_f(2, 4, 9),)),
    Probe("pool", "interpolate_bilinear", lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"),
          lambda: (_f(1, 2, 4, 4),)),
    Probe("pool", "interpolate_nearest", lambda x: F.interpolate(x, scale_factor=2), lambda: (_f(1, 2, 4, 4),)),
]


# ---- ours ----------------------------------------------------------------------------------------------------

def ours(probe: Probe) -> tuple[bool, str]:
    """(a candidate kernel?, the reason when not)."""
    try:
        task = capture(probe.fn, list(probe.make()), probe.name)
        generate_builtin(task, 1)
    except UnsupportedFunction as exc:
        return False, str(exc)
    except Exception as exc:  # noqa: BLE001 - a crash is a "no" here, with its type
        return False, f"{type(exc).__name__}: {exc}"
    return True, ""


# ---- inductor --------------------------------------------------------------------------------------------------

@dataclass
class InductorResult:
    ok: bool = False
    nodes: Counter = field(default_factory=Counter)
    fallbacks: list[str] = field(default_factory=list)
    loads: Counter = field(default_factory=Counter)
    details: list[str] = field(default_factory=list)
    trace_ms: float = 0.0
    lower_ms: float = 0.0
    error: str = ""


class _Recorder:
    """An ops handler that walks a node's body and records its loads (name, index) and the ops it calls."""

    def __init__(self):
        self.loads: list[tuple[str, sympy.Expr, bool]] = []
        self.ops: set[str] = set()
        self.in_mask = 0

    def __getattr__(self, name):
        def op(*args, **kwargs):
            self.ops.add(name)
            return name

        return op

    def load(self, name, index):
        self.loads.append((name, index, self.in_mask > 0))
        return "load"

    def indirect_indexing(self, value, size, check=True, wrap_neg=True):
        self.ops.add("indirect")
        return sympy.Symbol(f"indirect{len(self.ops)}", integer=True)

    def masked(self, mask, body, other):
        self.ops.add("masked")
        self.in_mask += 1
        try:
            return body()
        finally:
            self.in_mask -= 1


def _load_kind(index: sympy.Expr, inner: sympy.Symbol | None, guarded: bool) -> str:
    names = {s.name for s in index.free_symbols}
    if any(n.startswith("indirect") for n in names):
        kind = "indirect"
    elif inner is None or inner not in index.free_symbols:
        kind = "broadcast"
    else:
        coefficient = sympy.expand(index).coeff(inner)
        kind = "contiguous" if coefficient == 1 else "strided"
    return f"{kind}+guarded" if guarded else kind


def _walk(buffer) -> tuple[str, Counter, str]:
    from torch._inductor import ir
    from torch._inductor.virtualized import V

    data = buffer.data
    kind = type(data).__name__
    if not isinstance(data, (ir.Pointwise, ir.Reduction)):
        return kind, Counter(), kind
    recorder = _Recorder()
    index = [sympy.Symbol(f"i{k}", integer=True) for k in range(len(data.ranges))]
    with V.set_ops_handler(recorder):
        if isinstance(data, ir.Reduction):
            rindex = [sympy.Symbol(f"r{k}", integer=True) for k in range(len(data.reduction_ranges))]
            data.inner_fn(index, rindex)
            inner = rindex[-1] if rindex else (index[-1] if index else None)
        else:
            data.inner_fn(index)
            inner = index[-1] if index else None
    loads = Counter(_load_kind(i, inner, g) for _, i, g in recorder.loads)
    detail = f"{kind} ranges={list(data.ranges)} loads={[(n, str(i)) for n, i, _ in recorder.loads]} " \
             f"ops={sorted(recorder.ops)}"
    return kind, loads, detail


def inductor(probe: Probe) -> InductorResult:
    from torch._inductor import config, ir
    from torch._inductor.codegen.common import BackendFeature
    from torch._inductor.decomposition import select_decomp_table
    from torch._inductor.graph import GraphLowering
    from torch._inductor.virtualized import V
    from torch.fx.experimental.proxy_tensor import make_fx

    features = {BackendFeature.SCAN, BackendFeature.SORT, BackendFeature.BUCKETIZE, BackendFeature.TUPLE_REDUCTION}
    result = InductorResult()
    try:
        start = time.perf_counter()
        gm = make_fx(probe.fn, decomposition_table=select_decomp_table(), tracing_mode="symbolic")(*probe.make())
        fake = [n.meta["val"] for n in gm.graph.nodes if n.op == "placeholder"]
        mode = fake[0].fake_mode
        result.trace_ms = (time.perf_counter() - start) * 1e3
        start = time.perf_counter()
        graph = GraphLowering(gm, example_inputs=fake, shape_env=mode.shape_env)
        graph.has_feature = lambda device, feature: feature in features
        # a vector-unit backend concatenates and scatter-adds in its own loops
        options = {"force_pointwise_cat": True, "cpp.fallback_scatter_reduce_sum": False}
        with V.set_graph_handler(graph), V.set_fake_mode(mode), config.patch(options):
            graph.run(*fake)
            result.lower_ms = (time.perf_counter() - start) * 1e3
            for op in graph.operations:
                if isinstance(op, ir.ComputedBuffer):
                    kind, loads, detail = _walk(op)
                    result.nodes[kind] += 1
                    result.loads.update(loads)
                    result.details.append(detail)
                elif not isinstance(op, ir.MultiOutput):
                    name = str(getattr(op, "op_overload", "") or type(op).__name__)
                    result.fallbacks.append(name)
                    result.details.append(f"fallback {name}")
    except Exception as exc:  # noqa: BLE001 - reported per function
        result.error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
        return result
    result.ok = not result.fallbacks and all(k in LOOP_NODES for k in result.nodes)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    print(f"{'category':12s} {'function':22s} {'ours':5s} {'inductor':9s} {'trace':>7s} {'lower':>7s}  "
          "inductor nodes / fallbacks; ours: reason")
    totals = Counter()
    loads = Counter()
    times = []
    for probe in PROBES:
        mine, reason = ours(probe)
        theirs = inductor(probe)
        totals["ours"] += mine
        totals["inductor"] += theirs.ok
        totals["both"] += mine and theirs.ok
        loads.update(theirs.loads)
        times.append((theirs.trace_ms, theirs.lower_ms))
        nodes = ", ".join(f"{k} {v}" for k, v in sorted(theirs.nodes.items()))
        what = theirs.error or nodes + (f"; fallback {', '.join(theirs.fallbacks)}" if theirs.fallbacks else "")
        print(f"{probe.category:12s} {probe.name:22s} {'yes' if mine else 'no':5s} "
              f"{'yes' if theirs.ok else 'no':9s} {theirs.trace_ms:7.1f} {theirs.lower_ms:7.1f}  {what}"
              + ("" if mine else f"; ours: {reason[:90]}"))
        if args.verbose:
            for line in theirs.details:
                print(f"{'':36s}{line}")
    n = len(PROBES)
    print(f"\n{n} functions: ours gives a candidate for {totals['ours']}, Inductor lowers {totals['inductor']} to "
          f"loop-level nodes only (both: {totals['both']})")
    print("Inductor loads by index kind:", ", ".join(f"{k} {v}" for k, v in loads.most_common()))
    trace = sorted(t for t, _ in times)
    lower = sorted(lw for _, lw in times)
    print(f"median trace {trace[n // 2]:.1f} ms, median lowering {lower[n // 2]:.1f} ms, "
          f"max lowering {lower[-1]:.1f} ms")


if __name__ == "__main__":
    main()
