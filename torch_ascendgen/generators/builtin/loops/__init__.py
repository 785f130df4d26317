"""The general lowering: any function PyTorch Inductor lowers to loops, as one multi-pass AscendC kernel.

``inductor.py`` turns the captured graph into a loop-level Program (``ir.py``); ``emit.py`` writes the kernel, its
values computed by ``values.py`` (vector instructions by dtype class) and ``scalar_ops.py`` (lane by lane, exact).
"""

from __future__ import annotations

from torch_ascendgen.capture import KernelTask
from torch_ascendgen.errors import UnsupportedFunction
from torch_ascendgen.records import Candidate

VERSION = "builtin-loops-5"  # "builtin-": ours, trusted to run in-process (trust.py)
_VARIANTS = ((1.0, 2), (0.5, 2), (1.0, 1), (0.5, 1))  # (share of the UB budget, buffers per queue)


def generate_loops(task: KernelTask, variants: int, budget: int) -> list[Candidate]:
    """Up to ``variants`` kernels for ``task``: for each UB share and buffering, the program as Inductor gives it
    and with its pointwise passes' last two ranges merged where that suits them; raises UnsupportedFunction with the
    reason."""
    from torch_ascendgen.generators.builtin.loops.emit import emit_program
    from torch_ascendgen.generators.builtin.loops.flatten import merged_rows
    from torch_ascendgen.generators.builtin.loops.inductor import program_of

    program = program_of(task)
    merged = merged_rows(program)
    forms = [("rows", program), ("merged rows", merged)] if merged is not None else [("rows", program)]
    grid = [(form, share, buffers) for share, buffers in _VARIANTS for form in forms]
    candidates, failure = [], None
    for (form, shaped), share, buffers in grid[: max(1, variants)]:
        try:
            source = emit_program(shaped, int(budget * share), buffers)
        except UnsupportedFunction as exc:
            failure = exc
            continue
        label = (f"loops kernel ({len(shaped.passes)} pass(es), {form}), {int(share * 100)}% of the UB, "
                 f"{buffers} buffer(s)")
        candidates.append(Candidate(source, VERSION, {"template": "loops", "share": share, "buffers": buffers,
                                                      "form": form}, label))
    if not candidates:
        raise failure or UnsupportedFunction("no loop kernel fits")
    return candidates
