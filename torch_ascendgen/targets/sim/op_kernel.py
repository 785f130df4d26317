"""The kernel half of an operator project: its op_kernel source made into one translation unit for the simulator.

The unit is a prelude (``DT_*`` values, ``DTYPE_<NAME>``/``ORIG_DTYPE_<NAME>`` for the matched dtype combination,
the tiling struct GET_TILING_DATA reads, ``TILING_KEY_VAR`` for kernels built per key), the op's tiling header
(its macros expand to the same POD struct the host code filled), the kernel at its own line numbers (``#line 1``),
then the entry the simulator launches: sim/op_project.h's KeyedEntry, which takes the tiling key and the GM of
the tensors DYNAMIC inputs list after the kernel's own parameters.
"""

from __future__ import annotations

import re

import torch

from torch_ascendgen.errors import OpProjectError
from torch_ascendgen.targets.sim.op_host import OpDescription
from torch_ascendgen.targets.sim.simulator import find_entry

ENTRY = "ascendgen_op_entry"

# ge::DataType: (value, the kernel's C type, torch dtype or None when torch has none the simulator takes)
GE_DTYPES: dict[str, tuple[int, str, torch.dtype | None]] = {
    "DT_FLOAT": (0, "float", torch.float32),
    "DT_FLOAT16": (1, "half", torch.float16),
    "DT_INT8": (2, "int8_t", torch.int8),
    "DT_INT32": (3, "int32_t", torch.int32),
    "DT_UINT8": (4, "uint8_t", torch.uint8),
    "DT_INT16": (6, "int16_t", torch.int16),
    "DT_UINT16": (7, "uint16_t", None),
    "DT_UINT32": (8, "uint32_t", None),
    "DT_INT64": (9, "int64_t", torch.int64),
    "DT_UINT64": (10, "uint64_t", None),
    "DT_DOUBLE": (11, "double", torch.float64),
    "DT_BOOL": (12, "bool", torch.bool),
    "DT_BF16": (27, "bfloat16_t", torch.bfloat16),
}
BY_VALUE = {value: (name, ctype, dtype) for name, (value, ctype, dtype) in GE_DTYPES.items()}
BY_TORCH = {dtype: value for value, _, dtype in GE_DTYPES.values() if dtype is not None}
PLAIN_FORMATS = {0: "FORMAT_NCHW", 1: "FORMAT_NHWC", 2: "FORMAT_ND", 16: "FORMAT_HWCN", 27: "FORMAT_NDHWC",
                 30: "FORMAT_NCDHW"}  # row-major layouts: a contiguous tensor is all the simulator holds

_TILING_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"](?:register/)?tilingdata_base\.h[>"]', re.M)
# The high-level APIs' host tiling: on the kernel side their structs (SoftMaxTiling, ...) come with kernel_operator.h.
_TILING_API_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"](?:tiling/)?tiling_api\.h[>"]', re.M)
_REGISTERED = re.compile(r"REGISTER_TILING_DATA_CLASS\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")
# Host-only headers a tiling header may include (its TilingFunc's, not the struct's): the kernel side skips them, as
# the NPU build compiles only the TilingData definitions into the kernel (DrivingSDK's knn_tiling.h includes both).
_HOST_ONLY_INCLUDE = re.compile(
    r'^[ \t]*#[ \t]*include[ \t]*[<"](?:register/op_def_registry\.h|tiling/platform/platform_ascendc\.h)[>"]', re.M)


def dtype_name(value: int) -> str:
    return BY_VALUE.get(value, (f"ge::DataType({value})",))[0]


def built_per_key(tiling_header: str, kernel: str) -> bool:
    """The kernel is built once per tiling key: it tests TILING_KEY_VAR in the preprocessor, or the tiling header
    registers a struct for some key (REGISTER_TILING_DATA_CLASS(<OpType>_<key>, ...))."""
    keyed = (op for op, _ in _REGISTERED.findall(tiling_header) if re.fullmatch(r"\w+_\d+", op))
    return "TILING_KEY_VAR" in kernel or any(keyed)


