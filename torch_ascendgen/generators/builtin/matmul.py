"""Matrix products and the work after them: the built-in generator's kernels for a graph that is one ``mm``, ``bmm``
or ``addmm`` (torch.mm, torch.bmm, F.linear, torch.matmul with batch dims) followed by elementwise work on its result
(a bias, an activation, a residual, a scale, a cast) and optionally a softmax along its rows.

The kernel (``csrc/templates/matmul.cpp``) computes the product on the cube unit through the high-level Matmul API
(A and B read from GM, each [baseM, baseN] block of C handed to the vector core in UB by GetTensorC) and runs the
epilogue on the vector core as the row-wise template would (generator.py lowers it, on an epilogue graph this module
makes: the product as its input 0, then the other inputs it reads). A block of C holds whole rows (baseN covers N),
so a softmax sees its row at once: rows longer than MAX_COLS are declined, as are K past the Matmul API's ND limit.

``plan_matmul`` says whether a task is one (None: it has no matrix product; UnsupportedFunction with the reason when
it has one this generator cannot do); ``emit_matmul`` writes a variant's source; ``cube_tiling`` is the host tiling
in Python, the numbers the template's ascendgen_tiling computes (for tests, and to price eager matmuls alike).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import torch
import torch.fx
import torch.utils._pytree as pytree

from torch_ascendgen.capture import KernelTask, TensorSpec
from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.generators.builtin.lowering import CTYPES, GM_CTYPES
from torch_ascendgen.generators.builtin.templates import fill_template

VERSION = "builtin-matmul-1"
PRODUCTS = frozenset({"aten.mm.default", "aten.bmm.default", "aten.addmm.default"})
VIEWS = frozenset({"aten.view.default", "aten._unsafe_view.default", "aten.reshape.default", "aten.permute.default",
                    "aten.transpose.int", "aten.t.default", "aten.expand.default", "aten.unsqueeze.default",
                    "aten.squeeze.dim", "aten.squeeze.dims", "aten.clone.default", "aten.alias.default"})
RESHAPES = frozenset({"aten.view.default", "aten._unsafe_view.default", "aten.reshape.default"})
# epilogue ops whose row-wise lowering needs the row-wise template's scalar helpers (not in matmul.cpp)
_NOT_IN_EPILOGUE = frozenset({"aten.cumsum.default", "aten.cumprod.default", "aten.flip.default",
                              "aten.prod.dim_int", "aten.prod.default"})

# The smallest cube buffers of the SoCs we target (targets/soc.py: Atlas A2/A3 L0A = L0B = 64 KB, L0C = 128 KB,
# L1 = 512 KB). TCubeTiling page (atlasascendc_api_07_0673): baseM * baseK * sizeof(A) <= L0A, baseK * baseN *
# sizeof(B) <= L0B, baseM * baseN * sizeof(float) <= L0C; Ka (ND, not transposed) within [1, 65535].
L0A_BYTES, L0B_BYTES, L0C_BYTES, L1_BYTES = 65536, 65536, 131072, 524288
MAX_K = 65535
MAX_ROWS = 256  # rows of an epilogue tile and of a block of C at most (the per-row arrays hold this many)
COL_STRIDE = 8  # floats between two rows' values in a per-row array (as the row-wise template)
C_TILE = 16384  # elements of the UB block of C ([baseM, colsPad]), one buffer
MAX_COLS = C_TILE // 16  # 16 whole rows of C in its UB block
# assumption: the Matmul API's system workspace (GetLibApiWorkSpaceSize) is 16 MB on Atlas A2; no page we read
# gives the number, so the kernel asks for this much.
SYS_WORKSPACE_BYTES = 16 * 1024 * 1024
TILES = (8192, 4096, 2048, 1024)  # elements of an epilogue tile ([rowsPerTile, colsPad]), largest first


@dataclass(frozen=True)
class MatmulPlan:
    """One matrix product C = A @ B (per batch) and the epilogue on C."""

    a: int  # the task input that holds A (row-major [batch * m, k])
    b: int  # the task input that holds B ([k, n] row-major, or [n, k] when trans_b), per batch when b_batched
    trans_b: bool
    b_batched: bool
    batch_dims: int  # leading dims of the product's shape (after its views) that are bmm's batch (0 for mm)
    shape_tensor: int  # a tensor (inputs, then outputs) of the product's full shape
    k_source: tuple[int, int] | None  # (tensor, dim) whose size is K; None: K is the constant k_constant
    k_constant: int
    dtype: torch.dtype  # A's and B's
    c_dtype: torch.dtype  # C in UB: float for addmm and float tasks, else the product's own (eager rounds it)
    epilogue: KernelTask  # the product as input 0, then the task inputs the epilogue reads
    epilogue_inputs: tuple[int, ...]  # the task inputs that are the epilogue's inputs 1, 2, ...
    traced: tuple[int, int, int, int]  # batch, m, n, k at the traced shapes


def plan_matmul(task: KernelTask) -> MatmulPlan | None:
    """The plan when the task's graph holds a matrix product; None when it holds none."""
    graph = task.graph.graph
    products = [node for node in graph.nodes if node.op == "call_function" and str(node.target) in PRODUCTS]
    if not products:
        return None
    if len(products) > 1:
        raise UnsupportedFunction(f"it holds {len(products)} matrix products; the built-in generator fuses one "
                                  "matmul with the elementwise work after it")
    product = products[0]
    values = _meta_values(task)
    operands = product.args[1:3] if str(product.target) == "aten.addmm.default" else product.args[:2]
    a_value, b_value = values[operands[0]], values[operands[1]]
    dtype = a_value.dtype
    if dtype not in CTYPES or b_value.dtype != dtype:
        raise UnsupportedFunction(f"it multiplies {a_value.dtype} by {b_value.dtype} matrices; the built-in "
                                  "matmul kernel takes float32, float16 and bfloat16 ones of one dtype")
    bias = _bias(product)
    end = _product_end(product)
    full = tuple(end.meta["shape"])
    if len(full) < 1 or str(full[-1]) != str(product.meta["shape"][-1]):
        raise UnsupportedFunction("the product is viewed to a shape with another last dim; the built-in matmul "
                                  "kernel keeps its rows")
    placeholders = [node for node in graph.nodes if node.op == "placeholder"]
    a = _operand_input(operands[0], placeholders, "A")
    b = _operand_input(operands[1], placeholders, "B")
    batch, m, n, k = _dims(product, values)
    _check_a(values[operands[0]], task.traced_shapes[a], batch, m, k)
    trans_b, b_batched = _layout_b(values[operands[1]], task.traced_shapes[b], batch, k, n)
    if k > MAX_K:
        raise UnsupportedFunction(f"its K is {k}; the Matmul API takes K up to {MAX_K} for an ND A that is not "
                                  "transposed (TCubeTiling page), so it runs eagerly")
    if n > MAX_COLS:
        raise UnsupportedFunction(f"its rows have {n} elements; the built-in matmul kernel keeps whole rows of C "
                                  f"in one block (at most {MAX_COLS} elements)")
    epilogue, inputs = _epilogue(task, product, end, bias, values)
    c_dtype = torch.float32 if bias is not None or dtype == torch.float32 else dtype
    epilogue = _with_product_dtype(epilogue, c_dtype)
    return MatmulPlan(a, b, trans_b, b_batched, _batch_dims(end, values, batch, m), _shape_tensor(task, full),
                      *_k_source(task, operands[0]), dtype, c_dtype, epilogue, inputs, (batch, m, n, k))


