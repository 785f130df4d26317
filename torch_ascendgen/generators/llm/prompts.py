"""Prompts: what the model is told. Versioned: ``PROMPT_VERSION`` is part of the cache key.

The system message holds the role, the reply format's rules (our kernel contract, or the operator project of
NPUKernelBench / MultiKernelBench), the SoC's facts and the API rules that trip models; the first user message holds
the task (the captured graph with its specs and traced shapes) and one example in the same format: a kernel of the
task's category for the contract, the shipped add_custom project (examples/, verified on the simulator) for the
others. Later user messages carry feedback: the exact failure of the last reply (repair) or the current best kernel
to beat (optimise), each asking for the complete reply in the same format.
"""

from __future__ import annotations

import json
import re
from importlib import resources

from torch_ascendgen.capture import KernelTask
from torch_ascendgen.generators.llm.formats import DIRECT_LAUNCH_FILE, MKB_STRINGS, ask_for, pascal_case
from torch_ascendgen.records import ENTRY, TILING_FUNCTION, split_files
from torch_ascendgen.targets.sim.op_host import soc_family
from torch_ascendgen.targets.sim.op_kernel import BY_TORCH, dtype_name
from torch_ascendgen.targets.soc import SocProfile

PROMPT_VERSION = "p2"
EXAMPLE_OP = "add_custom"  # the shipped one-shot example: z = x + 0.5 * y (examples/)

_ROLE = ("You are an expert AscendC kernel engineer. You write one complete AscendC vector kernel (C++ "
         "source) that computes a given PyTorch function exactly, for the given Ascend SoC.")

_CONTRACT = f"""The kernel contract (every kernel must follow it; kernels that do not are rejected unbuilt):
- `#include "kernel_operator.h"` and `using namespace AscendC;`; no other header except <cstdint>-style
  standard type headers; nothing that touches the OS (no files, processes, sockets, threads, environment,
  inline assembly).
- A POD `struct TilingData` holding what the kernel needs to know about the shapes.
- A host tiling function
  `extern "C" uint32_t {TILING_FUNCTION}(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks,
  const int64_t* dims, TilingData* tiling, uint64_t* workspaceBytes)`: tensors are the inputs then the
  outputs; tensor i has `ranks[i]` dims, all concatenated in `dims`. It fills `*tiling`, sets
  `*workspaceBytes` (usually 0) and returns the number of blocks to launch (at most coreNum; 0 means
  "this kernel cannot handle these shapes").
- The kernel entry `extern "C" __global__ __aicore__ void {ENTRY}(GM_ADDR in0, ..., GM_ADDR out0, ...,
  GM_ADDR workspace, GM_ADDR tiling)` whose first statement is `GET_TILING_DATA(t, tiling);`.
  `GetBlockIdx()` is this block's index, `GetBlockNum()` the number launched.
- Shapes vary between calls unless the task says it is specialised: read every size from `dims`, never
  hard-code the traced shapes. Sizes need not be multiples of anything (tails must be handled)."""

_RULES = """API rules that models get wrong (a kernel breaking one fails on the simulator):
- DataCopy(dst, src, count) between GM and UB needs count * sizeof(T) to be a multiple of 32 bytes. Move a
  tail that is not with DataCopyPad(local, gm, DataCopyExtParams{1, bytes, 0, 0, 0},
  DataCopyPadExtParams<T>{false, 0, 0, T(0)}) and DataCopyPad(gm, local, DataCopyExtParams{1, bytes, 0, 0, 0}).
- Never read or write GM outside a tensor: the last block and the last tile are usually shorter.
- UB buffers (InitBuffer) must all fit in the UB together; keep a few KB free for the APIs.
- Queue discipline: AllocTensor -> EnQue (producer), DeQue -> FreeTensor (consumer), every allocated
  tensor freed before it is allocated again; never allocate more tensors than the queue's buffer count.
- No bfloat16 arithmetic on 910B: Cast bf16 to float (CAST_NONE), compute in float, Cast back (CAST_RINT).
  half arithmetic is allowed but reductions and accuracy-sensitive math should be done in float.
- Compare/CompareScalar counts must cover a multiple of 256 bytes; Select picks by the resulting bit mask.
- Vector ops in count form (Add(dst, a, b, count), Exp(dst, src, count), ...) take any positive count.
- Results must match PyTorch within float tolerance, including for inf and NaN inputs."""


