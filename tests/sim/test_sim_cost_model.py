"""The simulator's counters and time estimate: exact byte and instruction counts, and an estimate
that ranks variants of one kernel the way the NPU does (csrc/ascendc_sim/sim/cost_model.h).

The kernels: benchmarks/kernels/add_bench.cpp (z = x + y; tile length, cores and buffers per
queue come from the tiling) and a scalar variant below that moves every element with
GlobalTensor GetValue/SetValue.
"""

from __future__ import annotations

import functools
import math
import struct
from pathlib import Path

import pytest
import torch

from torch_ascendgen.targets.sim.simulator import compile_kernel
from torch_ascendgen.targets.soc import get_soc

ADD_SOURCE = Path(__file__).resolve().parents[2] / "benchmarks" / "kernels" / "add_bench.cpp"

SCALAR_ADD = r"""
#include "kernel_operator.h"

struct TilingData {
    uint32_t totalLength;
    uint32_t perCore;
};

extern "C" __global__ __aicore__ void scalar_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    AscendC::GlobalTensor<float> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, t.totalLength);
    yGm.SetGlobalBuffer((__gm__ float *)y, t.totalLength);
    zGm.SetGlobalBuffer((__gm__ float *)z, t.totalLength);
    uint32_t begin = AscendC::GetBlockIdx() * t.perCore;
    uint32_t end = begin + t.perCore < t.totalLength ? begin + t.perCore : t.totalLength;
    for (uint32_t i = begin; i < end; i++) {
        zGm.SetValue(i, xGm.GetValue(i) + yGm.GetValue(i));
    }
}
"""


@functools.cache
def add_kernel():
    return compile_kernel(ADD_SOURCE.read_text(), filename="add_bench.cpp")


@functools.cache
def scalar_kernel():
    return compile_kernel(SCALAR_ADD, filename="scalar_add.cpp")