# ---- the graph ------------------------------------------------------------------------------------------


def _meta_values(task: KernelTask) -> dict[torch.fx.Node, object]:
    """Every node's value at the traced shapes, on meta tensors (strides included: how views lay operands out)."""
    values: dict[torch.fx.Node, object] = {}

    class Recorder(torch.fx.Interpreter):
        def run_node(self, node):
            values[node] = result = super().run_node(node)
            return result

    inputs = [torch.empty(shape, dtype=spec.dtype, device="meta")
              for shape, spec in zip(task.traced_shapes, task.inputs)]
    try:
        Recorder(task.graph).run(*inputs)
    except Exception as exc:  # noqa: BLE001 - an op without a meta kernel: not ours to guess
        raise UnsupportedFunction(f"its graph could not be run on meta tensors to lay out the product's operands "
                                  f"({type(exc).__name__}: {exc})") from exc
    return values


def _bias(product: torch.fx.Node) -> torch.fx.Node | None:
    if str(product.target) != "aten.addmm.default":
        return None
    beta, alpha = product.kwargs.get("beta", 1), product.kwargs.get("alpha", 1)
    if beta != 1 or alpha != 1 or len(product.args) > 3:
        raise UnsupportedFunction("it is an addmm with beta or alpha other than 1; the built-in matmul kernel "
                                  "takes bias + A @ B")
    bias = product.args[0]
    if not isinstance(bias, torch.fx.Node):
        raise UnsupportedFunction("addmm's bias is not a tensor")
    return bias