def first_messages(task: KernelTask, soc_profile: SocProfile, example_source: str = "", *,
                   fmt: str = "contract") -> list[dict]:
    """The opening system and user messages for ``task`` on ``soc_profile``, asking for a reply in ``fmt``
    (``example_source``, a contract kernel, is the contract format's example; the others use the shipped one)."""
    if fmt == "op_project":
        return _project_messages(task, soc_profile)
    if fmt == "multikernelbench":
        return _multikernelbench_messages(task, soc_profile)
    system = "\n\n".join([_ROLE, _CONTRACT, _soc_facts(soc_profile), _RULES])
    parts = [f"Write the AscendC kernel for this function.\n\n{task_text(task)}"]
    if example_source:
        parts.append(f"An example of a correct kernel for a {task.category} task (follow its structure, "
                     f"not its computation):\n\n```cpp\n{example_source.strip()}\n```")
    parts.append("Reply with the complete kernel source in one ```cpp block.")
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]


def task_text(task: KernelTask) -> str:
    """The task as readable text: inputs, outputs, the core-ATen graph, the traced shapes."""
    inputs = "\n".join(f"  in{i}: {spec.text()}" for i, spec in enumerate(task.inputs))
    outputs = "\n".join(f"  out{i}: {spec.text()}" for i, spec in enumerate(task.outputs))
    traced = ", ".join(f"in{i}={list(shape)}" for i, shape in enumerate(task.traced_shapes))
    generic = ("The kernel must work for every size of the symbols (s0, s1, ...); a dimension written as 1 is "
               "always 1 (it broadcasts)." if not task.specialized else
               "The task is specialised to the traced shapes.")
    return (f"Function `{task.name}` ({task.category}).\nInputs:\n{inputs}\nOutputs:\n{outputs}\n"
            f"Computation (core ATen, in0.. are the inputs, the returned values are out0..):\n"
            f"```\n{task.graph_text.strip()}\n```\nTraced shapes: {traced}. {generic}")


def repair_message(failure: str, stage: str, fmt: str = "contract") -> dict:
    """The user message that sends a failure back. ``stage``: "screen", "build", "simulator" or "verify";
    ``failure`` already names files and lines as the model does (formats.locate)."""
    lead = {
        "screen": "Your reply was rejected before it was built:",
        "build": "Your kernel does not compile. The compiler's errors:",
        "simulator": "Your kernel broke a hardware rule on the simulator:",
        "verify": "Your kernel runs but its results are wrong:",
    }[stage]
    ask = ("reply with the complete corrected kernel in one ```cpp block" if fmt == "contract" else
           f"{ask_for(fmt)}: the complete corrected reply, every part of it")
    return {"role": "user", "content": f"{lead}\n\n{failure.strip()}\n\nFix it and {ask}."}


def optimise_message(best_source: str, best_ns: float, bound: str, fmt: str = "contract") -> dict:
    """The user message that asks for a faster kernel than ``best_source`` (``best_ns`` on the simulator): shown
    in ``fmt`` when it is an operator project (a file bundle), as a ```cpp block when it is a contract kernel."""
    ask = "reply with the complete kernel in one ```cpp block" if fmt == "contract" else ask_for(fmt)
    return {"role": "user", "content": (
        f"That kernel is correct. The fastest correct kernel so far takes {best_ns:,.0f} ns on the simulator "
        f"({bound}):\n\n{_shown(best_source, fmt)}\n\nWrite a faster kernel that stays correct "
        "(for example: more blocks, larger tiles, double buffering, fewer passes over UB). "
        f"{ask[:1].upper()}{ask[1:]}.")}


def _shown(source: str, fmt: str) -> str:
    files = split_files(source)
    if files is None:
        return f"```cpp\n{source.strip()}\n```"
    if fmt == "direct_launch":
        sources = [{"path": p, "content": t} for p, t in files.items() if p != DIRECT_LAUNCH_FILE]
        return "```json\n" + json.dumps({"build": {"type": "ascendc_direct_launch"}, "sources": sources},
                                         indent=1) + "\n```"
    if fmt == "multikernelbench" and all(p.startswith(("op_host/", "op_kernel/", "attrs")) for p in files):
        strings = _as_strings(files)
        return "```python\n" + "\n".join(f'{name} = """\n{text.strip()}\n"""\n' for name, text in strings) + "```"
    return project_reply({p: t for p, t in files.items() if p.startswith(("op_host/", "op_kernel/"))})


