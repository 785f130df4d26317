"""The operator-project layout of a file bundle (records.join_files): what both targets build from.

A bundle is an operator project when it holds op_host/<op>_tiling.h, op_host/<op>.cpp and op_kernel/<op>.cpp (the
msopgen layout NPUKernelBench's models write), optionally other op_host/*.h and op_kernel/*.h and ``attrs.json``
(attribute values by OpDef name, for attributes the reply set elsewhere, e.g. MultiKernelBench's ModelNew).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from torch_ascendgen.errors import OpProjectError
from torch_ascendgen.records import ATTRS_FILE, split_files


@dataclass(frozen=True)
class ProjectFiles:
    """A bundle's operator project: the op's file name and its files by role."""

    name: str  # add_custom
    tiling_header: str
    op_host: str
    op_kernel: str
    host_headers: tuple[tuple[str, str], ...]  # other op_host/*.h
    kernel_headers: tuple[tuple[str, str], ...]  # op_kernel/*.h, by the name the kernel includes them
    attrs: dict

    @property
    def kernel_file(self) -> str:
        return f"op_kernel/{self.name}.cpp"

    @property
    def host_files(self) -> dict[str, str]:
        return {f"op_host/{self.name}_tiling.h": self.tiling_header, **dict(self.host_headers),
                f"op_host/{self.name}.cpp": self.op_host}


def project_files(source: str) -> ProjectFiles | None:
    """The operator project a bundle holds (None: ``source`` is one kernel-contract file). OpProjectError names what
    a bundle lacks."""
    files = split_files(source)
    if files is None:
        return None
    kernels = [p for p in files if re.fullmatch(r"op_kernel/\w+\.cpp", p)]
    if len(kernels) != 1:
        raise OpProjectError(f"an operator project has one op_kernel/<op>.cpp; this one has {len(kernels)} "
                             f"({', '.join(kernels) or 'none'})")
    name = kernels[0][len("op_kernel/"):-len(".cpp")]
    wanted = (f"op_host/{name}_tiling.h", f"op_host/{name}.cpp")
    missing = [p for p in wanted if p not in files]
    if missing:
        raise OpProjectError(f"the operator project {name} lacks {', '.join(missing)} (beside {kernels[0]})")
    unknown = [p for p in files if p not in (*wanted, kernels[0], ATTRS_FILE)
               and not re.fullmatch(r"op_(host|kernel)/[\w.]+\.h", p)]
    if unknown:
        raise OpProjectError(f"an operator project holds op_host/*.cpp|.h, op_kernel/*.cpp|.h and {ATTRS_FILE}; "
                             f"not {', '.join(unknown)}")
    return ProjectFiles(name, files[wanted[0]], files[wanted[1]], files[kernels[0]],
                        tuple((p, t) for p, t in files.items() if p.startswith("op_host/") and p.endswith(".h")
                              and p != wanted[0]),
                        tuple((p[len("op_kernel/"):], t) for p, t in files.items() if p.startswith("op_kernel/")
                              and p.endswith(".h")),
                        _attrs(files.get(ATTRS_FILE)))


def _attrs(text: str | None) -> dict:
    if text is None:
        return {}
    try:
        values = json.loads(text)
    except ValueError as exc:
        raise OpProjectError(f"{ATTRS_FILE} is not JSON ({exc})") from None
    if not isinstance(values, dict):
        raise OpProjectError(f"{ATTRS_FILE} must hold an object (attribute name -> value)")
    return values