def _product_end(product: torch.fx.Node) -> torch.fx.Node:
    """The product after the reshapes it alone goes through (a Linear on 3-D input views it back to 3-D)."""
    end = product
    while len(end.users) == 1:
        user = next(iter(end.users))
        if user.op != "call_function" or str(user.target) not in RESHAPES:
            break
        end = user
    return end


def _operand_input(node: torch.fx.Node, placeholders: list[torch.fx.Node], name: str) -> int:
    """The input an operand is a view of."""
    while node.op == "call_function" and str(node.target) in VIEWS:
        node = node.args[0]
    if node.op != "placeholder":
        raise UnsupportedFunction(f"the product's {name} is computed ({node.target}); the built-in matmul kernel "
                                  "reads A and B from kernel inputs (views of them)")
    return placeholders.index(node)


def _dims(product: torch.fx.Node, values: dict) -> tuple[int, int, int, int]:
    shape = tuple(values[product].shape)
    batch = shape[0] if len(shape) == 3 else 1
    operands = product.args[1:3] if str(product.target) == "aten.addmm.default" else product.args[:2]
    return batch, shape[-2], shape[-1], int(values[operands[0]].shape[-1])


def _check_a(value: torch.Tensor, root: tuple, batch: int, m: int, k: int) -> None:
    if not (value.is_contiguous() and value.storage_offset() == 0 and math.prod(root) == batch * m * k):
        raise UnsupportedFunction("the product's A is not its input read row by row (a transposed or strided "
                                  "view); the built-in matmul kernel takes A as [m, k] rows")


def _layout_b(value: torch.Tensor, root: tuple, batch: int, k: int, n: int) -> tuple[bool, bool]:
    """(transposed, one B per batch) of the product's B, as its input lays it out."""
    batched = value.dim() == 3 and batch > 1 and value.stride(0) != 0
    matrix = value[0] if value.dim() == 3 else value
    if value.storage_offset() != 0 or math.prod(root) != (batch if batched else 1) * k * n:
        raise UnsupportedFunction("the product's B is not a whole input; the built-in matmul kernel reads B from "
                                  "one")
    if batched and value.stride(0) != k * n:
        raise UnsupportedFunction("the product's B batches are not one after another in its input")
    if matrix.is_contiguous():
        return False, batched
    if matrix.t().is_contiguous():
        return True, batched
    raise UnsupportedFunction("the product's B is a strided view of its input; the built-in matmul kernel takes "
                              "B as [k, n] rows or its transpose")


def _batch_dims(end: torch.fx.Node, values: dict, batch: int, m: int) -> int:
    """How many leading dims of the product's full shape make up bmm's batch."""
    shape = tuple(values[end].shape)
    if batch == 1 and len(values[end].shape) == 2:
        return 0
    for count in range(len(shape)):
        if math.prod(shape[:count]) == batch and math.prod(shape[count:-1]) == m:
            return count
    raise UnsupportedFunction(f"the product's shape {list(shape)} does not split into its batch {batch} and rows "
                              f"{m}")