def _as_strings(files: dict[str, str]) -> list[tuple[str, str]]:
    names = {"_tiling.h": "host_tiling_src", ".cpp": "host_operator_src"}
    out = []
    for path, text in files.items():
        if path.startswith("op_kernel/") and path.endswith(".cpp"):
            out.append(("kernel_src", text))
        elif path.startswith("op_host/"):
            out.extend((name, text) for end, name in names.items() if path.endswith(end))
    return sorted(out, key=lambda pair: MKB_STRINGS.index(pair[0]))


# ---- the operator-project formats ---------------------------------------------------------------------------

_PROJECT_ROLE = ("You are an expert AscendC operator engineer. You write a complete AscendC custom operator (its "
                 "host tiling, its OpDef and its kernel) that computes a given PyTorch function exactly, for the "
                 "given Ascend SoC.")


def op_name(task: KernelTask) -> str:
    """The op's file name the prompt asks for: ``<task name>_custom`` in snake_case (its type: PascalCase)."""
    base = re.sub(r"\W+", "_", task.name).strip("_").lower() or "kernel"
    return f"{'op_' if base[0].isdigit() else ''}{base}_custom"


def _project_rules(task: KernelTask, soc: SocProfile, files: str) -> str:
    op, op_type = op_name(task), pascal_case(op_name(task))
    inputs = ", ".join(f"{_ge_dtype(spec)}" for spec in task.inputs)
    outputs = ", ".join(f"{_ge_dtype(spec)}" for spec in task.outputs)
    return f"""The operator (every reply must give all of it, complete; replies that do not are rejected unbuilt):
- {files}
- The tiling header: in namespace optiling, `BEGIN_TILING_DATA_DEF(<Name>)`, `TILING_DATA_FIELD_DEF(<type>, <field>);`
  ..., `END_TILING_DATA_DEF;` and `REGISTER_TILING_DATA_CLASS({op_type}, <Name>)`; it includes
  "register/tilingdata_base.h".
- The host source: `static ge::graphStatus TilingFunc(gert::TilingContext* context)` in namespace optiling, an
  InferShape and InferDataType, and `class {op_type} : public OpDef` with `OP_ADD({op_type});` in namespace ops, with
  `this->AICore().AddConfig("{soc_family(soc)}");`. The OpDef's inputs are the task's inputs in order ({inputs}), its
  outputs the task's outputs in order ({outputs}), each REQUIRED and ND with that dtype. A scalar of the computation
  may be an OpDef attribute only with a default equal to it (`this->Attr("alpha").AttrType(OPTIONAL).Float(0.5);`):
  the op is called without attributes.
- Sizes vary between calls unless the task says it is specialised: TilingFunc reads every size from the context
  (`context->GetInputShape(i)->GetStorageShape()`), never the traced shapes, and sets the block dim (at most the
  vector core count), the tiling data (`SaveToBuffer`, `SetDataSize`) and `GetWorkspaceSizes(1)[0]`. Sizes need not
  be multiples of anything: handle tails; return ge::GRAPH_FAILED for a shape the kernel cannot take.
- The kernel: `extern "C" __global__ __aicore__ void {op}(GM_ADDR <input>, ..., GM_ADDR <output>, ..., GM_ADDR
  workspace, GM_ADDR tiling)` whose first statement is `GET_TILING_DATA(tilingData, tiling);`. `DTYPE_<NAME>` is the C
  type of the input or output named <NAME> in the OpDef (upper-cased). `#include "kernel_operator.h"` only.
- Host code includes only the host API's headers (register/op_def_registry.h, register/tilingdata_base.h,
  tiling/platform/platform_ascendc.h, tiling/tiling_api.h, graph/types.h), standard headers for types, math,
  algorithms, strings and vectors, and its own tiling header; it touches nothing of the OS (no files, processes,
  sockets, threads, environment, printing, inline assembly), nor does the kernel."""


def _ge_dtype(spec) -> str:
    value = BY_TORCH.get(spec.dtype)
    return f"ge::{dtype_name(value)}" if value is not None else str(spec.dtype)


