"""The kernel-launch syntax that is not C++: ``kernel<<<blockDim, l2ctrl, stream>>>(args)``.

The NPU compiler takes it; for g++ it is rewritten into a call of ``ascendc_sim_host::kernel_call`` with the line
numbers kept. A sample build (launch_sample.py) links the host runtime that runs such a call; a kernel built by
``compile_kernel`` gets a stand-in (csrc/ascendc_sim/sim/launch_stub.h) that only lets its launcher compile, since
there the entry itself is launched.
"""

from __future__ import annotations

import re

from torch_ascendgen.errors import KernelArgumentError


def rewrite_launches(text: str) -> tuple[str, bool]:
    """``text`` with every ``callee<<<config>>>`` turned into ``ascendc_sim_host::kernel_call(callee, "callee",
    config)`` (line numbers unchanged), and whether there was one."""
    code = _blank_comments_and_strings(text)
    out, position, changed = [], 0, False
    while (opening := code.find("<<<", position)) >= 0:
        closing = code.find(">>>", opening + 3)
        if closing < 0:
            break
        start = _callee_start(code, opening)
        callee = text[start:opening]
        name = re.sub(r"\s+", "", callee)
        out.append(text[position:start])
        out.append(f'ascendc_sim_host::kernel_call({callee}, "{name}", {text[opening + 3:closing]})')
        position, changed = closing + 3, True
    out.append(text[position:])
    return "".join(out), changed


_COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def _blank_comments_and_strings(text: str) -> str:
    """``text`` with comments and string and character literals replaced by spaces (newlines kept)."""
    return _COMMENT_OR_STRING.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _callee_start(text: str, end: int) -> int:
    """Where the callee before ``<<<`` at ``end`` starts: a qualified name, with template arguments."""
    at = end
    while at > 0 and text[at - 1] in " \t":
        at -= 1
    if at > 0 and text[at - 1] == ">":
        depth = 0
        while at > 0:
            at -= 1
            depth += {">": 1, "<": -1}.get(text[at], 0)
            if depth == 0:
                break
    while at > 0 and (text[at - 1].isalnum() or text[at - 1] in "_:#"):  # '#': a name pasted in a macro
        at -= 1
    if at == end or not (text[at].isalpha() or text[at] in "_:"):
        context = text[max(0, end - 40):end + 3]
        raise KernelArgumentError(f"a <<<>>> launch without a kernel name before it: {context!r}")
    return at
