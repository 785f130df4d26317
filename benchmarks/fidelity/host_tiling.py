"""Tiling bytes from the documented host tiling APIs, computed by the simulator's own host helpers.

Some kernels take a high-level API's tiling struct (RmsNormTiling, SoftMaxTiling, ...) that their repository's host
code fills with the API's host function (GetRmsNormTilingInfo, SoftMaxTilingFunc, ...). The pages call those
structs opaque: what the fields hold is the implementation's, so a variant cannot pack them by hand. It asks for
them here instead: ``host_tiling("RmsNormTiling", "GetRmsNormTilingInfo({1, 1, 512}, {1, 1, 512}, 4096, 4, t)")``
compiles a few lines against ``csrc/ascendc_sim/host/tiling/tiling_api.h`` (the helpers operator projects use),
runs them and returns the struct's bytes, which is what the kernel side of the same simulator reads.

The snippet is the suite's own code, not the vendored kernels': it builds and runs in this process's user, like
the suite's other helpers. Results are cached per snippet for the process.
"""

from __future__ import annotations

import functools
import subprocess
import tempfile
from pathlib import Path

from torch_ascendgen import config
from torch_ascendgen._paths import sim_include_dir

_PROGRAM = """#include <cstdio>
#include <cstdint>
#include <vector>
#include "tiling/tiling_api.h"
using namespace AscendC;
int main() {{
    {struct} t{{}};
    if (!({call})) return 3;
    return std::fwrite(&t, sizeof t, 1, stdout) == 1 ? 0 : 4;
}}
"""


@functools.cache
def host_tiling(struct: str, call: str) -> bytes:
    """The bytes of ``struct t`` after ``call`` (a host tiling helper writing ``t``, shapes as ``{d0, d1, ...}``
    initialiser lists or std::vector<int64_t>) returned true."""
    with tempfile.TemporaryDirectory(prefix="fidelity-tiling-") as work:
        source, binary = Path(work) / "tiling.cpp", Path(work) / "tiling"
        source.write_text(_PROGRAM.format(struct=struct, call=_shapes(call)))
        subprocess.run([config.cxx(), "-std=c++17", "-O0", f"-I{sim_include_dir() / 'host'}", str(source), "-o",
                        str(binary)], check=True, capture_output=True, text=True)
        done = subprocess.run([str(binary)], capture_output=True, timeout=30)
    if done.returncode != 0:
        raise ValueError(f"{call} failed (exit {done.returncode}): the host helper rejects these arguments")
    return done.stdout


def _shapes(call: str) -> str:
    """``{1, 2, 3}`` shape literals as the std::vector<int64_t> the helpers take."""
    return call.replace("{", "std::vector<int64_t>{")