def _project_messages(task: KernelTask, soc: SocProfile) -> list[dict]:
    op = op_name(task)
    files = (f"three files: op_host/{op}_tiling.h (the tiling data), op_host/{op}.cpp (TilingFunc, shape inference, "
             f"the OpDef) and op_kernel/{op}.cpp (the kernel)")
    system = "\n\n".join([_PROJECT_ROLE, _project_rules(task, soc, files), _soc_facts(soc), _RULES])
    example = project_reply(example_files())
    user = "\n\n".join([
        f"Write the AscendC operator `{op}` (op type `{pascal_case(op)}`) for this function.\n\n{task_text(task)}",
        f"An example of a correct operator, `{EXAMPLE_OP}` for z = x + 0.5 * y (follow its structure and its reply "
        f"format, not its computation):\n\n{example}",
        f"Reply with op_host/{op}_tiling.h, op_host/{op}.cpp and op_kernel/{op}.cpp, each complete in its own ```cpp "
        "block under a heading with its path, as in the example."])
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _multikernelbench_messages(task: KernelTask, soc: SocProfile) -> list[dict]:
    op = op_name(task)
    files = ("six Python strings in one ```python block: `project_json_src` (the msopgen JSON describing the op: "
             "its type, input_desc, output_desc, attr), `host_tiling_src` (op_host/<op>_tiling.h), "
             "`host_operator_src` (op_host/<op>.cpp), `kernel_src` (op_kernel/<op>.cpp), `python_bind_src` (the "
             "pybind/EXEC_NPU_CMD binding) and `model_src` (ModelNew calling the op); only the first four are "
             "built, the last two are read for attribute values and never run")
    system = "\n\n".join([_PROJECT_ROLE, _project_rules(task, soc, files), _soc_facts(soc), _RULES])
    user = "\n\n".join([
        "Here is an example to illustrate the expected transformation using custom AscendC operators.",
        f"Original architecture with kernel name `{EXAMPLE_OP}`:\n\n```python\n{_example_text('add_model.py.txt')}```",
        "Transformed version using custom AscendC kernels. It holds six embedded Python strings: `project_json_src`, "
        "`host_tiling_src`, `host_operator_src`, `kernel_src`, `python_bind_src` and `model_src`. The kernel "
        "function name in `kernel_src` must match the kernel name exactly; the operator in `project_json_src` and "
        "`host_operator_src` is named after it in PascalCase.",
        f"```python\n{_example_text('add_custom_multikernelbench.txt')}```",
        f"Now, you are given the following computation with kernel name `{op}` (PascalCase: `{pascal_case(op)}`):"
        f"\n\n{task_text(task)}",
        "Replace it with a custom AscendC kernel. Reply with the six Python strings listed above in one ```python "
        "block: just the code, no testing code."])
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def project_reply(files: dict[str, str]) -> str:
    """An operator project written as the op_project format asks: each file under a heading with its path."""
    return "\n\n".join(f"### {path}\n```cpp\n{text.strip()}\n```" for path, text in files.items())


def example_files() -> dict[str, str]:
    """The shipped one-shot example's files (examples/add_custom), tiling header, host source, kernel."""
    return {path: _example_text(f"{EXAMPLE_OP}/{path}") for path in
            (f"op_host/{EXAMPLE_OP}_tiling.h", f"op_host/{EXAMPLE_OP}.cpp", f"op_kernel/{EXAMPLE_OP}.cpp")}


def _example_text(relative: str) -> str:
    return resources.files("torch_ascendgen.generators.llm").joinpath("examples", relative).read_text()


def _soc_facts(soc: SocProfile) -> str:
    dtypes = "float32, float16" + (", bfloat16 (storage and Cast only)" if soc.has_bf16 else "")
    pad = "available" if soc.has_datacopy_pad else "NOT available (pad tails another way)"
    return (f"Target SoC {soc.name}: {soc.vector_cores} vector cores (coreNum), {soc.ub_bytes} bytes of UB per "
            f"core, dtypes {dtypes}, int32/int16 for integer work, DataCopyPad {pad}. {soc.cube_cores} cube cores "
            f"for matrix products (L1 {soc.l1_bytes}, L0A {soc.l0a_bytes}, L0B {soc.l0b_bytes}, L0C {soc.l0c_bytes} "
            'bytes): Mmad and Fixpipe, or the Matmul API (#include "lib/matmul_intf.h", REGIST_MATMUL_OBJ, a '
            "TCubeTiling in your TilingData) in a KERNEL_TYPE_MIX_AIC_1_2 kernel.")