def kernel_source(description: OpDescription, combo: int, tiling_header: str, kernel: str,
                  tiling_key: int | None = None, listed: int = 0, header_name: str = "") -> str:
    """The kernel translation unit: a prelude (DT_*/DTYPE_*/ORIG_DTYPE_* for the combination, the registered tiling
    struct), the tiling header, then the kernel at its own line numbers, then the entry that takes the key (and
    the ``listed`` tensors of DYNAMIC inputs). A kernel that includes the tiling header (``header_name``) by
    itself finds it included already."""
    if "GET_TILING_DATA(" in kernel and not any(op == description.op_type for op, _ in _REGISTERED.findall(
            tiling_header)):
        raise OpProjectError(f"the tiling header registers no TilingData class for {description.op_type}: add "
                             f"REGISTER_TILING_DATA_CLASS({description.op_type}, <its TilingData class>)")
    entry = find_entry(kernel)
    _check_entry_parameters(description, kernel, entry)
    lines = ["// torch_ascendgen operator-project prelude", '#include "kernel_operator.h"',
             '#include "sim/op_project.h"']
    lines += [f"#define {name} {value}" for name, (value, _, _) in GE_DTYPES.items()]
    for decl in (*description.inputs, *description.outputs):
        macro = re.sub(r"\W", "_", decl.name).upper()
        name, ctype, _ = BY_VALUE.get(decl.dtype_at(combo), ("DT_UNDEFINED", "void", None))
        lines += [f"#define DTYPE_{macro} {ctype}", f"#define ORIG_DTYPE_{macro} {name}"]
    keyed = f"{description.op_type}_{tiling_key}"
    own = tiling_key is not None and any(op == keyed for op, _ in _REGISTERED.findall(tiling_header))
    registered = f"::optiling::ascendgen_registered_tiling_{keyed if own else description.op_type}::type"
    lines.append(f"#define ASCENDGEN_OP_TILING_TYPE {registered}")
    if tiling_key is not None:
        lines.append(f"#define TILING_KEY_VAR {int(tiling_key)}")
    header = _TILING_INCLUDE.sub('#include "host/register/tilingdata_base.h"', tiling_header)
    header = _TILING_API_INCLUDE.sub("// tiling_api.h: its structs come with kernel_operator.h", header)
    header = _HOST_ONLY_INCLUDE.sub("// a host-only header: not part of the kernel", header)
    wrapper = f"::ascendc_sim::KeyedEntry<decltype({entry}), {listed}>"
    if header_name:
        own_include = re.compile(rf'^[ \t]*#[ \t]*include[ \t]*["<](?:[^">]*/)?{re.escape(header_name)}[">]', re.M)
        kernel = own_include.sub(f"// {header_name}: included before the kernel", kernel)
    lines += [header, "using namespace optiling;", "#line 1", kernel,
              f"static constexpr auto& {ENTRY} = {wrapper}::call<&{entry}>;"]
    return "\n".join(lines) + "\n"


def _check_entry_parameters(description: OpDescription, kernel: str, entry: str) -> None:
    """The entry takes the inputs, the outputs, the workspace and the tiling, in that order."""
    found = re.search(rf"\b{entry}\s*\(([^)]*)\)", kernel)
    count = len([p for p in found.group(1).split(",") if p.strip()]) if found else -1
    wanted = len(description.inputs) + len(description.outputs) + 2
    if found and count != wanted:
        inputs = ", ".join(d.name for d in description.inputs)
        outputs = ", ".join(d.name for d in description.outputs)
        raise OpProjectError(f"{entry} takes {count} parameters; the kernel of {description.op_type} takes its inputs "
                             f"({inputs}), its outputs ({outputs}), then workspace and tiling: {wanted} GM_ADDR "
                             "parameters")


def kernel_log(log: str, kernel: str, name: str) -> str:
    """A kernel build's diagnostics as about op_kernel/<name>: the compiler saw the kernel after the prelude (at its
    own line numbers, through #line), so it quoted the prelude's physical lines; quote the kernel's own."""
    lines, out, column, quoted = kernel.splitlines(), [], 1, False
    log = log.replace(f"kernel {ENTRY}", f"op_kernel/{name}").replace("kernel.cpp", f"op_kernel/{name}")
    for line in log.splitlines():
        location = re.match(rf"op_kernel/{re.escape(name)}:(\d+):(\d+):", line)
        quote = re.match(r"^(\s*)(\d+) \| ", line)
        if location:
            column = int(location.group(2))
        if quote and 0 < int(quote.group(2)) <= len(lines):
            line, quoted = f"{quote.group(1)}{quote.group(2)} | {lines[int(quote.group(2)) - 1]}", True
        elif quoted and re.match(r"^\s*\| ", line):
            line, quoted = f"{line[:line.index('|') + 1]} {' ' * (column - 1)}^", False
        out.append(line)
    return "\n".join(out)
