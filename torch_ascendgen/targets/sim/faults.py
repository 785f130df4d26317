"""Where a checked launch faulted: the kernel's source line, read from the library's line tables.

A checked launch (SimKernel.launch) that touches memory it was not given dies in its sandboxed process after
printing the faulting code's offset in the kernel library; the parent turns that into "kernel.cpp:77 (in f)".
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from torch_ascendgen import config
from torch_ascendgen.targets.sim.build import builds_root

_FAULT_PC_RE = re.compile(r"^ascendgen-fault-pc: (0x[0-9a-f]+) in (\S+)$", re.MULTILINE)


def fault_location(output: str) -> tuple[str, str]:
    """("kernel.cpp:77 (in add_custom)", ``output`` without the report's address line) for the fault a checked
    launch reported in a child's ``output`` (its handler prints the code's offset in the kernel library), from
    the library's line tables; ("", output) when there is none. Only libraries in our build cache are read:
    the child's output is the kernel's to forge."""
    found = _FAULT_PC_RE.findall(output)
    if not found:
        return "", output
    offset, library = found[-1]
    where = _source_line(Path(library), offset)
    return where, _FAULT_PC_RE.sub("", output).strip() if where else output


def _ours(library: Path) -> bool:
    """Whether ``library`` is in the build cache or the kernel cache (a served kernel's), not a path the child named."""
    resolved = library.resolve()
    return any(resolved.is_relative_to(root.resolve()) for root in (builds_root(), config.cache_dir() / "kernels"))


def _source_line(library: Path, offset: str) -> str:
    tool = shutil.which("addr2line")
    try:
        if tool is None or library.name != "kernel.so" or not _ours(library):
            return ""
        done = subprocess.run([tool, "-f", "-C", "-e", str(library), offset], capture_output=True, text=True,
                              timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    lines = done.stdout.split("\n")
    if len(lines) < 2 or ":" not in lines[1] or lines[1].startswith("??"):
        return ""
    file, _, line = lines[1].partition(" ")[0].rpartition(":")
    return f"{Path(file).name}:{line}" + (f" (in {lines[0]})" if lines[0] and lines[0] != "??" else "")
