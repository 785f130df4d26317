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
from torch_ascendgen.targets.soc import ARCH_310P, get_soc

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


_MATMUL_PROGRAM = """#include <cstdio>
#include <cstdint>
#include "tiling/tiling_api.h"
#include "tiling/platform/platform_ascendc.h"
int main() {{
    static fe::PlatFormInfos infos{{"{soc}", {arch}, {vector_cores}, {cube_cores}, {ub_bytes}, {l1_bytes}, {l0a_bytes},
                                  {l0b_bytes}, {l0c_bytes}}};
    platform_ascendc::current_platform() = &infos;  // as the simulator's driver sets it before an op's host code
    auto platform = *platform_ascendc::PlatformAscendCManager::GetInstance();
    matmul_tiling::MatmulApiTiling tiling(platform);
    {calls}
    TCubeTiling t{{}};
    if (tiling.GetTiling(t) == -1) return 3;
    return std::fwrite(&t, sizeof t, 1, stdout) == 1 ? 0 : 4;
}}
"""


@functools.cache
def matmul_api_tiling(*calls: str) -> bytes:
    """The TCubeTiling bytes matmul_tiling::MatmulApiTiling::GetTiling writes after ``calls`` (statements on
    ``tiling``, as the repository's host code makes them, e.g. ``tiling.SetShape(1, 64, 1024)``), with the
    simulator's host MatmulApiTiling (csrc/ascendc_sim/host/tiling), on the platform of the SoC the simulator runs
    (config.default_soc()). Raises ValueError when the helper is missing or refuses the shape, with the compiler's
    or the helper's reason."""
    body = "\n    ".join(call.rstrip(";") + ";" for call in calls)
    soc = get_soc(config.default_soc())
    with tempfile.TemporaryDirectory(prefix="fidelity-mmtiling-") as work:
        source, binary = Path(work) / "tiling.cpp", Path(work) / "tiling"
        source.write_text(_MATMUL_PROGRAM.format(calls=body, soc=soc.name, arch=int(soc.npu_arch == ARCH_310P),
                                                 vector_cores=soc.vector_cores, cube_cores=soc.cube_cores,
                                                 ub_bytes=soc.ub_bytes, l1_bytes=soc.l1_bytes,
                                                 l0a_bytes=soc.l0a_bytes, l0b_bytes=soc.l0b_bytes,
                                                 l0c_bytes=soc.l0c_bytes))
        built = subprocess.run([config.cxx(), "-std=c++17", "-O0", f"-I{sim_include_dir() / 'host'}", str(source),
                                "-o", str(binary)], capture_output=True, text=True)
        if built.returncode != 0:
            first = next((line for line in built.stderr.splitlines() if "error" in line), built.stderr[:200])
            raise ValueError(f"the host MatmulApiTiling does not build: {first.strip()}")
        done = subprocess.run([str(binary)], capture_output=True, timeout=30)
    if done.returncode != 0:
        reason = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        raise ValueError(f"MatmulApiTiling::GetTiling failed ({reason[0]}) for {'; '.join(calls)}")
    return done.stdout