def _shape_tensor(task: KernelTask, full: tuple) -> int:
    specs = [*task.inputs, *task.outputs]
    for index, spec in enumerate(specs):
        if tuple(map(str, spec.shape)) == tuple(map(str, full)):
            return index
    raise UnsupportedFunction(f"no input or output has the product's shape {list(full)}; the kernel's tiling "
                              "reads the sizes from one")


def _k_source(task: KernelTask, a_operand: torch.fx.Node) -> tuple[tuple[int, int] | None, int]:
    k = a_operand.meta["shape"][-1]
    if isinstance(k, int):
        return None, k
    for index, spec in enumerate(task.inputs):
        for dim, size in enumerate(spec.shape):
            if str(size) == str(k):
                return (index, dim), 0
    raise UnsupportedFunction(f"the product's K ({k}) is no input's size; the kernel's tiling reads it from one")


def _epilogue(task: KernelTask, product: torch.fx.Node, end: torch.fx.Node, bias: torch.fx.Node | None,
              values: dict) -> tuple[KernelTask, tuple[int, ...]]:
    """The work after the product as a task of its own: the product (at its full shape) is input 0."""
    graph = task.graph.graph
    before = _ancestors(end)
    work = [node for node in graph.nodes if node.op == "call_function" and node not in before]
    for node in work:
        if str(node.target) in _NOT_IN_EPILOGUE:
            raise UnsupportedFunction(f"it computes {node.target} after the product; the built-in matmul kernel's "
                                      "epilogue takes elementwise work and row reductions (softmax, sums)")
        for used in node.all_input_nodes:
            if used in before and used is not end and used.op != "placeholder":
                raise UnsupportedFunction(f"{node.target} after the product reads {used.target}, a step of the "
                                          "product's operands; the built-in matmul kernel does not keep those")
    placeholders = [node for node in graph.nodes if node.op == "placeholder"]
    read = {used for node in work for used in node.all_input_nodes if used.op == "placeholder"}
    if bias is not None:
        if bias.op != "placeholder":
            raise UnsupportedFunction("addmm's bias is computed; the built-in matmul kernel takes it from an input")
        read.add(bias)
    inputs = tuple(i for i, node in enumerate(placeholders) if node in read)
    epilogue = torch.fx.Graph()
    env: dict[torch.fx.Node, torch.fx.Node] = {}
    start = epilogue.placeholder("product")
    start.meta = {"val": values[end], "shape": end.meta["shape"]}
    for index in inputs:
        env[placeholders[index]] = epilogue.placeholder(f"in{index}")
        env[placeholders[index]].meta = dict(placeholders[index].meta)
    env[end] = start
    if bias is not None:
        env[end] = epilogue.call_function(torch.ops.aten.add.Tensor, (start, env[bias]))
        env[end].meta = {"val": values[end], "shape": end.meta["shape"]}
    for node in work:
        env[node] = epilogue.node_copy(node, lambda n: env[n])
    output = next(node for node in graph.nodes if node.op == "output")
    epilogue.output(pytree.tree_map(lambda n: env[n] if isinstance(n, torch.fx.Node) else n, output.args[0]))
    module = torch.fx.GraphModule(task.graph, epilogue)
    specs = (TensorSpec(values[end].dtype, tuple(end.meta["shape"])), *(task.inputs[i] for i in inputs))
    traced = (tuple(values[end].shape), *(task.traced_shapes[i] for i in inputs))
    return KernelTask(f"{task.name}.epilogue", "", specs, task.outputs, task.category, task.specialized, traced,
                      module, task.output_tree, task.guards), inputs


def _ancestors(node: torch.fx.Node) -> set[torch.fx.Node]:
    seen: set[torch.fx.Node] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        stack += current.all_input_nodes
    return seen


def _with_product_dtype(epilogue: KernelTask, dtype: torch.dtype) -> KernelTask:
    return replace(epilogue, inputs=(TensorSpec(dtype, epilogue.inputs[0].shape), *epilogue.inputs[1:]))


