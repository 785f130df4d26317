"""The built-in generator: lowers the captured graphs it knows to AscendC, deterministically.

It needs no model, so it is the default, and what it writes is the correct baseline that a
model's kernels must beat. Two templates in ``csrc/templates`` cover what it knows:

- ``elementwise``: a fused chain over same-shaped tensors (plus one-element inputs), split into
  contiguous ranges per block;
- ``rowwise``: reductions over the trailing dimension(s) with elementwise work around them
  (softmax, norms, row sums and means), and elementwise chains whose inputs broadcast along rows
  or columns.

The generator fills a template's marked regions with declarations and the fused computation
(lowering.py writes the latter) and proposes variants: tile length and one or two buffers per queue.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.fx

from torch_ascendgen.capture import KernelTask
from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.generators.builtin.looped import emit_looped, plan_looped
from torch_ascendgen.generators.builtin.looped import ub_bytes as looped_ub_bytes
from torch_ascendgen.generators.builtin.loops import VERSION as LOOPS_VERSION
from torch_ascendgen.generators.builtin.loops import generate_loops
from torch_ascendgen.generators.builtin.lowering import CTYPES, Lowering, Val, bool_condition_input, io_lines, widen
from torch_ascendgen.generators.builtin.matmul import VERSION as MATMUL_VERSION
from torch_ascendgen.generators.builtin.matmul import (
    EpilogueCode,
    MatmulPlan,
    c_block_bytes,
    emit_matmul,
    epilogue_types,
    fitting_tiles,
    plan_matmul,
)
from torch_ascendgen.generators.builtin.ops import REDUCTIONS, reduced_dims
from torch_ascendgen.generators.builtin.sort import sort_candidates
from torch_ascendgen.generators.builtin.templates import fill_template
from torch_ascendgen.records import Candidate

VERSION = "builtin-5"
UB_BUDGET = 176 * 1024  # bytes of UB the generated buffers may take (910B has 192 KB; APIs use some)

# Ops in the lowering tables that only serve others (sizes, constants) or stay views in eager code
_NOT_A_REGION_OP = {"aten.sym_size.int", "aten.full.default", "aten.scalar_tensor.default", "aten.expand.default"}


def lowered_ops() -> frozenset[str]:
    """The ATen ops a fused region handed to this generator may hold (the torch.compile backend's partitioner)."""
    from torch_ascendgen.generators.builtin.lowering import HANDLERS

    return frozenset((set(HANDLERS) | REDUCTIONS) - _NOT_A_REGION_OP)


@dataclass(frozen=True)
class Plan:
    """How a task maps onto a template: what each input and output is in it."""

    template: str  # "elementwise" or "rowwise"
    input_kinds: tuple[str, ...]  # per input: "full", "scalar", and for rowwise "col" or "rowconst"
    output_kinds: tuple[str, ...]  # per output: "full" or "col"
    shape_tensor: int = 0  # rowwise: the input whose shape gives rows and cols
    reduced_dims: int = 1  # rowwise: how many trailing dims make up cols


def generate_builtin(task: KernelTask, variants: int) -> list[Candidate]:
    """Up to ``variants`` candidates for ``task``: the sort template's when it is a sort, top-k or histc of an input
    (sort.py), else the templates' when they take it, else the general lowering's (loops/). Raises
    UnsupportedFunction with the reasons. A task traced with an empty input goes to the general lowering alone: only
    its tiling is written for empty tensors."""
    if task.data_dependent:
        raise UnsupportedFunction("one of its sizes depends on the values of its inputs (nonzero, bincount, boolean-"
                                  "mask indexing): no one kernel has it; @ascend_kernel runs such functions as stages")
    if task.empty_inputs:
        return generate_loops(task, variants, UB_BUDGET)
    sorting = sort_candidates(task, variants)  # None: the graph is none of those
    if sorting is not None:
        return sorting
    products = _matmul_candidates(task, variants)  # None: the graph holds no matrix product
    if products is not None:
        return products
    try:
        return _template_candidates(task, variants)
    except UnsupportedFunction as template_failure:
        try:
            return generate_loops(task, variants, UB_BUDGET)
        except UnsupportedFunction as loops_failure:
            raise UnsupportedFunction(f"{loops_failure} (and the templates: {template_failure})") from None


def fallback_builtin(task: KernelTask, variants: int, failed: list[Candidate]) -> list[Candidate]:
    """The next candidates for ``task`` when every one so far (``failed``) failed verification: the general
    lowering's after the templates' (a template's hand-written math may get an edge wrong). [] when nothing is
    left."""
    if not failed or any(candidate.generator == LOOPS_VERSION for candidate in failed):
        return []
    try:
        return generate_loops(task, variants, UB_BUDGET)
    except UnsupportedFunction:
        return []


def _template_candidates(task: KernelTask, variants: int) -> list[Candidate]:
    for spec in (*task.inputs, *task.outputs):
        if spec.dtype not in CTYPES and not bool_condition_input(task, spec):
            raise UnsupportedFunction(f"it uses {spec.dtype} tensors; the built-in generator handles float32, "
                                      "float16 and bfloat16 (and bool inputs used as torch.where conditions)")
    try:
        plan = _plan(task)
        lowering = _lower(task, plan)  # once, to size the scratch buffers
    except UnsupportedFunction:
        return _looped_candidates(task, variants)
    candidates = []
    for tile, buffers in _variant_grid(task, plan, lowering, variants):
        source = _emit(task, plan, _lower(task, plan), tile, buffers)
        candidates.append(Candidate(source, VERSION, {"template": plan.template, "tile": tile, "buffers": buffers},
                                    f"{plan.template} kernel, {tile}-element tiles, {buffers} buffer(s) per queue"))
    if plan.template != "rowwise":
        return candidates
    try:
        looped = _looped_candidates(task, variants)
    except UnsupportedFunction:
        return candidates
    if _row_fits(task, plan, candidates):
        return candidates[: max(1, variants - 1)] + looped[: 1 if variants > 1 else 0]
    return looped[: max(1, variants - 1)] + candidates[: 1 if variants > 1 else 0]


def _matmul_candidates(task: KernelTask, variants: int) -> list[Candidate] | None:
    """The matmul kernel's variants (matmul.py) when the task is a matrix product with work after it: the epilogue
    lowered as the row-wise template lowers its computation, rows of the product's full shape."""
    plan = plan_matmul(task)
    if plan is None:
        return None
    epilogue = plan.epilogue
    for spec in (*epilogue.inputs, *epilogue.outputs):
        if spec.dtype not in CTYPES and not bool_condition_input(epilogue, spec):
            raise UnsupportedFunction(f"its work after the product uses {spec.dtype} tensors; the built-in matmul "
                                      "kernel's epilogue handles float32, float16 and bfloat16")
    full = epilogue.inputs[0].shape
    rows = Plan("rowwise", tuple(_input_kind(spec.shape, full, 1, i) for i, spec in enumerate(epilogue.inputs)),
                tuple(_output_kind(spec.shape, full, 1, i) for i, spec in enumerate(epilogue.outputs)), 0, 1)
    lowering = _lower(epilogue, rows)  # once, to size the scratch buffers
    grid = [(tile, buffers) for buffers in (2, 1) for tile in fitting_tiles(plan)
            if _ub_bytes(epilogue, rows, lowering, tile, buffers) + c_block_bytes(plan, tile) <= UB_BUDGET]
    if not grid:
        raise UnsupportedFunction("its epilogue's working set does not fit the UB beside a block of the product "
                                  "with one row per tile")
    return [Candidate(emit_matmul(task, plan, _epilogue_code(plan, rows), tile, buffers), MATMUL_VERSION,
                      {"template": "matmul", "tile": tile, "buffers": buffers},
                      f"matmul kernel (cube unit, the work after it on the vector unit), {tile}-element tiles, "
                      f"{buffers} buffer(s) per queue")
            for tile, buffers in grid[: max(1, variants)]]


def _epilogue_code(plan: MatmulPlan, rows: Plan) -> EpilogueCode:
    """The epilogue's lowering and its inputs' and outputs' parts; input 0 (the product) is the template's."""
    lowering = _lower(plan.epilogue, rows)
    parts = _Parts()
    for index, kind in enumerate(rows.input_kinds):
        if index:
            _INPUT_EMITTERS[("rowwise", kind)](parts, index)
    for index, kind in enumerate(rows.output_kinds):
        _OUTPUT_EMITTERS[("rowwise", kind)](parts, index)
    return EpilogueCode(epilogue_types(plan), parts.init, parts.members, parts.copy_in,
                        [*parts.dequeue, *lowering.lines, *parts.enqueue, *parts.free], parts.copy_out,
                        max(1, lowering.slots("full")), max(1, lowering.slots("col")), max(1, lowering.slots("mask")))


def _row_fits(task: KernelTask, plan: Plan, candidates: list[Candidate]) -> bool:
    """Whether one row at the traced shapes fits the largest row-wise tile (else the row-wise kernel declines)."""
    shape = task.traced_shapes[plan.shape_tensor]
    cols = 1
    for size in shape[len(shape) - plan.reduced_dims:]:
        cols *= size
    return cols + 32 <= max(c.variant["tile"] for c in candidates)


def _looped_candidates(task: KernelTask, variants: int) -> list[Candidate]:
    plan = plan_looped(task)
    _, lowering = emit_looped(task, plan, 1024, 2)  # once, to size the scratch buffers
    grid = []
    for buffers in (2, 1):
        fitting = [t for t in (1024 << i for i in range(5))
                   if looped_ub_bytes(task, plan, lowering, t, buffers) <= UB_BUDGET]
        grid += [(tile, buffers) for tile in sorted(fitting, reverse=True)[:3]]
    if not grid:
        raise UnsupportedFunction("its working set does not fit the UB even with 1024-element chunks")
    form = "rows" if plan.layout.rows else "columns"
    return [Candidate(emit_looped(task, plan, tile, buffers)[0], VERSION,
                      {"template": "looped", "tile": tile, "buffers": buffers},
                      f"looped kernel ({form}, {plan.passes + 1} pass(es)), {tile}-element chunks, {buffers} buffer(s)")
            for tile, buffers in grid[: max(1, variants)]]


# ---- planning -------------------------------------------------------------------------------------------


def _plan(task: KernelTask) -> Plan:
    graph = task.graph.graph
    reductions = [node for node in graph.nodes if node.op == "call_function" and str(node.target) in REDUCTIONS]
    shape = task.outputs[0].shape
    flat = all(spec.shape == shape or _ones(spec.shape) for spec in task.inputs)
    if not reductions and flat and all(out.shape == shape for out in task.outputs):
        return Plan("elementwise", tuple("full" if s.shape == shape else "scalar" for s in task.inputs),
                    ("full",) * len(task.outputs))
    if reductions:
        full, k = _reduction_domain(reductions[0])
    else:
        full, k = shape, 1
    if not full:
        raise UnsupportedFunction("it reduces a zero-dimensional tensor")
    if reductions and k == len(full) and all(_ones(out.shape) for out in task.outputs):
        return _reduce_all_plan(task, full)
    shape_tensor = next((i for i, spec in enumerate(task.inputs) if spec.shape == full), None)
    if shape_tensor is None:
        raise UnsupportedFunction(f"no input has the full shape {list(full)} of the computation; the built-in "
                                  "generator needs one")
    kinds = tuple(_input_kind(spec.shape, full, k, index) for index, spec in enumerate(task.inputs))
    outputs = tuple(_output_kind(spec.shape, full, k, index) for index, spec in enumerate(task.outputs))
    return Plan("rowwise", kinds, outputs, shape_tensor, k)


def _reduce_all_plan(task: KernelTask, full: tuple) -> Plan:
    kinds = []
    for index, spec in enumerate(task.inputs):
        if spec.shape != full and not _ones(spec.shape):
            raise UnsupportedFunction(f"input {index} has shape {list(spec.shape)} against {list(full)}; a reduction "
                                      "over all elements takes same-shaped inputs and one-element ones")
        kinds.append("full" if spec.shape == full else "scalar")
    if kinds[0] != "full":
        raise UnsupportedFunction("its first input is not full-sized; the built-in generator needs it to be")
    return Plan("reduce_all", tuple(kinds), ("col",) * len(task.outputs), 0, len(full))


def _reduction_domain(node: torch.fx.Node) -> tuple[tuple, int]:
    """The full shape a reduction reads and how many trailing dims it reduces."""
    full = node.args[0].meta["shape"]
    rank = len(full)
    dims = list(reduced_dims(node, rank))
    if dims != list(range(rank - len(dims), rank)):
        raise UnsupportedFunction(f"it reduces over dims {dims} of a rank-{rank} tensor; the built-in generator "
                                  "reduces trailing dims only")
    return full, len(dims)


def _ones(shape) -> bool:
    return all(s == 1 for s in shape)


def _col_shapes(full: tuple, k: int) -> tuple[tuple, tuple]:
    lead = tuple(full[: len(full) - k])
    return lead + (1,) * k, lead


def _input_kind(shape: tuple, full: tuple, k: int, index: int) -> str:
    lead = len(full) - k
    if shape == full:
        return "full"
    if shape in _col_shapes(full, k) and shape:
        return "col"
    if _ones(shape):
        return "scalar"
    if tuple(shape[-k:]) == tuple(full[lead:]) and _ones(shape[:-k]) and len(shape) <= len(full):
        return "rowconst"
    raise UnsupportedFunction(f"input {index} has shape {list(shape)} against the computation's {list(full)}: "
                              "the built-in generator broadcasts whole rows and per-row values only")


def _output_kind(shape: tuple, full: tuple, k: int, index: int) -> str:
    if shape == full:
        return "full"
    if shape in _col_shapes(full, k):
        return "col"
    raise UnsupportedFunction(f"output {index} has shape {list(shape)}, neither the computation's {list(full)} nor "
                              "one value per row")


def _classifier(plan: Plan, full_shape, k: int):
    col_shapes = _col_shapes(full_shape, k) if plan.template != "elementwise" else ()

    def classify(node: torch.fx.Node) -> str:
        shape = node.meta.get("shape")
        if shape is None:
            return "full"  # multi-output ops: their parts are classified through getitem
        if plan.template == "reduce_all" and _ones(shape) and node.op != "placeholder":
            return "col"
        if plan.template == "rowwise" and shape in col_shapes and shape != full_shape:
            return "col"
        if _ones(shape):
            return "scalar"
        return "full"
    return classify


def _lower(task: KernelTask, plan: Plan) -> Lowering:
    inputs: dict[int, Val | None] = {}
    for index, kind in enumerate(plan.input_kinds):
        if kind == "rowconst" and task.inputs[index].dtype == torch.bool:
            raise UnsupportedFunction("a bool input broadcast along rows is not supported by the built-in generator")
        widening = kind == "col" or (kind == "full" and task.inputs[index].dtype != torch.float32)
        name = {"full": f"in{index}", "col": None, "rowconst": f"rowConst{index}_", "scalar": f"scalar{index}_"}[kind]
        inputs[index] = None if widening else Val("scalar" if kind == "scalar" else "full", name)
    full = task.inputs[plan.shape_tensor].shape
    k = plan.reduced_dims if plan.template != "elementwise" else 0
    lowering = Lowering(task, _classifier(plan, full, k), inputs, tuple(range(len(full) - k, len(full))),
                        split=plan.template == "reduce_all")
    _widen_inputs(task, plan, lowering, inputs)
    for index, (value, kind) in enumerate(zip(lowering.run(), plan.output_kinds)):
        _store_output(task, plan, lowering, index, value, kind)
    return lowering


def _widen_inputs(task: KernelTask, plan: Plan, lowering: Lowering, inputs: dict[int, Val | None]) -> None:
    """Half/bf16 and column inputs copied to float scratch first (their ``inputs`` entries are None until then)."""
    for index, value in list(inputs.items()):
        if value is not None:
            continue
        kind = "col" if plan.input_kinds[index] == "col" else "full"
        lowering.kind = kind
        inputs[index] = scratch = lowering.temp(kind)
        if kind == "col":
            lowering.emit(f"SpreadColumn({scratch.expr}, in{index}, n);")
        else:
            widen(lowering, scratch, f"in{index}", task.inputs[index].dtype)


def _store_output(task: KernelTask, plan: Plan, lowering: Lowering, index: int, value: Val, kind: str) -> None:
    """Output ``index``'s value written to ``out<index>`` in its kind and dtype."""
    lowering.kind = kind
    if value.kind == "scalar":
        value = lowering.splat(value)
    elif kind == "full" and value.kind == "col":
        value = lowering.broadcast_rows(value)
    if kind == "col" and plan.template == "reduce_all":
        lowering.kind = "col"
        op = "Muls" if task.outputs[index].dtype == torch.float32 else "Cast"
        tail = "1.0f, 1" if op == "Muls" else "RoundMode::CAST_RINT, 1"
        lowering.emit(f"{op}(out{index}, {value.expr}, {tail});")
    elif kind == "col":
        lowering.emit(f"PackColumn(out{index}, {value.expr}, n);")
    elif task.outputs[index].dtype == torch.float32:
        lowering.emit(f"Muls(out{index}, {value.expr}, 1.0f, count);")
    else:
        lowering.emit(f"Cast(out{index}, {value.expr}, RoundMode::CAST_RINT, count);")


MAX_ROWS, COL_STRIDE = 256, 8  # as in csrc/templates/rowwise.cpp


def _variant_grid(task: KernelTask, plan: Plan, lowering: Lowering, variants: int) -> list[tuple[int, int]]:
    """Tile lengths and buffer counts to try, best guess first: the largest tile that fits, double-buffered."""
    grid = []
    for buffers in (2, 1):
        fitting = [t for t in (1024 << i for i in range(6)) if _ub_bytes(task, plan, lowering, t, buffers) <= UB_BUDGET]
        for tile in sorted(fitting, reverse=True)[:3]:
            grid.append((tile, buffers))
    if not grid:
        raise UnsupportedFunction("its working set does not fit the UB even with 1024-element tiles")
    return grid[: max(1, variants)]


def _ub_bytes(task: KernelTask, plan: Plan, lowering: Lowering, tile: int, buffers: int) -> int:
    """UB the kernel's InitBuffer calls take, as the template and _emit lay them out."""
    total = 4 * tile * max(1, lowering.slots("full")) + max(1, lowering.slots("mask")) * tile // 8
    for spec, kind in (*zip(task.inputs, plan.input_kinds), *zip(task.outputs, plan.output_kinds)):
        size = spec.dtype.itemsize
        total += {"full": buffers * tile * size, "col": buffers * MAX_ROWS * size, "scalar": 0,
                  "rowconst": tile * (4 + size)}[kind]
    if plan.template == "rowwise":
        total += 4 * MAX_ROWS * COL_STRIDE * max(1, lowering.slots("col"))
    return total


# ---- emitting ---------------------------------------------------------------------------------------------


def _emit(task: KernelTask, plan: Plan, lowering: Lowering, tile: int, buffers: int) -> str:
    if plan.template == "reduce_all":
        return _emit_reduce_all(task, plan, lowering, tile, buffers)
    config = [f"constexpr uint32_t TILE = {tile};", f"constexpr int32_t BUFFER_NUM = {buffers};",
              f"constexpr uint32_t TEMPS = {max(1, lowering.slots('full'))};",
              f"constexpr uint32_t MASKS = {max(1, lowering.slots('mask'))};",
              "constexpr uint32_t MASK_BYTES = TILE / 8;", "using ComputeT = float;"]
    if plan.template == "rowwise":
        narrow = min(spec.dtype.itemsize for spec in (*task.inputs, *task.outputs))
        config += [f"constexpr uint32_t MAX_ROWS = {MAX_ROWS};", f"constexpr uint32_t COL_STRIDE = {COL_STRIDE};",
                   "constexpr uint32_t COL_TILE = MAX_ROWS * COL_STRIDE;",
                   f"constexpr uint32_t COL_TEMPS = {max(1, lowering.slots('col'))};",
                   f"constexpr int32_t SHAPE_TENSOR = {plan.shape_tensor};",
                   f"constexpr int32_t REDUCED_DIMS = {plan.reduced_dims};",
                   f"constexpr uint32_t COL_ALIGN = {32 // narrow};"]
    types, params, args = io_lines(task)
    config += types
    parts = _Parts()
    for index, kind in enumerate(plan.input_kinds):
        _INPUT_EMITTERS[(plan.template, kind)](parts, index)
    for index, kind in enumerate(plan.output_kinds):
        _OUTPUT_EMITTERS[(plan.template, kind)](parts, index)
    parts.init.append("pipe_.InitBuffer(maskBuf_, MASKS * MASK_BYTES);")
    parts.members.append("TBuf<QuePosition::VECCALC> maskBuf_;")
    compute = [*parts.dequeue, "LocalTensor<uint8_t> masks = maskBuf_.Get<uint8_t>();", *lowering.lines,
               *parts.enqueue, *parts.free]
    return fill_template(plan.template, {
        "config": "\n".join(config), "init_params": params, "init": "\n".join(parts.init),
        "copy_in": "\n".join(parts.copy_in) or "(void)0;", "compute": "\n".join(compute),
        "copy_out": "\n".join(parts.copy_out), "members": "\n".join(parts.members), "entry_params": params,
        "entry_args": args,
    })


class _Parts:
    def __init__(self):
        self.init, self.members, self.copy_in, self.copy_out = [], [], [], []
        self.dequeue, self.enqueue, self.free = [], [], []


def _scalar_input(parts: _Parts, i: int) -> None:
    parts.init.append(f"{{ GlobalTensor<In{i}> g; g.SetGlobalBuffer((__gm__ In{i}*)in{i}, 1); "
                      f"scalar{i}_ = static_cast<float>(g.GetValue(0)); }}")
    parts.members.append(f"float scalar{i}_ = 0.0f;")


def _streamed_input(parts: _Parts, i: int, base: str, size: str, load: str) -> None:
    parts.init.append(f"gmIn{i}_.SetGlobalBuffer((__gm__ In{i}*)in{i}{base});")
    parts.init.append(f"pipe_.InitBuffer(qIn{i}_, BUFFER_NUM, {size} * sizeof(In{i}));")
    parts.members += [f"TQue<QuePosition::VECIN, 1> qIn{i}_;", f"GlobalTensor<In{i}> gmIn{i}_;"]
    parts.copy_in.append(load)
    parts.dequeue.append(f"LocalTensor<In{i}> in{i} = qIn{i}_.DeQue<In{i}>();")
    parts.free.append(f"qIn{i}_.FreeTensor(in{i});")


def _rowconst_input(parts: _Parts, i: int) -> None:
    """A [cols] input: loaded once per block, widened to float and repeated for every row of a tile."""
    parts.members += [f"TBuf<QuePosition::VECCALC> rowBuf{i}_;", f"LocalTensor<float> rowConst{i}_;"]
    parts.init += [
        f"pipe_.InitBuffer(rowBuf{i}_, TILE * sizeof(float) + TILE * sizeof(In{i}));",
        f"rowConst{i}_ = rowBuf{i}_.Get<float>(TILE);",
        f"{{ LocalTensor<In{i}> raw = rowBuf{i}_.GetWithOffset<In{i}>(TILE, TILE * sizeof(float));",
        f"  GlobalTensor<In{i}> g; g.SetGlobalBuffer((__gm__ In{i}*)in{i});",
        f"  DataCopyExtParams params{{1, static_cast<uint32_t>(cols_ * sizeof(In{i})), 0, 0, 0}};",
        f"  DataCopyPadExtParams<In{i}> pad{{true, 0, 0, In{i}(0)}};",
        "  DataCopyPad(raw, g, params, pad);",
        "  MoveToVector();",
        f"  ToFloat(rowConst{i}_, raw, colsPad_);",
        f"  for (uint32_t r = 1; r < rowsPerTile_; ++r) DataCopy(rowConst{i}_[r * colsPad_], rowConst{i}_, colsPad_);",
        "  PipeBarrier<PIPE_ALL>(); }",
    ]


def _emit_input_elementwise(parts: _Parts, i: int, kind: str) -> None:
    if kind == "scalar":
        _scalar_input(parts, i)
    else:
        _streamed_input(parts, i, " + start, length_", "TILE", f"Load(qIn{i}_, gmIn{i}_, offset, count);")


def _emit_output(parts: _Parts, i: int, size: str, store: str, base: str) -> None:
    parts.init.append(f"gmOut{i}_.SetGlobalBuffer((__gm__ Out{i}*)out{i}{base});")
    parts.init.append(f"pipe_.InitBuffer(qOut{i}_, BUFFER_NUM, {size} * sizeof(Out{i}));")
    parts.members += [f"TQue<QuePosition::VECOUT, 1> qOut{i}_;", f"GlobalTensor<Out{i}> gmOut{i}_;"]
    parts.dequeue.append(f"LocalTensor<Out{i}> out{i} = qOut{i}_.AllocTensor<Out{i}>();")
    parts.enqueue.append(f"qOut{i}_.EnQue(out{i});")
    parts.copy_out.append(store)


_INPUT_EMITTERS = {
    ("elementwise", "full"): lambda parts, i: _emit_input_elementwise(parts, i, "full"),
    ("elementwise", "scalar"): lambda parts, i: _emit_input_elementwise(parts, i, "scalar"),
    ("rowwise", "full"): lambda parts, i: _streamed_input(parts, i, "", "TILE",
                                                          f"LoadRows(qIn{i}_, gmIn{i}_, row, n);"),
    ("rowwise", "col"): lambda parts, i: _streamed_input(parts, i, "", "MAX_ROWS",
                                                         f"LoadColumn(qIn{i}_, gmIn{i}_, row, n);"),
    ("rowwise", "scalar"): _scalar_input,
    ("rowwise", "rowconst"): _rowconst_input,
}

_OUTPUT_EMITTERS = {
    ("elementwise", "full"): lambda parts, i: _emit_output(parts, i, "TILE",
                                                           f"Store(qOut{i}_, gmOut{i}_, offset, count);",
                                                           " + start, length_"),
    ("rowwise", "full"): lambda parts, i: _emit_output(parts, i, "TILE",
                                                       f"StoreRows(qOut{i}_, gmOut{i}_, row, n);", ""),
    ("rowwise", "col"): lambda parts, i: _emit_output(parts, i, "MAX_ROWS",
                                                      f"StoreColumn(qOut{i}_, gmOut{i}_, row, n);", ""),
}


_ACC_START = {"sum": "0.0f", "max": "(-1.0f / 0.0f)", "min": "(1.0f / 0.0f)"}
_ACC_COMBINE = {"sum": "v += p;", "max": "if (p > v || p != p) v = p;", "min": "if (p < v || p != p) v = p;"}


def _emit_reduce_all(task: KernelTask, plan: Plan, lowering: Lowering, tile: int, buffers: int) -> str:
    n_out = len(task.outputs)
    accumulators = lowering.accumulators
    config = [f"constexpr uint32_t TILE = {tile};", f"constexpr int32_t BUFFER_NUM = {buffers};",
              f"constexpr uint32_t TEMPS = {max(1, lowering.slots('full'))};",
              f"constexpr uint32_t COL_TEMPS = {max(1, lowering.slots('col'))};",
              f"constexpr uint32_t ACCS = {max(1, len(accumulators))};",
              f"constexpr uint32_t MASKS = {max(1, lowering.slots('mask'))};",
              "constexpr uint32_t MASK_BYTES = TILE / 8;", "using ComputeT = float;"]
    types, params, args = io_lines(task)
    config += types
    parts = _Parts()
    for index, kind in enumerate(plan.input_kinds):
        _INPUT_EMITTERS[("elementwise", kind)](parts, index)
    outputs_alloc, outputs_store = [], []
    for i in range(n_out):
        parts.init += [f"gmOut{i}_.SetGlobalBuffer((__gm__ Out{i}*)out{i}, 1);",
                       f"pipe_.InitBuffer(qOut{i}_, 1, COL_STRIDE * sizeof(Out{i}));"]
        parts.members += [f"TQue<QuePosition::VECOUT, 1> qOut{i}_;", f"GlobalTensor<Out{i}> gmOut{i}_;"]
        outputs_alloc.append(f"LocalTensor<Out{i}> out{i} = qOut{i}_.AllocTensor<Out{i}>();")
        outputs_store += [f"qOut{i}_.EnQue(out{i});", f"out{i} = qOut{i}_.DeQue<Out{i}>();",
                          f"{{ DataCopyExtParams one{{1, static_cast<uint32_t>(sizeof(Out{i})), 0, 0, 0}};",
                          f"  DataCopyPad(gmOut{i}_, out{i}, one); }}", f"qOut{i}_.FreeTensor(out{i});"]
    combine = []
    for slot, op in enumerate(accumulators):
        combine.append(f"{{ float v = partials.GetValue({slot} * COL_STRIDE);")
        combine.append(f"  for (uint32_t b = 1; b < blocks_; ++b) {{ float p = partials.GetValue((b * ACCS + {slot}) * "
                       f"COL_STRIDE); {_ACC_COMBINE[op]} }}")
        combine.append(f"  acc.SetValue({slot} * COL_STRIDE, v); }}")
    accumulate = [*parts.dequeue, *lowering.sections["full"], *parts.free]
    finish = [*combine, "ScalarToVector();", *outputs_alloc, *lowering.sections["col"], *outputs_store]
    return fill_template("reduce_all", {
        "config": "\n".join(config), "init_params": params, "init": "\n".join(parts.init),
        "acc_init": "\n".join(f"Duplicate(acc[{slot} * COL_STRIDE], {_ACC_START[op]}, COL_STRIDE);"
                              for slot, op in enumerate(accumulators)),
        "copy_in": "\n".join(parts.copy_in) or "(void)0;", "accumulate": "\n".join(accumulate),
        "finish": "\n".join(finish), "members": "\n".join(parts.members), "entry_params": params,
        "entry_args": args,
    })
