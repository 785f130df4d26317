"""Every simulator diagnostic, raised by a small kernel that makes the mistake the way models do.

The kernels live in tests/diag_kernels/. Each has a ``mode`` in its TilingData: mode OK is the
correct kernel (checked here to run clean and match torch), every other mode commits one bug, on
a source line marked ``// <- <case id>``. A case asserts the SimulatorError's kind, the exact
kernel line (found from the marker), the block, and that the message says what to do.
"""

from __future__ import annotations

import functools
import os
import re
import struct
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

from torch_ascendgen.errors import SimulatorError
from torch_ascendgen.targets.sim.simulator import compile_kernel

KERNEL_DIR = Path(__file__).resolve().parents[1] / "diag_kernels"
DIAGNOSTICS_H = Path(__file__).resolve().parents[2] / "csrc" / "ascendc_sim" / "sim" / "diagnostics.h"
KERNELS = ("tiled_add", "row_scale", "manual_sync", "bf16_add", "rotate_blocks", "accumulate_blocks",
           "bias_relu_rows", "cube_fractal", "cube_handoff")


@functools.cache
def source(name: str) -> str:
    return (KERNEL_DIR / f"{name}.cpp").read_text()


@functools.cache
def kernel(name: str):
    return compile_kernel(source(name), filename=f"{name}.cpp")


@pytest.fixture(scope="module", autouse=True)
def _build_kernels_in_parallel():
    """Builds every kernel once, concurrently; a kernel that fails to build fails its own tests."""
    def build(name: str) -> None:
        try:
            kernel(name)
        except Exception:  # noqa: BLE001 - reported by the tests that use it
            pass

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        list(pool.map(build, KERNELS))


@functools.cache
def modes(name: str) -> dict[str, int]:
    """The kernel's ``enum Mode`` values by name, read from its source."""
    body = re.search(r"enum Mode : uint32_t \{(.*?)\};", source(name), re.S).group(1)
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"(\w+) = (\d+)", body)}


def marked_line(name: str, case: str) -> int:
    """The 1-based line of ``name``.cpp that carries the marker ``// <- case``."""
    for number, text in enumerate(source(name).splitlines(), 1):
        if "// <-" in text and case in (c.strip() for c in text.split("// <-", 1)[1].split(",")):
            return number
    raise LookupError(f"{name}.cpp has no line marked '// <- {case}'")


# ---- argument builders, one per kernel: fresh tensors each call -----------------------------------

def tiled_add(mode: str, total: int, block_length: int, *, views: bool = False, tiling: bytes | None = None):
    if views:  # x and y are adjacent views of one storage: running off the end of x lands in y
        storage = torch.randn(2 * total)
        x, y = storage[:total], storage[total:]
    else:
        x, y = torch.randn(total), torch.randn(total)
    data = struct.pack("<4I", block_length, 64, total, modes("tiled_add")[mode]) if tiling is None else tiling
    return x, y, torch.zeros(total), data


def row_scale(mode: str, rows: int, cols: int):
    return (torch.randn(rows, cols), torch.randn(cols), torch.zeros(rows, cols),
            struct.pack("<3I", rows, cols, modes("row_scale")[mode]))


def manual_sync(mode: str, length: int = 640):
    return torch.randn(length), torch.zeros(length), torch.zeros(1), struct.pack(
        "<3I", length, 64, modes("manual_sync")[mode])


def bf16_add(mode: str, length: int):
    x, y = torch.randn(length, dtype=torch.bfloat16), torch.randn(length, dtype=torch.bfloat16)
    return x, y, torch.zeros(length, dtype=torch.bfloat16), struct.pack("<3I", length, 256, modes("bf16_add")[mode])


def rotate_blocks(mode: str, length: int, block_length: int):
    return torch.randn(length), torch.zeros(length), torch.zeros(length), struct.pack(
        "<3I", length, block_length, modes("rotate_blocks")[mode])


def accumulate_blocks(mode: str, blocks: int):
    return torch.randn(blocks * 64), torch.full((64,), 7.0), struct.pack("<I", modes("accumulate_blocks")[mode])


def bias_relu_rows(mode: str, rows: int, length: int | None = None):
    return torch.randn(rows, 64), torch.randn(64), torch.zeros(rows, 64), struct.pack(
        "<3I", rows, rows * 64 if length is None else length, modes("bias_relu_rows")[mode])


def cube_fractal(mode: str):
    return (torch.randn(16, 32).half(), torch.randn(32, 16).half(), torch.zeros(16, 16),
            struct.pack("<I", modes("cube_fractal")[mode]))


def cube_handoff(mode: str):
    return (torch.randn(2, 64), torch.zeros(2, 64), torch.zeros(2, 64),
            struct.pack("<3I", 64, 65536, modes("cube_handoff")[mode]))