def run_add(n: int, tile: int, blocks: int, buffers: int = 2, soc: str = "Ascend910B2"):
    tiles = (n + tile - 1) // tile
    tiling = struct.pack("<5I", n, tile, tiles // blocks, tiles % blocks, buffers)
    x, y, z = torch.randn(n), torch.randn(n), torch.empty(n)
    report = add_kernel().launch(blocks, x, y, z, None, tiling, soc=soc)
    assert torch.equal(z, x + y)
    return report


def run_scalar_add(n: int, blocks: int):
    # Whole 64-byte cache lines per core: SetValue writes lines back through the data cache.
    per_core = (n + blocks * 16 - 1) // (blocks * 16) * 16
    x, y, z = torch.randn(n), torch.randn(n), torch.empty(n)
    report = scalar_kernel().launch(blocks, x, y, z, None, struct.pack("<2I", n, per_core))
    assert torch.equal(z, x + y)
    return report


def busy(report, pipe: str) -> float:
    return sum(core["pipe_busy_ns"][pipe] for core in report.cores)


# ---- counters ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n, tile, blocks", [(12345, 1024, 5), (4096, 512, 8), (1000, 1000 // 8 * 8, 3)])
def test_byte_and_instruction_counters_are_exact(n, tile, blocks):
    report = run_add(n, tile, blocks)
    tiles = [min(tile, n - start) for start in range(0, n, tile)]
    assert sum(c["gm_to_ub_bytes"] for c in report.cores) == 2 * n * 4
    assert sum(c["ub_to_gm_bytes"] for c in report.cores) == n * 4
    assert report.gm_bytes == 3 * n * 4
    assert sum(c["data_copies"] for c in report.cores) == 3 * len(tiles)
    assert sum(c["gm_scalar_reads"] + c["gm_scalar_writes"] for c in report.cores) == 0
    assert report.vector_ops()["Add"] == (len(tiles), sum(math.ceil(count * 4 / 256) for count in tiles))


def test_per_core_counters_follow_the_tiling():
    n, tile, blocks = 10 * 1024, 1024, 4  # 10 tiles: cores 0 and 1 take 3, cores 2 and 3 take 2
    report = run_add(n, tile, blocks)
    assert [c["gm_to_ub_bytes"] for c in report.cores] == [3 * 2 * tile * 4] * 2 + [2 * 2 * tile * 4] * 2
    assert [c["ub_to_gm_bytes"] for c in report.cores] == [3 * tile * 4] * 2 + [2 * tile * 4] * 2


def test_scalar_gm_access_is_counted():
    n = 1000
    report = run_scalar_add(n, 4)
    assert sum(c["gm_scalar_reads"] for c in report.cores) == 2 * n
    assert sum(c["gm_scalar_writes"] for c in report.cores) == n
    assert report.gm_bytes == 0


def test_pipe_busy_time_follows_the_bytes_each_pipe_moves():
    report = run_add(1 << 18, 4096, 8)
    assert busy(report, "MTE2") == pytest.approx(2 * busy(report, "MTE3"), rel=1e-6)  # two inputs, one output
    assert busy(report, "V") > 0
    assert busy(report, "S") == 0


# ---- the estimate ranks variants --------------------------------------------------------------


@pytest.mark.parametrize("blocks", [1, 8, 48])
def test_double_buffering_estimates_faster_than_single_buffering(blocks):
    n, tile = 1 << 19, 4096
    double, single = run_add(n, tile, blocks, buffers=2), run_add(n, tile, blocks, buffers=1)
    # The same work on every pipe; only the overlap of CopyIn, Add and CopyOut differs.
    for pipe in ("MTE2", "V", "MTE3"):
        assert busy(double, pipe) == pytest.approx(busy(single, pipe), rel=1e-9)
    assert double.estimated_ns < single.estimated_ns
    assert max(c["est_ns"] for c in double.cores) < max(c["est_ns"] for c in single.cores)


def test_double_buffering_hides_the_gm_read_latency():
    # With one buffer per queue, each tile's Add waits for its CopyIn to land; with two, the copy of
    # the next tile is under way while this one is added.
    n, tile, blocks = 1 << 19, 4096, 8
    double, single = run_add(n, tile, blocks, buffers=2), run_add(n, tile, blocks, buffers=1)
    assert double.estimated_ns < 0.8 * single.estimated_ns


def test_few_large_tiles_beat_many_tiny_ones():
    n, blocks = 1 << 18, 8
    tiny, large = run_add(n, 64, blocks), run_add(n, 4096, blocks)
    assert tiny.vector_ops()["Add"][0] == 64 * large.vector_ops()["Add"][0]
    assert tiny.estimated_ns > 2 * large.estimated_ns


def test_more_cores_beat_fewer_up_to_the_core_count():
    n, tile = 1 << 20, 4096
    estimates = [run_add(n, tile, blocks).estimated_ns for blocks in (1, 4, 16, 48)]
    assert estimates == sorted(estimates, reverse=True) and len(set(estimates)) == 4
    assert estimates[-1] < estimates[0] / 8


def test_scalar_gm_loop_is_much_slower_than_datacopy():
    n, blocks = 8192, 8
    scalar, copied = run_scalar_add(n, blocks), run_add(n, 1024, blocks)
    assert scalar.estimated_ns > 20 * copied.estimated_ns


def test_estimate_scales_linearly_with_size_for_large_sizes():
    m2, m4, m8 = (run_add(m << 20, 7680, 48).estimated_ns for m in (2, 4, 8))
    # Affine in the size: a fixed start-up plus a cost per byte.
    assert (m8 - m4) == pytest.approx(2 * (m4 - m2), rel=0.1)
    assert m4 - m2 > 0.4 * m2


def test_block_dim_above_the_core_count_adds_waves():
    n, tile = 48 * 16 * 4096, 4096  # 768 tiles
    one_wave = run_add(n, tile, 48)  # 16 tiles per core
    one_more = run_add(n, tile, 49)  # 15 or 16 tiles per block; block 48 runs after a first block finishes
    two_waves = run_add(n, tile, 96)  # 8 tiles per block, two blocks per core

    def chip_ns(report):
        return report.estimated_ns - report.launch_ns

    # One wave streams at the chip's HBM rate; the extra block then runs alone for most of its time.
    assert chip_ns(one_more) > 1.3 * chip_ns(one_wave)
    assert chip_ns(one_wave) <= chip_ns(two_waves) < 1.2 * chip_ns(one_wave)


def test_launch_ends_with_its_slowest_core():
    report = run_add(3 * 4096, 4096, 2)  # core 0 takes two tiles, core 1 one
    slowest = max(c["est_ns"] for c in report.cores)
    assert report.cores[0]["est_ns"] == slowest > report.cores[1]["est_ns"]
    assert report.estimated_ns >= report.launch_ns + slowest


def test_streaming_estimate_is_bounded_by_the_chips_hbm_bandwidth():
    n = 4 << 20
    report = run_add(n, 7680, 48)
    soc = get_soc("Ascend910B2")
    assert report.hbm_bound_ns == pytest.approx(3 * n * 4 / soc.hbm_gb_per_s)
    lower = report.launch_ns + report.hbm_bound_ns
    assert lower <= report.estimated_ns < 1.3 * lower


def test_a_smaller_soc_estimates_slower():
    n, tile = 1 << 20, 4096
    assert run_add(n, tile, 8, soc="Ascend310P3").estimated_ns > 3 * run_add(n, tile, 48).estimated_ns