# ---- the host tiling, in Python --------------------------------------------------------------------------


def cube_tiling(batch: int, m: int, n: int, k: int, dtype: torch.dtype, vector_cores: int, tile: int = TILES[0],
                col_align: int = 16) -> dict[str, int] | None:
    """The TCubeTiling fields (and the kernel's own split) that matmul.cpp's ascendgen_tiling computes for one
    launch; None where it declines. Each block is one AI Core (MIX_AIC_1_2: a cube core and two vector cores); each
    vector core takes whole units (a batch's chunk of singleCoreM rows, all N, all K)."""
    size = torch.empty((), dtype=dtype).element_size()
    cols_pad = _round_up(n, col_align)
    if min(batch, m, n, k) <= 0 or k > MAX_K or cols_pad > MAX_COLS or cols_pad > tile:
        return None
    workers = max(2, vector_cores // 2 * 2)
    per_chunk = _round_up(_ceil(m, _ceil(workers, batch)), 16)  # every vector core a chunk of rows, where m allows
    base_m = min(MAX_ROWS, C_TILE // cols_pad, L0C_BYTES // (cols_pad * 4), per_chunk) // 16 * 16
    if base_m < 16:
        return None
    db = 2 if cols_pad <= 512 else 1  # L0A/L0B double-buffered while a base block of B fits half of L0B
    k_align = 16  # TCubeTiling table 2 (as sim/matmul.h checks it): baseK a multiple of 16 for float inputs too
    base_k = min(L0A_BYTES // db // (base_m * size), L0B_BYTES // db // (cols_pad * size), _round_up(k, k_align))
    base_k = base_k // k_align * k_align
    if base_k < k_align:
        return None
    k_blocks = _ceil(k, base_k)
    step_k = min(k_blocks, L1_BYTES // (2 * (base_m + cols_pad) * base_k * size))
    if step_k < 1:
        return None
    depth = step_k * (2 if k_blocks > step_k else 1)
    single_m = min(max(base_m, _round_up(_ceil(m, _ceil(workers, batch)), base_m)), _round_up(m, base_m))
    chunks = _ceil(m, single_m)
    per_worker = _ceil(batch * chunks, workers)
    blocks = _ceil(_ceil(batch * chunks, per_worker), 2)
    cube = {"usedCoreNum": blocks, "M": m, "N": n, "Ka": k, "Kb": k, "singleCoreM": single_m, "singleCoreN": n,
            "singleCoreK": k, "baseM": base_m, "baseN": cols_pad, "baseK": base_k, "depthA1": depth,
            "depthB1": depth, "stepM": 1, "stepN": 1, "stepKa": step_k, "stepKb": step_k, "isBias": 0,
            "iterateOrder": 0, "dbL0A": db, "dbL0B": db, "dbL0C": 1,
            "shareL1Size": depth * (base_m + cols_pad) * base_k * size, "shareL0CSize": base_m * cols_pad * 4}
    return {**cube, "colsPad": cols_pad, "rowsPerTile": min(MAX_ROWS, tile // cols_pad, base_m), "mChunks": chunks,
            "units": batch * chunks, "unitsPerWorker": per_worker}


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def _round_up(a: int, b: int) -> int:
    return _ceil(a, b) * b


# ---- the kernel ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EpilogueCode:
    """What generator.py wrote for the epilogue: the row-wise template's regions for inputs 1.. and the outputs."""

    types: list[str]  # In1.., Out0.. aliases
    init: list[str]
    members: list[str]
    copy_in: list[str]
    compute: list[str]
    copy_out: list[str]
    temps: int
    col_temps: int
    masks: int


def emit_matmul(task: KernelTask, plan: MatmulPlan, code: EpilogueCode, tile: int, buffers: int) -> str:
    """``csrc/templates/matmul.cpp`` for ``plan`` with this epilogue, tile length and buffer count."""
    narrow = min(spec.dtype.itemsize for spec in (*plan.epilogue.inputs, *plan.epilogue.outputs))
    k_tensor, k_dim = plan.k_source if plan.k_source is not None else (-1, 0)
    config = [f"constexpr uint32_t TILE = {tile};", f"constexpr uint32_t C_TILE = {C_TILE};",
              f"constexpr int32_t BUFFER_NUM = {buffers};",
              f"constexpr uint32_t TEMPS = {code.temps};", f"constexpr uint32_t COL_TEMPS = {code.col_temps};",
              f"constexpr uint32_t MASKS = {code.masks};", "constexpr uint32_t MASK_BYTES = TILE / 8;",
              f"constexpr uint32_t MAX_ROWS = {MAX_ROWS};", f"constexpr uint32_t COL_STRIDE = {COL_STRIDE};",
              "constexpr uint32_t COL_TILE = MAX_ROWS * COL_STRIDE;",
              f"constexpr uint32_t COL_ALIGN = {max(16, 32 // narrow)};",
              f"constexpr int32_t SHAPE_TENSOR = {plan.shape_tensor};",
              f"constexpr int32_t BATCH_DIMS = {plan.batch_dims};",
              f"constexpr int32_t K_TENSOR = {k_tensor};", f"constexpr int32_t K_DIM = {k_dim};",
              f"constexpr int64_t K_CONSTANT = {plan.k_constant};",
              f"constexpr bool TRANS_B = {'true' if plan.trans_b else 'false'};",
              f"constexpr bool B_BATCHED = {'true' if plan.b_batched else 'false'};",
              f"using AType = {CTYPES[plan.dtype]};", f"using BType = {CTYPES[plan.dtype]};",
              f"using CType = {CTYPES[plan.c_dtype]};", "using ComputeT = float;", *code.types]
    epilogue_params = [f"GM_ADDR in{i + 1}" for i in range(len(plan.epilogue_inputs))]
    epilogue_params += [f"GM_ADDR out{i}" for i in range(len(task.outputs))]
    entry_params = [f"GM_ADDR x{i}" for i in range(len(task.inputs))] + [f"GM_ADDR out{i}"
                                                                          for i in range(len(task.outputs))]
    entry_args = [f"x{plan.a}", f"x{plan.b}", *(f"x{i}" for i in plan.epilogue_inputs),
                  *(f"out{i}" for i in range(len(task.outputs)))]
    return fill_template("matmul", {
        "config": "\n".join(config), "init_params": "".join(f"{p}, " for p in epilogue_params).rstrip(),
        "init": "\n".join(code.init) or "(void)0;", "copy_in": "\n".join(code.copy_in) or "(void)0;",
        "compute": "\n".join(code.compute), "copy_out": "\n".join(code.copy_out),
        "members": "\n".join(code.members), "entry_params": ", ".join(entry_params) + ",",
        "entry_args": ", ".join(entry_args) + ",",
    })


def c_block_bytes(plan: MatmulPlan, tile: int) -> int:
    """UB the block of C takes (the template's qC_), and its rows repacked for the epilogue (repack_)."""
    return (C_TILE + tile) * plan.c_dtype.itemsize


def fitting_tiles(plan: MatmulPlan) -> tuple[int, ...]:
    """The epilogue tile lengths that hold a row at the traced shapes."""
    cols_pad = -(-plan.traced[2] // 16) * 16
    return tuple(tile for tile in TILES if tile >= cols_pad)


def epilogue_types(plan: MatmulPlan) -> list[str]:
    """The In<i> (i >= 1) and Out<i> aliases of the epilogue's tensors; In0 is the product, CType."""
    types = ["using In0 = CType;"]
    types += [f"using In{i} = {GM_CTYPES[spec.dtype]};" for i, spec in enumerate(plan.epilogue.inputs) if i]
    types += [f"using Out{i} = {CTYPES[spec.dtype]};" for i, spec in enumerate(plan.epilogue.outputs)]
    return types


def is_product(node: torch.fx.Node) -> bool:
    """Whether ``node`` is a matrix product this generator's kernels start from."""
    return node.op == "call_function" and str(node.target) in PRODUCTS