# ---- the failing kernels ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    id: str  # also the marker on the offending line, unless `marker` is given
    kernel: str
    kind: str
    args: Callable[[], tuple]
    hint: str  # part of the fix the message must spell out
    block_dim: int = 1
    block: int | range = 0
    soc: str | None = None
    marker: str | None = None


CASES = [
    # data movement and GM bounds
    Case("tail_with_datacopy", "tiled_add", "datacopy_alignment", lambda: tiled_add("TAIL_WITH_DATACOPY", 1001, 256),
         "DataCopyPad", block_dim=4, block=3),
    Case("last_tile_not_clamped", "tiled_add", "gm_out_of_bounds",
         lambda: tiled_add("LAST_TILE_NOT_CLAMPED", 1000, 256), "Clamp the last tile", block_dim=4, block=3),
    Case("adjacent_view_overrun", "tiled_add", "gm_out_of_bounds",
         lambda: tiled_add("LAST_TILE_NOT_CLAMPED", 1000, 256, views=True), "Clamp the last tile",
         block_dim=4, block=3),
    Case("one_tile_too_many", "tiled_add", "gm_out_of_bounds",
         lambda: tiled_add("ONE_TILE_TOO_MANY", 1024, 256, views=True), "loop bound", block_dim=4, block=3),
    Case("ub_shifted_by_one", "tiled_add", "ub_misaligned", lambda: tiled_add("UB_SHIFTED_BY_ONE", 1001, 1001),
         "multiples of 32 bytes"),
    Case("count_is_block_length", "tiled_add", "local_overrun", lambda: tiled_add("COUNT_IS_BLOCK_LENGTH", 1001, 1001),
         "count that fits"),
    Case("pad_length_in_elements", "tiled_add", "bad_argument",
         lambda: tiled_add("PAD_LENGTH_IN_ELEMENTS", 1001, 1001), "count * sizeof(float)"),
    Case("gm_offset_in_bytes", "tiled_add", "bad_argument", lambda: tiled_add("GM_OFFSET_IN_BYTES", 500, 250),
         "typed pointer", block_dim=2, block=1),
    Case("short_tiling", "tiled_add", "tiling_size", lambda: tiled_add("OK", 1001, 1001, tiling=bytes(12)),
         "whole struct"),
    # queues
    Case("x_never_freed", "tiled_add", "queue_alloc_exhausted", lambda: tiled_add("X_NEVER_FREED", 1001, 1001),
         "FreeTensor each tensor"),
    Case("y_never_enqueued", "tiled_add", "queue_empty_deque", lambda: tiled_add("Y_NEVER_ENQUEUED", 1001, 1001),
         "needs an earlier EnQue"),
    Case("free_to_wrong_queue", "tiled_add", "queue_foreign_tensor",
         lambda: tiled_add("FREE_TO_WRONG_QUEUE", 1001, 1001), "on the queue the tensor came from"),
    Case("last_tile_not_copied_out", "tiled_add", "queue_tensor_leak",
         lambda: tiled_add("LAST_TILE_NOT_COPIED_OUT", 1001, 1001), "including the last tile"),
    Case("prefetch_into_depth_1", "tiled_add", "queue_depth_exceeded",
         lambda: tiled_add("PREFETCH_INTO_DEPTH_1", 1001, 1001), "with depth 2"),
    # multi-core GM writes
    Case("copy_out_rounded_up", "tiled_add", "gm_write_race", lambda: tiled_add("COPY_OUT_ROUNDED_UP", 396, 100),
         "disjoint range", block_dim=4, block=1),
    Case("atomic_forgotten", "accumulate_blocks", "gm_write_race", lambda: accumulate_blocks("ATOMIC_FORGOTTEN", 2),
         "SetAtomicAdd", block_dim=2, block=1),
    Case("first_by_setvalue", "accumulate_blocks", "gm_write_race", lambda: accumulate_blocks("FIRST_BY_SETVALUE", 2),
         "disjoint range", block_dim=2, block=1),
    # UB budget
    Case("row_does_not_fit", "row_scale", "ub_overflow", lambda: row_scale("ROW_DOES_NOT_FIT", 2, 9000),
         "smaller tile length"),
    Case("tbuf_per_row", "row_scale", "too_many_buffers", lambda: row_scale("TBUF_PER_ROW", 70, 64), "in one TBuf"),
    Case("queue_per_input", "row_scale", "too_many_buffers", lambda: row_scale("QUEUE_PER_INPUT", 2, 64),
         "Free tensors"),
    Case("get_two_rows", "row_scale", "local_overrun", lambda: row_scale("GET_TWO_ROWS", 2, 64), "more bytes"),
    Case("packed_temporaries", "row_scale", "ub_misaligned", lambda: row_scale("PACKED_TEMPORARIES", 2, 1000),
         "up to 32 bytes"),
    Case("second_tpipe", "row_scale", "bad_argument", lambda: row_scale("SECOND_TPIPE", 2, 64), "Destroy()"),
    # pipe synchronisation
    Case("wait_without_set", "manual_sync", "unpaired_flag", lambda: manual_sync("WAIT_WITHOUT_SET"),
         "Call SetFlag<same event>(id) first"),
    Case("set_never_waited", "manual_sync", "unpaired_flag", lambda: manual_sync("SET_NEVER_WAITED"), "WaitFlag"),
    Case("event_id_per_tile", "manual_sync", "bad_argument", lambda: manual_sync("EVENT_ID_PER_TILE"),
         "FetchEventID"),
    Case("no_mte2_to_v", "manual_sync", "pipe_race", lambda: manual_sync("NO_MTE2_TO_V"),
         "SetFlag<HardEvent::MTE2_V>"),
    Case("no_v_to_mte3", "manual_sync", "pipe_race", lambda: manual_sync("NO_V_TO_MTE3"), "SetFlag<HardEvent::V_MTE3>"),
    Case("no_v_to_mte2_before_reload", "manual_sync", "pipe_race", lambda: manual_sync("NO_V_TO_MTE2_BEFORE_RELOAD"),
         "WaitFlag<HardEvent::V_MTE2>"),
    Case("scalar_read_without_v_to_s", "manual_sync", "pipe_race", lambda: manual_sync("SCALAR_READ_WITHOUT_V_TO_S"),
         "SetFlag<HardEvent::V_S>"),
    # SoC support
    Case("add_in_bf16", "bf16_add", "unsupported_dtype", lambda: bf16_add("ADD_IN_BF16", 1000), "Cast it to float"),
    Case("bf16_on_310p", "bf16_add", "unsupported_dtype", lambda: bf16_add("OK", 512), "half or float",
         soc="Ascend310P3"),
    Case("pad_on_310p", "bf16_add", "unsupported_api", lambda: bf16_add("OK", 100), "whole 32-byte blocks",
         soc="Ascend310P3"),
    # cross-core synchronisation
    Case("empty_block_returns_early", "rotate_blocks", "sync_all_deadlock",
         lambda: rotate_blocks("EMPTY_BLOCK_RETURNS_EARLY", 64, 64), "Every block must call SyncAll", block_dim=2,
         marker="sync_all"),
    Case("more_blocks_than_cores", "rotate_blocks", "sync_all_deadlock", lambda: rotate_blocks("OK", 49 * 8, 8),
         "at most 48 blocks", block_dim=49, block=range(49), marker="sync_all"),
    # level-0 and compare APIs
    Case("all_rows_in_one_call", "bias_relu_rows", "repeat_overflow",
         lambda: bias_relu_rows("ALL_ROWS_IN_ONE_CALL", 300), "at most 255 repeats"),
    Case("half_mask_for_float", "bias_relu_rows", "bad_mask", lambda: bias_relu_rows("HALF_MASK_FOR_FLOAT", 4),
         "in 1..64"),
    Case("compare_only_valid", "bias_relu_rows", "compare_count",
         lambda: bias_relu_rows("COMPARE_ONLY_VALID", 16, 1000), "Round the count up to 1024"),
    # the cube unit (sim/cube_operand.h, sim/mmad.h)
    Case("l0a_off_fractal", "cube_fractal", "cube_alignment", lambda: cube_fractal("L0A_OFF_FRACTAL"),
         "Offset the tensor by whole fractals"),
    Case("half_co1", "cube_fractal", "cube_dtype", lambda: cube_fractal("HALF_CO1"),
         "Give CO1 the accumulation type"),
    # the split AI Core of Atlas A2/A3 (sim/local_memory.h, launch.cpp)
    Case("vector_code_on_aic", "cube_handoff", "wrong_core", lambda: cube_handoff("VECTOR_CODE_ON_AIC"),
         "if ASCEND_IS_AIV", soc="Ascend910B2"),
    Case("whole_matrix_in_l1", "cube_handoff", "local_memory_overflow", lambda: cube_handoff("WHOLE_MATRIX_IN_L1"),
         "smaller base blocks", soc="Ascend910B2"),
    Case("read_before_flag", "cube_handoff", "gm_write_race", lambda: cube_handoff("READ_BEFORE_FLAG"),
         "CrossCoreWaitFlag before its copy from GM", soc="Ascend910B2"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_diagnostic(case: Case) -> None:
    with pytest.raises(SimulatorError) as info:
        kernel(case.kernel).launch(case.block_dim, *case.args(), soc=case.soc)
    err = info.value
    line = marked_line(case.kernel, case.marker or case.id)
    assert (err.kind, err.file, err.line) == (case.kind, f"{case.kernel}.cpp", line), err
    assert err.block in case.block if isinstance(case.block, range) else err.block == case.block, err
    assert err.source_line == source(case.kernel).splitlines()[line - 1]
    assert case.hint in err.message, f"the message does not say what to do ({case.hint!r}): {err.message}"


def test_every_diagnostic_kind_has_a_failing_kernel() -> None:
    kinds = set(re.findall(r'X\(\w+, "(\w+)"\)', DIAGNOSTICS_H.read_text()))
    # not_in_kernel is raised only outside any launch (host code), never by a kernel.
    assert kinds - {c.kind for c in CASES} == {"not_in_kernel"}


def test_adjacent_view_overrun_names_the_tensor_it_ran_off() -> None:
    x, y, z, tiling = tiled_add("LAST_TILE_NOT_CLAMPED", 1000, 256, views=True)
    with pytest.raises(SimulatorError) as info:
        kernel("tiled_add").launch(4, x, y, z, tiling)
    assert "kernel argument 0" in info.value.message and "96 bytes past its end" in info.value.message


# ---- the same kernels without the bug must run clean -------------------------------------------------

def test_tiled_add_clean_with_unaligned_adjacent_block_tails() -> None:
    # Block boundaries every 400 bytes: the DataCopyPad tails of neighbouring blocks touch but do
    # not overlap, which is no write race.
    for total, block_length, block_dim in ((1001, 256, 4), (396, 100, 4), (1001, 1001, 1)):
        x, y, z, tiling = tiled_add("OK", total, block_length, views=True)
        kernel("tiled_add").launch(block_dim, x, y, z, tiling)
        assert torch.equal(z, x + y)


def test_atomic_adds_to_the_same_bytes_are_no_race() -> None:
    x, out, tiling = accumulate_blocks("OK", 8)
    kernel("accumulate_blocks").launch(8, x, out, tiling)
    torch.testing.assert_close(out, x.view(8, 64).sum(0))


@pytest.mark.parametrize("mode,rows,cols,soc", [
    ("OK", 3, 1000, None),
    ("ROW_DOES_NOT_FIT", 2, 9000, "Ascend310P3"),  # the same layout fits the 256 KB UB of 310P
    ("RESET_BETWEEN_ROUNDS", 2, 4096, None),  # UB given back by TPipe::Reset
    ("FREE_EVENTS_THEN_MORE", 2, 64, None),  # event IDs given back by TQue::FreeAllEvent
])
def test_row_scale_clean(mode: str, rows: int, cols: int, soc: str | None) -> None:
    x, bias, y, tiling = row_scale(mode, rows, cols)
    kernel("row_scale").launch(1, x, bias, y, tiling, soc=soc)
    assert torch.equal(y, x * 2 + bias)


@pytest.mark.parametrize("mode", ["OK", "QUEUE_SYNC_HELPER"])
def test_manual_sync_clean(mode: str) -> None:
    x, y, checksum, tiling = manual_sync(mode)
    kernel("manual_sync").launch(1, x, y, checksum, tiling)
    assert torch.equal(y, x + x)


def test_bf16_add_clean_on_910b() -> None:
    x, y, z, tiling = bf16_add("OK", 1000)
    kernel("bf16_add").launch(1, x, y, z, tiling, soc="Ascend910B2")
    assert torch.equal(z, (x.float() + y.float()).bfloat16())


@pytest.mark.parametrize("blocks", [8, 48])
def test_rotate_blocks_clean(blocks: int) -> None:
    x, y, workspace, tiling = rotate_blocks("OK", blocks * 64, 64)
    kernel("rotate_blocks").launch(blocks, x, y, workspace, tiling, soc="Ascend910B2")
    assert torch.equal(y, torch.roll(x, 64))


def test_cube_fractal_clean() -> None:
    a, b, c, tiling = cube_fractal("OK")
    kernel("cube_fractal").launch(1, a, b, c, tiling)
    assert torch.allclose(c.double(), a.double() @ b.double(), rtol=0, atol=1e-4)


def test_cube_handoff_clean() -> None:
    x, y, workspace, tiling = cube_handoff("OK")
    kernel("cube_handoff").launch(1, x, y, workspace, tiling, soc="Ascend910B2")
    assert torch.equal(y, 2 * x + 1)


def test_bias_relu_rows_clean_over_255_rows() -> None:
    x, bias, z, tiling = bias_relu_rows("OK", 300)
    kernel("bias_relu_rows").launch(1, x, bias, z, tiling)
    assert torch.equal(z, torch.relu(x + bias))
