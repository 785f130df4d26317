"""Prompts: what the model is told. Versioned: ``PROMPT_VERSION`` is part of the cache key.

The system message holds the role, the kernel contract, the SoC's facts and the API rules that
trip models; the first user message holds the task (the captured graph with its specs and traced
shapes) and one example kernel of the same category. Later user messages carry feedback: the
exact failure of the last kernel (repair) or the current best kernel to beat (optimise).
"""

from __future__ import annotations

from torch_ascendgen.capture import KernelTask
from torch_ascendgen.records import ENTRY, TILING_FUNCTION
from torch_ascendgen.targets.soc import SocProfile

PROMPT_VERSION = "p1"

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


def first_messages(task: KernelTask, soc_profile: SocProfile, example_source: str = "") -> list[dict]:
    """The opening system and user messages for ``task`` on ``soc_profile``."""
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


def repair_message(failure: str, stage: str) -> dict:
    """The user message that sends a failure back. ``stage``: "screen", "build", "simulator" or "verify"."""
    lead = {
        "screen": "Your reply was rejected before it was built:",
        "build": "Your kernel does not compile. The compiler's errors:",
        "simulator": "Your kernel broke a hardware rule on the simulator:",
        "verify": "Your kernel runs but its results are wrong:",
    }[stage]
    return {"role": "user", "content": f"{lead}\n\n{failure.strip()}\n\nFix it and reply with the complete "
                                       "corrected kernel in one ```cpp block."}


def optimise_message(best_source: str, best_ns: float, bound: str) -> dict:
    """The user message that asks for a faster kernel than ``best_source`` (``best_ns`` on the simulator)."""
    return {"role": "user", "content": (
        f"That kernel is correct. The fastest correct kernel so far takes {best_ns:,.0f} ns on the simulator "
        f"({bound}):\n\n```cpp\n{best_source.strip()}\n```\n\nWrite a faster kernel that stays correct "
        "(for example: more blocks, larger tiles, double buffering, fewer passes over UB). Reply with the "
        "complete kernel in one ```cpp block.")}


def _soc_facts(soc: SocProfile) -> str:
    dtypes = "float32, float16" + (", bfloat16 (storage and Cast only)" if soc.has_bf16 else "")
    pad = "available" if soc.has_datacopy_pad else "NOT available (pad tails another way)"
    return (f"Target SoC {soc.name}: {soc.vector_cores} vector cores (coreNum), {soc.ub_bytes} bytes of UB per "
            f"core, dtypes {dtypes}, int32/int16 for integer work, DataCopyPad {pad}. {soc.cube_cores} cube cores "
            f"for matrix products (L1 {soc.l1_bytes}, L0A {soc.l0a_bytes}, L0B {soc.l0b_bytes}, L0C {soc.l0c_bytes} "
            'bytes): Mmad and Fixpipe, or the Matmul API (#include "lib/matmul_intf.h", REGIST_MATMUL_OBJ, a '
            "TCubeTiling in your TilingData) in a KERNEL_TYPE_MIX_AIC_1_2 kernel.")
