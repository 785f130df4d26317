"""The simulator kernel test table: one Case per kernel in tests/kernels, several params each.

A Case names a kernel file (its entry has the same name unless ``entry`` says otherwise) and a
``build(param, gen)`` function that makes the inputs, the pre-filled outputs, the tiling bytes
and the torch reference for one param, returned as a Launch. tests/sim/test_sim_kernels.py builds
every kernel once, launches it for each param and runs the Launch's checks.

Conventions:
- Outputs are pre-filled with a sentinel (NaN for floating types, an odd bit pattern for
  integers) so that an element the kernel never writes fails the comparison.
- Inputs have mixed signs; the kernels' tiling puts tails that are not 32-byte multiples,
  single elements and more blocks than work in front of them.
- Tolerances are per dtype and per kind of operation: exact for moves, integer and bitwise
  ops; ~1e-5 relative for float arithmetic; looser for transcendental functions and half.
- The tiling structs are packed with ``struct`` in the field order of the kernel's TilingData.
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

KERNEL_DIR = Path(__file__).resolve().parent / "kernels"
DEFAULT_SOC = "Ascend910B2"


def kernel_source(kernel: str) -> str:
    return (KERNEL_DIR / f"{kernel}.cpp").read_text()

F32, F16, BF16 = torch.float32, torch.float16, torch.bfloat16
I32, I16, U8 = torch.int32, torch.int16, torch.uint8

# dtypeKey values of the kernels that dispatch on the element type at run time
FLOAT_KEY = {F32: 0, F16: 1}
ADD_TILING_KEY = {F32: 0, F16: 1, I32: 2, I16: 3}
FILL_KEY = {F32: 0, F16: 1, BF16: 2, I32: 3, I16: 4}


@dataclass(frozen=True)
class Tol:
    rtol: float = 0.0
    atol: float = 0.0


EXACT = Tol()
F32_ARITH = Tol(1e-5, 1e-6)
F16_ARITH = Tol(1e-3, 1e-3)
F32_TRANSCENDENTAL = Tol(1e-5, 1e-6)
F16_TRANSCENDENTAL = Tol(2e-3, 2e-3)


def arith_tol(dtype: torch.dtype) -> Tol:
    if dtype == F32:
        return F32_ARITH
    if dtype == F16:
        return F16_ARITH
    if dtype == BF16:
        return Tol(8e-3, 8e-3)
    return EXACT


@dataclass
class Check:
    """Compare ``actual(args)`` (a view of what the kernel wrote) with ``expected``."""

    name: str
    actual: Callable[[list], torch.Tensor]
    expected: torch.Tensor
    tol: Tol = EXACT


@dataclass
class Launch:
    block_dim: int
    args: list
    checks: list[Check]
    inputs: tuple[int, ...] = ()  # indices of args the kernel must leave unchanged
    soc: str = DEFAULT_SOC


@dataclass(frozen=True)
class Case:
    kernel: str  # file stem in tests/kernels
    build: Callable[[Any, torch.Generator], Launch]
    params: tuple
    entry: str = ""  # defaults to the file stem
    xfail: str = ""  # a known simulator issue (tests/SIM_ISSUES.md) failing every param; strict
    xfail_params: tuple = ()  # (param, reason) pairs for params that hit a known simulator issue

    def xfail_reason(self, param: Any) -> str:
        for failing, reason in self.xfail_params:
            if failing == param:
                return reason
        return self.xfail

    @property
    def entry_name(self) -> str:
        return self.entry or self.kernel

    def source(self) -> str:
        return kernel_source(self.kernel)


def param_id(param: Any) -> str:
    if isinstance(param, dict):
        return "-".join(param_id(v) for v in param.values())
    if isinstance(param, (tuple, list)):
        return "-".join(param_id(v) for v in param)
    if isinstance(param, torch.dtype):
        return str(param).replace("torch.", "")
    return str(param)


def seed_for(kernel: str, param: Any) -> int:
    return zlib.crc32(f"{kernel}:{param_id(param)}".encode())


# ----------------------------------------------------------------------------- helpers

def out(index: int) -> Callable[[list], torch.Tensor]:
    return lambda args: args[index]


def pack(fmt: str, *values) -> bytes:
    return struct.pack("<" + fmt, *values)


def split_even(total: int, parts: int) -> tuple[int, int, int]:
    """(formerNum, formerLength, tailLength): the first formerNum parts take one element more."""
    tail = total // parts
    return total % parts, tail + 1, tail


def split_tiles(total: int, tile: int, parts: int) -> tuple[int, int, int]:
    """(tileNum, tilesPerCore, formerNum) for dealing whole tiles to cores."""
    tiles = -(-total // tile)
    return tiles, tiles // parts, tiles % parts


def align(value: int, to: int) -> int:
    return -(-value // to) * to


SENTINEL_INT = {I32: -0x5A5A5A5B, I16: -0x5A5B, U8: 0xA5}


def _shape(shape) -> tuple:
    return tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)


def sentinel(shape, dtype: torch.dtype) -> torch.Tensor:
    fill = float("nan") if dtype.is_floating_point else SENTINEL_INT[dtype]
    return torch.full(_shape(shape), fill, dtype=dtype)


def randn(gen: torch.Generator, shape, dtype: torch.dtype = F32, scale: float = 1.0) -> torch.Tensor:
    return (torch.randn(_shape(shape), generator=gen) * scale).to(dtype)


def uniform(gen: torch.Generator, shape, lo: float, hi: float, dtype: torch.dtype = F32) -> torch.Tensor:
    return (torch.rand(_shape(shape), generator=gen) * (hi - lo) + lo).to(dtype)


def randint(gen: torch.Generator, shape, lo: int, hi: int, dtype: torch.dtype) -> torch.Tensor:
    return torch.randint(lo, hi, _shape(shape), generator=gen, dtype=torch.int64).to(dtype)


def values_for(gen: torch.Generator, n: int, dtype: torch.dtype, scale: float = 4.0) -> torch.Tensor:
    """Mixed-sign test values; small integers for integer types."""
    if dtype.is_floating_point:
        return randn(gen, n, dtype, scale)
    bound = 100 if dtype == I16 else 10000
    return randint(gen, n, -bound, bound, dtype)


def element_split_tiling(n: int, block_dim: int, tile: int) -> tuple:
    former_num, former_len, tail_len = split_even(n, block_dim)
    return n, former_num, former_len, tail_len, tile


def row_split(rows: int, block_dim: int) -> tuple[int, int, int]:
    return split_even(rows, block_dim)


# ----------------------------------------------------------------------------- public-sample add_custom

def build_add_custom(dtype: torch.dtype, total: int, block_dim: int):
    def build(param, gen):
        soc = param
        x = values_for(gen, total, dtype)
        y = values_for(gen, total, dtype)
        z = sentinel(total, dtype)
        return Launch(block_dim, [x, y, z], [Check("z", out(2), x + y, arith_tol(dtype))], inputs=(0, 1), soc=soc)
    return build


# ----------------------------------------------------------------------------- kernel-contract elementwise

def build_add_tiling(param, gen):
    n, tile, block_dim, dtype = param
    x, y, z = values_for(gen, n, dtype), values_for(gen, n, dtype), sentinel(n, dtype)
    tile_num, per_core, former = split_tiles(n, tile, block_dim)
    tiling = pack("6I", n, tile, tile_num, per_core, former, ADD_TILING_KEY[dtype])
    return Launch(block_dim, [x, y, z, None, tiling], [Check("z", out(2), x + y, arith_tol(dtype))], inputs=(0, 1))


BINARY_OPS = {
    "add": (0, torch.add),
    "sub": (1, torch.sub),
    "mul": (2, torch.mul),
    "div": (3, torch.div),
    "max": (4, torch.maximum),
    "min": (5, torch.minimum),
}


def build_elementwise_binary(param, gen):
    op, n, block_dim, dtype = param
    key, fn = BINARY_OPS[op]
    x = values_for(gen, n, dtype)
    y = values_for(gen, n, dtype)
    if op == "div":  # keep the divisor away from zero
        sign = torch.where(torch.rand(n, generator=gen) < 0.5, -1.0, 1.0)
        y = (sign * uniform(gen, n, 0.25, 4.0)).to(dtype)
    if op in ("max", "min"):  # some ties
        y[::5] = x[::5]
    tiling = pack("7I", *element_split_tiling(n, block_dim, 256), key, ADD_TILING_KEY[dtype])
    expected = fn(x, y)
    return Launch(block_dim, [x, y, sentinel(n, dtype), None, tiling],
                  [Check("z", out(2), expected, arith_tol(dtype))], inputs=(0, 1))


def build_elementwise_scalar(param, gen):
    n, block_dim, dtype = param
    if dtype.is_floating_point:
        addend, factor, lo, hi = 0.5, -1.5, -3.0, 2.25
    else:
        addend, factor, lo, hi = 3.0, -2.0, -50.0, 40.0
    x = values_for(gen, n, dtype, scale=3.0)
    tiling = pack("6I4f", *element_split_tiling(n, block_dim, 512), ADD_TILING_KEY[dtype], addend, factor, lo, hi)
    if dtype.is_floating_point:
        t = (x + torch.tensor(addend, dtype=dtype)) * torch.tensor(factor, dtype=dtype)
    else:
        t = (x + int(addend)) * int(factor)
    expected = torch.clamp(t, lo, hi).to(dtype) if dtype.is_floating_point else torch.clamp(t, int(lo), int(hi))
    return Launch(block_dim, [x, sentinel(n, dtype), None, tiling],
                  [Check("z", out(1), expected, arith_tol(dtype))], inputs=(0,))


def build_leaky_relu(param, gen):
    n, block_dim, dtype = param
    alpha = 0.125
    x = values_for(gen, n, dtype)
    tiling = pack("6If", *element_split_tiling(n, block_dim, 1024), FLOAT_KEY[dtype], alpha)
    expected = torch.nn.functional.leaky_relu(x.float(), alpha).to(dtype)
    return Launch(block_dim, [x, sentinel(n, dtype), None, tiling],
                  [Check("z", out(1), expected, arith_tol(dtype))], inputs=(0,))


UNARY_OPS = {
    # name: (opKey, torch function, input maker, float tol, half tol)
    "exp": (0, torch.exp, lambda g, n: randn(g, n, F32, 2.0), F32_TRANSCENDENTAL, F16_TRANSCENDENTAL),
    "ln": (1, torch.log, lambda g, n: uniform(g, n, 0.01, 50.0), F32_TRANSCENDENTAL, F16_TRANSCENDENTAL),
    "abs": (2, torch.abs, lambda g, n: randn(g, n, F32, 3.0), EXACT, EXACT),
    "sqrt": (3, torch.sqrt, lambda g, n: uniform(g, n, 0.0, 100.0), F32_TRANSCENDENTAL, F16_TRANSCENDENTAL),
    # Rsqrt and Reciprocal are documented as approximate on the NPU
    "rsqrt": (4, torch.rsqrt, lambda g, n: uniform(g, n, 0.01, 100.0), Tol(1e-4, 1e-6), Tol(4e-3, 4e-3)),
    "reciprocal": (5, torch.reciprocal,
                   lambda g, n: uniform(g, n, 0.1, 10.0) * torch.where(torch.rand(n, generator=g) < 0.5, -1.0, 1.0),
                   Tol(1e-4, 1e-6), Tol(4e-3, 4e-3)),
    "relu": (6, torch.relu, lambda g, n: randn(g, n, F32, 3.0), EXACT, EXACT),
}


def build_unary_math(param, gen):
    op, n, block_dim, dtype = param
    key, fn, make, tol32, tol16 = UNARY_OPS[op]
    x = make(gen, n).to(dtype)
    tiling = pack("7I", *element_split_tiling(n, block_dim, 512), key, FLOAT_KEY[dtype])
    expected = fn(x.float()).to(dtype)
    return Launch(block_dim, [x, sentinel(n, dtype), None, tiling],
                  [Check("z", out(1), expected, tol32 if dtype == F32 else tol16)], inputs=(0,))


def build_duplicate_fill(param, gen):
    n, block_dim, dtype, value = param
    tiling = pack("6Ifi", *element_split_tiling(n, block_dim, 256), FILL_KEY[dtype], float(value), int(value))
    expected = torch.full((n,), value, dtype=dtype)
    return Launch(block_dim, [sentinel(n, dtype), None, tiling], [Check("z", out(0), expected, EXACT)])


def build_bitwise(param, gen):
    n, block_dim, unsigned = param
    x = randint(gen, n, -32768, 32768, I16)
    y = randint(gen, n, -32768, 32768, I16)
    tiling = pack("6I", *element_split_tiling(n, block_dim, 512), int(unsigned))
    args = [x, y, sentinel(n, I16), sentinel(n, I16), sentinel(n, I16), None, tiling]
    checks = [Check("and", out(2), x & y), Check("or", out(3), x | y), Check("not", out(4), ~x)]
    return Launch(block_dim, args, checks, inputs=(0, 1))


def build_fused_chain(param, gen):
    n, block_dim, dtype = param
    x = randn(gen, n, dtype, 1.5)
    y = randn(gen, n, dtype, 2.0)
    tiling = pack("6I", *element_split_tiling(n, block_dim, 512), FLOAT_KEY[dtype])
    # the same chain in the kernel's dtype: every step rounds like the kernel's
    two, one, minus = (torch.tensor(v, dtype=dtype) for v in (2.0, 1.0, -1.0))
    t = torch.exp(torch.relu(x * two + one) * minus) * y + x
    tol = Tol(1e-5, 1e-5) if dtype == F32 else Tol(2e-3, 4e-3)
    return Launch(block_dim, [x, y, sentinel(n, dtype), None, tiling], [Check("z", out(2), t, tol)], inputs=(0, 1))


# ----------------------------------------------------------------------------- level-0 APIs

def build_level0_binary(param, gen):
    rows, block_dim = param
    x = randn(gen, (rows, 128))
    y = randn(gen, (rows, 128))
    tiling = pack("4I", rows, *row_split(rows, block_dim))
    out0 = torch.cat([x[:, :64] + y[:, :64], x[:, 64:] * y[:, 64:]], dim=1)
    diff = (x - y).view(rows, 8, 16)[:, :, :8].reshape(rows, 64)
    out2 = torch.zeros(rows, 64)
    out2[:, :40] = torch.maximum(x[:, :40], y[:, :40])
    args = [x, y, sentinel((rows, 128), F32), sentinel((rows, 64), F32), sentinel((rows, 64), F32), None, tiling]
    checks = [Check("add|mul", out(2), out0, F32_ARITH), Check("sub strided", out(3), diff, F32_ARITH),
              Check("max mask 40", out(4), out2, EXACT)]
    return Launch(block_dim, args, checks, inputs=(0, 1))


def lane_mask(words: tuple[int, ...], lanes: int) -> torch.Tensor:
    bits = [(words[i // 64] >> (i % 64)) & 1 for i in range(lanes)]
    return torch.tensor(bits, dtype=torch.bool)


def build_level0_mask_half(param, gen):
    repeats, mask0, mask1, cont = param
    n = repeats * 128
    x = randn(gen, n, F16, 2.0)
    y = randn(gen, n, F16, 2.0)
    tiling = pack("QQII", mask0, mask1, repeats, cont)
    bitmask = lane_mask((mask0, mask1), 128).repeat(repeats)
    contmask = (torch.arange(128) < cont).repeat(repeats)
    exp0 = torch.where(bitmask, x + y, torch.tensor(-1.0, dtype=F16))
    exp1 = torch.where(contmask, x * y, torch.tensor(0.0, dtype=F16))
    exp2 = torch.where(bitmask, torch.relu(x), torch.tensor(3.0, dtype=F16))
    args = [x, y, sentinel(n, F16), sentinel(n, F16), sentinel(n, F16), None, tiling]
    checks = [Check("add bitmask", out(2), exp0, F16_ARITH), Check("mul contmask", out(3), exp1, F16_ARITH),
              Check("relu bitmask", out(4), exp2, EXACT)]
    return Launch(1, args, checks, inputs=(0, 1))


def build_level0_unary(param, gen):
    rows, bits = param
    x = randn(gen, (rows, 128), F32, 2.0)
    tiling = pack("QI4x", bits, rows)
    exp0 = torch.exp(x[:, :64])
    exp1 = torch.full((rows, 8, 16), 7.0)
    exp1[:, :, :8] = torch.relu(x[:, :64]).view(rows, 8, 8)
    lanes = lane_mask((bits,), 64).repeat(2)
    exp2 = torch.where(lanes, x + 3.0, torch.tensor(-5.0))
    exp3 = torch.zeros(rows, 64)
    exp3[:, :32] = 2.5
    exp4 = (2.0 * x[:, :8]).repeat(1, 8)
    args = [x, sentinel((rows, 64), F32), sentinel((rows, 128), F32), sentinel((rows, 128), F32),
            sentinel((rows, 64), F32), sentinel((rows, 64), F32), None, tiling]
    checks = [Check("exp rep stride", out(1), exp0, F32_TRANSCENDENTAL),
              Check("relu dst blk stride", out(2), exp1.view(rows, 128), EXACT),
              Check("adds bitmask", out(3), exp2, F32_ARITH),
              Check("duplicate level0", out(4), exp3, EXACT),
              Check("muls src blk stride 0", out(5), exp4, EXACT)]
    return Launch(1, args, checks, inputs=(0,))


# ----------------------------------------------------------------------------- casts

def build_cast_half_float(param, gen):
    n, block_dim = param
    x = randn(gen, n, F16, 8.0)
    xf = x.float()
    expected = (xf * xf * 0.5 + xf).half()
    tiling = pack("5I", *element_split_tiling(n, block_dim, 1024))
    return Launch(block_dim, [x, sentinel(n, F16), None, tiling],
                  [Check("z", out(1), expected, Tol(1e-3, 1e-3))], inputs=(0,))


def build_cast_bf16(param, gen):
    n, block_dim = param
    x = randn(gen, n, BF16, 4.0)
    y = randn(gen, n, BF16, 4.0)
    f = x.float() * y.float() + x.float()
    rint = f.to(BF16)  # torch rounds float -> bf16 half-to-even
    trunc = (f.view(torch.int32) & -65536).view(torch.float32).to(BF16)  # exact: low 16 bits are zero
    tiling = pack("5I", *element_split_tiling(n, block_dim, 1024))
    args = [x, y, sentinel(n, BF16), sentinel(n, BF16), None, tiling]
    return Launch(block_dim, args, [Check("rint", out(2), rint), Check("trunc", out(3), trunc)], inputs=(0, 1))


ROUND_MODES = {
    "rint": (0, torch.round),  # half to even
    "floor": (1, torch.floor),
    "ceil": (2, torch.ceil),
    "round": (3, lambda t: torch.sign(t) * torch.floor(t.abs() + 0.5)),  # half away from zero
    "trunc": (4, torch.trunc),
}


def build_cast_float_int32(param, gen):
    mode, n, block_dim, dtype = param
    key, fn = ROUND_MODES[mode]
    halves = randint(gen, n, -80, 80, torch.int64).double() / 2  # exact .5 ties
    noise = torch.randn(n, generator=gen, dtype=torch.float64) * 30
    x = torch.where(torch.arange(n) % 2 == 0, halves, noise).to(dtype)
    as_int = fn(x.double()).to(I32)
    tiling = pack("7I", *element_split_tiling(n, block_dim, 512), key, FLOAT_KEY[dtype])
    args = [x, sentinel(n, I32), sentinel(n, F32), None, tiling]
    return Launch(block_dim, args, [Check("int", out(1), as_int), Check("back", out(2), as_int.float())], inputs=(0,))


# ----------------------------------------------------------------------------- compare / select

def mask_bytes(bits: torch.Tensor) -> torch.Tensor:
    padded = torch.zeros(align(bits.numel(), 8), dtype=torch.int64)
    padded[: bits.numel()] = bits.long()
    weights = 2 ** torch.arange(8)
    return (padded.view(-1, 8) * weights).sum(1).to(U8)


def build_compare_select(param, gen):
    n, block_dim, dtype = param
    tile = 1024
    x = randn(gen, n, dtype, 2.0)
    y = randn(gen, n, dtype, 2.0)
    y[::7] = x[::7]  # ties: GT is false
    tile_num, per_core, former = split_tiles(n, tile, block_dim)
    tiling = pack("6I", n, tile, tile_num, per_core, former, FLOAT_KEY[dtype])
    gt = x > y
    args = [x, y, sentinel(n, dtype), sentinel(-(-n // 8), U8), None, tiling]
    checks = [Check("where", out(2), torch.where(gt, x, y)), Check("mask bits", out(3), mask_bytes(gt))]
    return Launch(block_dim, args, checks, inputs=(0, 1))


def build_compare_scalar_clamp(param, gen):
    n, block_dim, dtype = param
    lo, hi = -1.5, 0.75
    x = randn(gen, n, dtype, 2.0)
    x[::11] = lo  # boundary values
    x[1::13] = hi
    tiling = pack("6I2f", *element_split_tiling(n, block_dim, 512), FLOAT_KEY[dtype], lo, hi)
    return Launch(block_dim, [x, sentinel(n, dtype), None, tiling],
                  [Check("clamp", out(1), torch.clamp(x, lo, hi))], inputs=(0,))


def build_where_cond(param, gen):
    n, block_dim = param
    cond = (torch.rand(n, generator=gen) < 0.4).to(U8)
    x = randn(gen, n)
    y = randn(gen, n)
    tiling = pack("5I", *element_split_tiling(n, block_dim, 512))
    return Launch(block_dim, [cond, x, y, sentinel(n, F32), None, tiling],
                  [Check("where", out(3), torch.where(cond.bool(), x, y))], inputs=(0, 1, 2))


# ----------------------------------------------------------------------------- reductions

def reduce_tmp_elements(n: int, dtype: torch.dtype) -> int:
    """ReduceMax/ReduceMin with index: the work size formula of ReduceMax.md, plus ReduceSum's."""
    per_block, per_repeat = 32 // dtype.itemsize, 256 // dtype.itemsize
    first = max(1, -(-n // per_repeat))
    it1 = first * 2
    it2_start = align(it1, per_block)
    it2 = -(-it1 // per_repeat) * 2
    it3_start = align(it2, per_block)
    it3 = -(-it2 // per_repeat) * 2
    with_index = it2_start + it3_start + align(it3, per_block)
    return align(max(with_index, align(first, per_block), per_block), per_repeat)


def build_reduce_all(param, gen):
    n, dtype = param
    if dtype == F32:
        x = randn(gen, n, F32, 3.0)
        index_view, sum_tol = torch.int32, Tol(1e-5, 1e-5 * float(x.abs().sum()) + 1e-6)
    else:  # distinct values k/64, exact in half, so the max and min are unique
        x = ((torch.randperm(n, generator=gen) - n // 2).double() / 64).to(F16)
        index_view, sum_tol = torch.int16, Tol(1e-2, 1.0)
    tiling = pack("3I", n, reduce_tmp_elements(n, dtype), FLOAT_KEY[dtype])
    ref = x.double()
    checks = [
        Check("sum", lambda a: a[1][0:1].double(), ref.sum().reshape(1), sum_tol),
        Check("max", lambda a: a[1][8:9], x.max().reshape(1)),
        Check("argmax", lambda a: a[1].view(index_view)[9:10].long(), x.argmax().reshape(1)),
        Check("min", lambda a: a[1][16:17], x.min().reshape(1)),
        Check("argmin", lambda a: a[1].view(index_view)[17:18].long(), x.argmin().reshape(1)),
    ]
    return Launch(1, [x, sentinel(32, dtype), None, tiling], checks, inputs=(0,))


def build_whole_reduce_rows(param, gen):
    rows, cols, block_dim, chunk = param
    x = randn(gen, (rows, cols), F32, 2.0)
    tiling = pack("6I", rows, cols, *row_split(rows, block_dim), chunk)
    args = [x, sentinel(rows, F32), sentinel(rows, F32), sentinel(2 * rows, F32), None, tiling]
    checks = [
        Check("sum", out(1), x.sum(1), Tol(1e-5, 1e-5)),
        Check("max", out(2), x.max(1).values),
        Check("min value", lambda a: a[3].view(rows, 2)[:, 0], x.min(1).values),
        Check("min index", lambda a: a[3].view(torch.int32).view(rows, 2)[:, 1].long(), x.argmin(1)),
    ]
    return Launch(block_dim, args, checks, inputs=(0,))


def build_block_reduce(param, gen):
    blocks, block_dim, dtype = param
    per_block = 32 // dtype.itemsize
    x = randn(gen, blocks * per_block, dtype, 1.0)
    tiling = pack("6I", blocks, *split_even(blocks, block_dim), 64, FLOAT_KEY[dtype])
    view = x.float().view(blocks, per_block)
    sum_tol = Tol(1e-5, 1e-5) if dtype == F32 else Tol(3e-3, 1e-2)
    args = [x, sentinel(blocks, dtype), sentinel(blocks, dtype), sentinel(blocks, dtype), None, tiling]
    checks = [
        Check("sum", lambda a: a[1].float(), view.sum(1), sum_tol),
        Check("max", out(2), view.max(1).values.to(dtype)),
        Check("min", out(3), view.min(1).values.to(dtype)),
    ]
    return Launch(block_dim, args, checks, inputs=(0,))


def build_softmax_rows(param, gen):
    rows, cols, block_dim = param
    x = randn(gen, (rows, cols), F32, 3.0)
    tiling = pack("6I", rows, cols, align(cols, 8), *row_split(rows, block_dim))
    return Launch(block_dim, [x, sentinel((rows, cols), F32), None, tiling],
                  [Check("softmax", out(1), torch.softmax(x, -1), Tol(2e-5, 1e-7))], inputs=(0,))


def build_rms_norm(param, gen):
    rows, cols, block_dim, dtype = param
    eps = 1e-6
    x = randn(gen, (rows, cols), dtype, 2.0)
    gamma = uniform(gen, cols, -2.0, 2.0, dtype)
    xf = x.float()
    expected = (xf / torch.sqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * gamma.float()).to(dtype)
    tiling = pack("7If", rows, cols, align(cols, 16), *row_split(rows, block_dim), FLOAT_KEY[dtype], eps)
    tol = Tol(2e-5, 1e-5) if dtype == F32 else Tol(2e-3, 2e-3)
    return Launch(block_dim, [x, gamma, sentinel((rows, cols), dtype), None, tiling],
                  [Check("rms_norm", out(2), expected, tol)], inputs=(0, 1))


def build_layer_norm(param, gen):
    rows, cols, block_dim = param
    eps = 1e-5
    x = randn(gen, (rows, cols), F32, 2.0) + 0.5
    gamma = uniform(gen, cols, -2.0, 2.0)
    beta = randn(gen, cols)
    expected = torch.nn.functional.layer_norm(x, (cols,), gamma, beta, eps)
    tiling = pack("6If", rows, cols, align(cols, 8), *row_split(rows, block_dim), eps)
    return Launch(block_dim, [x, gamma, beta, sentinel((rows, cols), F32), None, tiling],
                  [Check("layer_norm", out(3), expected, Tol(1e-4, 1e-4))], inputs=(0, 1, 2))


def build_atomic_sum(param, gen):
    n, block_dim = param
    x = randn(gen, n, F32, 2.0)
    total = x.double().sum().float()
    tol = Tol(1e-5, 2e-6 * float(x.abs().sum()) + 1e-6)
    expected8 = torch.zeros(8)
    expected8[0] = total
    tiling = pack("5I", *element_split_tiling(n, block_dim, 1024))
    args = [x, torch.zeros(8), torch.zeros(1), None, tiling]  # atomic targets start at zero
    checks = [Check("sum8", out(1), expected8, tol), Check("sum1", out(2), total.reshape(1), tol)]
    return Launch(block_dim, args, checks, inputs=(0,))


def build_syncall_norm(param, gen):
    n, block_dim, soc = param
    x = uniform(gen, n, 0.5, 2.0)
    tiling = pack("5I", *element_split_tiling(n, block_dim, 1024))
    workspace = sentinel(block_dim * 8, F32)  # every core writes its slot before anyone reads
    expected = (x.double() / x.double().sum()).float()
    return Launch(block_dim, [x, sentinel(n, F32), workspace, tiling],
                  [Check("x/sum", out(1), expected, Tol(2e-5, 1e-9))], inputs=(0,), soc=soc)


def build_syncall_soft(param, gen):
    n, block_dim = param
    x = randn(gen, n, F32, 3.0)
    tiling = pack("5I", *element_split_tiling(n, block_dim, 1024))
    workspace = torch.zeros(2 * block_dim * 8, dtype=F32)  # sync flags must start at zero
    return Launch(block_dim, [x, sentinel(n, F32), workspace, tiling],
                  [Check("x-max", out(1), x - x.max(), EXACT)], inputs=(0,))


# ----------------------------------------------------------------------------- high-level activations

ACTIVATIONS = {
    "sigmoid": (0, torch.sigmoid),
    "tanh": (1, torch.tanh),
    # Gelu.md: x / (1 + e^(-1.59576912 (x + 0.044715 x^3))), the tanh approximation
    "gelu": (2, lambda t: torch.nn.functional.gelu(t, approximate="tanh")),
    "silu": (3, torch.nn.functional.silu),
}


def activation_tol(dtype: torch.dtype) -> Tol:
    return Tol(1e-4, 1e-5) if dtype == F32 else Tol(3e-3, 3e-3)


def build_activation(with_tmp: bool):
    def build(param, gen):
        op, n, block_dim, dtype = param
        key, fn = ACTIVATIONS[op]
        tile = 1024
        x = randn(gen, n, dtype, 3.0)
        tmp_bytes = tile * 4 * 4 if with_tmp else 0
        tiling = pack("8I", *element_split_tiling(n, block_dim, tile), tmp_bytes, key, FLOAT_KEY[dtype])
        expected = fn(x.float()).to(dtype)
        return Launch(block_dim, [x, sentinel(n, dtype), None, tiling],
                      [Check(op, out(1), expected, activation_tol(dtype))], inputs=(0,))
    return build


# ----------------------------------------------------------------------------- synchronisation, splits, copies

def build_sync_tbuf(param, gen):
    n, block_dim = param
    x, y = randn(gen, n), randn(gen, n)
    tiling = pack("5I", *element_split_tiling(n, block_dim, 256))
    return Launch(block_dim, [x, y, sentinel(n, F32), None, tiling],
                  [Check("(x+y)*x", out(2), (x + y) * x, F32_ARITH)], inputs=(0, 1))


def build_cumsum_scalar(param, gen):
    rows, cols, block_dim, dtype = param
    x = randn(gen, (rows, cols), F32, 2.0) if dtype == F32 else randint(gen, (rows, cols), -1000, 1000, I32)
    tiling = pack("7I", rows, cols, align(cols, 8), *row_split(rows, block_dim), 0 if dtype == F32 else 1)
    tol = Tol(1e-5, 1e-5) if dtype == F32 else EXACT
    return Launch(block_dim, [x, sentinel((rows, cols), dtype), None, tiling],
                  [Check("cumsum", out(1), torch.cumsum(x, 1, dtype=dtype), tol)], inputs=(0,))


def build_multicore_tiles(param, gen):
    n, block_dim = param
    scale, bias = -0.75, 1.25
    x = randn(gen, n, F32, 2.0)
    tiling = pack("2I2f", n, 512, scale, bias)
    expected = x * scale + bias
    return Launch(block_dim, [x, sentinel(n, F32), None, tiling],
                  [Check("x*s+b", out(1), expected, F32_ARITH)], inputs=(0,))


def build_copy_strided(param, gen):
    rows, cols, start, width, block_dim, chunk = param
    x = randn(gen, (rows, cols))
    tiling = pack("8I", rows, cols, start, width, *row_split(rows, block_dim), chunk)
    expected = -x[:, start:start + width]
    scattered = torch.zeros(rows, cols)
    scattered[:, start:start + width] = expected
    args = [x, sentinel((rows, width), F32), torch.zeros(rows, cols), None, tiling]  # scatter target starts zeroed
    return Launch(block_dim, args, [Check("slice", out(1), expected), Check("scatter", out(2), scattered)],
                  inputs=(0,))


def build_slice_pad(param, gen):
    rows, cols, start, width, block_dim, chunk = param
    x = randn(gen, (rows, cols))
    tiling = pack("9I", rows, cols, start, width, align(width, 8), *row_split(rows, block_dim), chunk)
    expected = x[:, start:start + width] + 1.0
    scattered = torch.zeros(rows, cols)
    scattered[:, start:start + width] = expected
    args = [x, sentinel((rows, width), F32), torch.zeros(rows, cols), None, tiling]  # scatter target starts zeroed
    return Launch(block_dim, args, [Check("slice+1", out(1), expected), Check("scatter", out(2), scattered)],
                  inputs=(0,))


def build_broadcast_add(param, gen):
    rows, cols, block_dim = param
    x = randn(gen, (rows, cols))
    bias = randn(gen, cols)
    cols_aligned = align(cols, 8)
    chunk = max(1, min(255, 8192 // cols_aligned))
    tiling = pack("7I", rows, cols, cols_aligned, *row_split(rows, block_dim), chunk)
    return Launch(block_dim, [x, bias, sentinel((rows, cols), F32), None, tiling],
                  [Check("x+bias", out(2), x + bias)], inputs=(0, 1))


def build_axpy_scalar_args(param, gen):
    n, block_dim, alpha = param
    x, y = randn(gen, n), randn(gen, n)
    expected = torch.tensor(alpha, dtype=F32) * x + y
    return Launch(block_dim, [x, y, sentinel(n, F32), alpha, n],
                  [Check("alpha*x+y", out(2), expected, F32_ARITH)], inputs=(0, 1))


def build_datacopypad_modes(param, gen):
    x = randn(gen, 64, F32, 3.0)
    pad, fill, dpad = -7.0, 9.0, 0.5
    a = torch.tensor([pad, pad, *x[3:8].tolist(), pad])
    b = torch.tensor([*x[0:5].tolist(), pad, pad, pad])
    c = torch.tensor([*x[10:13].tolist()] + [float(x[10])] * 5)  # dummy = the block's first element
    d = torch.full((3, 16), fill)
    for i, start in enumerate((20, 27, 34)):
        d[i, :3] = x[start:start + 3]
        d[i, 3:8] = dpad
    e = torch.zeros(16)
    for i, start in enumerate((20, 27, 34)):
        e[1 + 5 * i: 4 + 5 * i] = x[start:start + 3]
    args = [x, sentinel(8, F32), sentinel(8, F32), sentinel(8, F32), sentinel(48, F32), torch.zeros(16)]
    checks = [Check("left+right pad", out(1), a), Check("right pad + fill", out(2), b),
              Check("dummy = first element", out(3), c), Check("strided blocks in UB", out(4), d.view(48)),
              Check("UB->GM strides", out(5), e)]
    return Launch(1, args, checks, inputs=(0,))


def build_select_mode0(param, gen):
    n, dtype = param
    lanes = 256 // dtype.itemsize
    x = randn(gen, n, dtype, 2.0)
    y = randn(gen, n, dtype, 2.0)
    sel = randint(gen, 32, 0, 256, U8)
    bits = torch.tensor([(int(sel[i // 8]) >> (i % 8)) & 1 for i in range(lanes)], dtype=torch.bool)
    pick = bits.repeat(-(-n // lanes))[:n]
    tiling = pack("2I", n, FLOAT_KEY[dtype])
    return Launch(1, [x, y, sel, sentinel(n, dtype), None, tiling],
                  [Check("select mode 0", out(3), torch.where(pick, x, y))], inputs=(0, 1, 2))


def _neighbours(x: torch.Tensor, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(nearest-even, smaller-magnitude, larger-magnitude) representable values of dtype around x."""
    rn = x.to(dtype)
    bits = rn.view(torch.int16).to(torch.int32)
    bigger = (bits + 1).to(torch.int16).view(dtype)
    smaller = (bits - 1).to(torch.int16).view(dtype)
    mag_x, mag_rn = x.double().abs(), rn.double().abs()
    lo = torch.where(mag_rn <= mag_x, rn, smaller)
    hi = torch.where(mag_rn >= mag_x, rn, bigger)
    return rn, lo, hi


def round_float_to(x: torch.Tensor, dtype: torch.dtype, mode: str) -> torch.Tensor:
    """float32 -> half/bfloat16 under an AscendC RoundMode (Cast.md), for normal-range values."""
    rn, lo, hi = _neighbours(x, dtype)
    positive = x > 0
    exact = rn.double() == x.double()
    if mode == "rint":
        return rn
    if mode == "trunc":
        return lo
    if mode == "floor":
        return torch.where(positive, lo, hi)
    if mode == "ceil":
        return torch.where(positive, hi, lo)
    if mode == "round":  # nearest, ties away from zero
        tie = (x.double().abs() - lo.double().abs()) == (hi.double().abs() - x.double().abs())
        return torch.where(tie & ~exact, hi, rn)
    if mode == "odd":  # inexact results take the candidate with an odd last mantissa bit
        lo_odd = (lo.view(torch.int16) & 1) == 1
        return torch.where(exact, rn, torch.where(lo_odd, lo, hi))
    raise ValueError(mode)


def build_cast_round_modes(param, gen):
    n = param
    sign = torch.where(torch.rand(n, generator=gen) < 0.5, -1.0, 1.0)
    magnitude = torch.exp(uniform(gen, n, math.log(1e-3), math.log(1e4)).double())
    plain = (sign * magnitude).float()
    # exact ties between two neighbouring halves / bfloat16s
    base_h = plain.half()
    next_h = (base_h.view(torch.int16).to(torch.int32) + 1).to(torch.int16).view(F16)
    tie_h = ((base_h.double() + next_h.double()) / 2).float()
    base_b = plain.to(BF16)
    next_b = (base_b.view(torch.int16).to(torch.int32) + 1).to(torch.int16).view(BF16)
    tie_b = ((base_b.double() + next_b.double()) / 2).float()
    which = torch.arange(n) % 3
    x = torch.where(which == 0, plain, torch.where(which == 1, tie_h, tie_b))
    half_modes = ("rint", "floor", "ceil", "round", "trunc", "odd")
    expected_h = torch.stack([round_float_to(x, F16, m) for m in half_modes])
    expected_b = torch.stack([round_float_to(x, BF16, m) for m in half_modes[:5]])
    tiling = pack("I", n)
    args = [x, sentinel((6, n), F16), sentinel((5, n), BF16), None, tiling]
    checks = [Check(f"half {m}", lambda a, i=i: a[1][i], expected_h[i]) for i, m in enumerate(half_modes)]
    checks += [Check(f"bf16 {m}", lambda a, i=i: a[2][i], expected_b[i])
               for i, m in enumerate(half_modes[:5])]
    return Launch(1, args, checks, inputs=(0,))


def build_cast_saturate(param, gen):
    n, half_overflow = param
    xh = uniform(gen, n, -300.0, 300.0, F16)
    bound = 1.0e5 if half_overflow else 6.0e4  # 6e4 saturates int16 but fits in half
    xf = uniform(gen, n, -bound, bound)
    xi = randint(gen, n, -100000, 100000, I32)
    i8 = torch.round(xh.double()).clamp(-128, 127).to(torch.int8)
    i16 = torch.trunc(xf.double()).clamp(-32768, 32767).to(I16)
    n16 = xi.clamp(-32768, 32767).to(I16)
    # float -> half overflow: A2/A3 run in INF_NAN mode by default, so RINT gives +-inf (IEEE), as torch
    # does; Cast.md's "溢出默认按照饱和处理" holds for saturation mode (SIM_ISSUES.md, note 4)
    h = xf.half()
    tiling = pack("I", n)
    args = [xh, xf, xi, torch.full((n,), -0x5B, dtype=torch.int8), sentinel(n, I16), sentinel(n, I16),
            sentinel(n, F16), None, tiling]
    checks = [Check("half->int8 rint", out(3), i8), Check("float->int16 trunc", out(4), i16),
              Check("int32->int16", out(5), n16), Check("float->half rint", out(6), h)]
    return Launch(1, args, checks, inputs=(0, 1, 2))


def build_atomic_minmax(param, gen):
    rows, width = param
    x = randn(gen, (rows, width), F32, 3.0)
    init_max, init_min = torch.full((width,), -3.0e38), torch.full((width,), 3.0e38)
    tiling = pack("I", width)
    args = [x, init_max, init_min, torch.zeros(width), None, tiling]  # atomic targets start at their identities
    checks = [Check("column max", out(1), x.max(0).values), Check("column min", out(2), x.min(0).values),
              Check("column sum", out(3), x.double().sum(0).float(), Tol(1e-5, 1e-5))]
    return Launch(rows, args, checks, inputs=(0,))


def build_reduce_level0(param, gen):
    rows, cols, k, bits = param
    x = randn(gen, (rows, cols), F32, 2.0)
    tiling = pack("Q4I", bits, rows, cols, k, reduce_tmp_elements(rows * cols, F32))
    lanes = lane_mask((bits,), 64)
    wsum = torch.full((rows, 2), -1.0)
    wsum[:, 0] = torch.where(lanes, x[:, :64], torch.tensor(0.0)).sum(1)
    checks = [
        Check("ReduceSum mask K", lambda a: a[1][0:1].double(), x[:, :k].double().sum().reshape(1), Tol(1e-5, 1e-5)),
        Check("ReduceMax", lambda a: a[1][8:9], x.max().reshape(1)),
        Check("ReduceMax index", lambda a: a[1].view(torch.int32)[9:10].long(), x.argmax().reshape(1)),
        Check("WholeReduceSum bitmask", lambda a: a[2].view(rows, 2), wsum, Tol(1e-5, 1e-5)),
    ]
    return Launch(1, [x, sentinel(32, F32), sentinel(2 * rows, F32), None, tiling], checks, inputs=(0,))


def build_mask_modes(param, gen):
    repeats, n, bits = param
    length = repeats * 64
    x, y = randn(gen, length), randn(gen, length)
    tiling = pack("QII", bits, repeats, n)
    lanes = lane_mask((bits,), 64).repeat(repeats)
    args = [x, y, sentinel(n, F32), sentinel(n, F32), sentinel(length, F32), None, tiling]
    checks = [Check("counter add", out(2), (x + y)[:n]), Check("counter mul", out(3), (x * y)[:n]),
              Check("normal bitmask sub", out(4), torch.where(lanes, x - y, torch.tensor(-1.0)))]
    return Launch(1, args, checks, inputs=(0, 1))


def build_pipelined_add(param, gen):
    n, tile, block_dim = param
    x, y = randn(gen, n), randn(gen, n)
    tiling = pack("5I", n, tile, *split_tiles(n, tile, block_dim))
    return Launch(block_dim, [x, y, sentinel(n, F32), None, tiling],
                  [Check("x*y+x", out(2), x * y + x, F32_ARITH)], inputs=(0, 1))


def build_embedding_gather(param, gen):
    vocab, dim, count, block_dim = param
    table = randn(gen, (vocab, dim))
    idx = randint(gen, count, 0, vocab, I32)
    tiling = pack("5I", count, dim, *split_even(count, block_dim))
    return Launch(block_dim, [table, idx, sentinel((count, dim), F32), None, tiling],
                  [Check("embedding", out(2), torch.nn.functional.embedding(idx.long(), table))], inputs=(0, 1))


# ----------------------------------------------------------------------------- the table

def _binary_params():
    params = []
    for op in BINARY_OPS:
        for dtype in (F32, F16, I32, I16):
            if op == "div" and not dtype.is_floating_point:
                continue
            params.append((op, 1000, 8, dtype))
    params += [("add", 1, 4, F32), ("mul", 9, 16, F32), ("sub", 4099, 48, F16), ("max", 777, 3, I32)]
    return tuple(params)


CASES: tuple[Case, ...] = (
    # 1. public-sample add_custom (fixed shape, compile-time constants)
    Case("add_custom", build_add_custom(F32, 8 * 2048, 8),
         ("Ascend910B2", "Ascend910B4", "Ascend910_9391", "Ascend310P3")),
    Case("add_custom_ns", build_add_custom(I32, 16 * 1024, 16), ("Ascend910B2", "Ascend910B1")),
    Case("add_custom_half", build_add_custom(F16, 8 * 2048, 8), ("Ascend910B2", "Ascend910_9362", "Ascend310P3")),
    # 2. kernel contract, shape-generic
    Case("add_tiling", build_add_tiling, (
        (1, 64, 1, F32), (7, 64, 4, F32), (1000, 256, 3, F32), (4096, 512, 8, F32), (4099, 256, 8, F16),
        (333, 64, 2, I32), (12345, 1024, 16, I16), (16, 16, 40, F16), (100000, 2048, 48, F32),
    )),
    Case("pipelined_add", build_pipelined_add, ((1, 64, 1), (1000, 128, 2), (5000, 256, 3), (100, 64, 8))),
    # 3. elementwise
    Case("elementwise_binary", build_elementwise_binary, _binary_params()),
    Case("elementwise_scalar", build_elementwise_scalar, (
        (1, 1, F32), (1000, 8, F32), (2049, 5, F16), (999, 4, I32), (70, 9, I16),
    )),
    Case("leaky_relu", build_leaky_relu, ((1, 2, F32), (3001, 8, F32), (1025, 3, F16))),
    Case("unary_math", build_unary_math, tuple(
        (op, n, bd, dtype) for op in UNARY_OPS for (n, bd, dtype) in ((1003, 8, F32), (517, 3, F16))
    ) + (("exp", 1, 1, F32), ("relu", 40000, 48, F32))),
    Case("duplicate_fill", build_duplicate_fill, (
        (1, 1, F32, -2.5), (1000, 8, F32, 3.25), (333, 4, F16, -0.5), (777, 8, BF16, 2.5), (100, 3, I32, -123456),
        (4099, 16, I16, 321), (20, 40, BF16, -1.25),
    )),
    Case("bitwise_int16", build_bitwise, ((1, 1, False), (1000, 8, False), (1000, 8, True), (4097, 5, True))),
    Case("fused_chain", build_fused_chain, ((1, 1, F32), (2000, 8, F32), (1537, 6, F16))),
    Case("level0_binary", build_level0_binary, ((1, 1), (7, 2), (40, 1), (96, 4))),
    Case("level0_mask_half", build_level0_mask_half, (
        (1, 0x5555555555555555, 0xFFFF0000FFFF0000, 100),
        (3, 0xFFFFFFFFFFFFFFFF, 0, 1),
        (16, 1, 1 << 63, 128),
    )),
    Case("mask_modes", build_mask_modes, ((1, 1, 0xFFFFFFFFFFFFFFFF), (4, 200, 0xAAAAAAAA55555555),
                                          (16, 1000, 1 << 40))),
    Case("level0_unary", build_level0_unary, ((1, 0xFFFFFFFFFFFFFFFF), (5, 0x00FF00FF0F0F3333), (32, 1 << 63 | 1))),
    # 4. casts
    Case("cast_half_float", build_cast_half_float, ((1, 1), (1000, 8), (4097, 3))),
    Case("cast_bf16", build_cast_bf16, ((1, 1), (1000, 8), (2051, 5))),
    Case("cast_round_modes", build_cast_round_modes, (1, 100, 3001)),
    Case("cast_saturate", build_cast_saturate, ((1, False), (1000, False), (77, True), (1000, True))),
    Case("cast_float_int32", build_cast_float_int32, tuple(
        (mode, n, bd, dtype) for mode in ROUND_MODES for (n, bd, dtype) in ((1001, 4, F32), (257, 2, F16))
    )),
    # 5. compare / select
    Case("compare_select", build_compare_select, (
        (1, 1, F32), (100, 2, F32), (5000, 4, F32), (1000, 8, F16), (3333, 3, F16),
    )),
    Case("compare_scalar_clamp", build_compare_scalar_clamp,
         ((1, 1, F32), (1000, 8, F32), (1000, 3, F16), (77, 4, F16))),
    Case("where_cond", build_where_cond, ((1, 1), (999, 4), (5000, 8))),
    Case("select_mode0", build_select_mode0, ((256, F32), (100, F32), (384, F16), (1000, F16))),
    # 6. reductions
    Case("reduce_all", build_reduce_all, ((1, F32), (64, F32), (1000, F32), (4099, F32), (16384, F32), (100, F16),
                                          (2048, F16))),
    Case("whole_reduce_rows", build_whole_reduce_rows,
         ((1, 8, 1, 8), (10, 40, 2, 4), (300, 64, 4, 64), (37, 16, 3, 255))),
    Case("block_reduce", build_block_reduce, ((1, 1, F32), (7, 2, F32), (100, 4, F32), (1000, 8, F32), (1, 1, F16),
                                              (9, 2, F16), (100, 3, F16))),
    Case("reduce_level0", build_reduce_level0, ((1, 64, 64, 0xFFFFFFFFFFFFFFFF), (10, 128, 40, 0x0F0F0F0F0F0F0F0F),
                                                (33, 96, 1, 1 << 63 | 1))),
    Case("softmax_rows", build_softmax_rows, ((1, 1, 1), (4, 10, 2), (33, 100, 8), (8, 1000, 8), (5, 64, 8))),
    Case("rms_norm", build_rms_norm, ((1, 1, 1, F32), (16, 100, 4, F32), (5, 1000, 8, F32), (12, 257, 4, F16))),
    Case("layer_norm", build_layer_norm, ((1, 1, 1), (16, 100, 4), (7, 777, 8))),
    Case("atomic_sum", build_atomic_sum, ((1, 1), (1000, 8), (100000, 48), (10, 16))),
    Case("atomic_minmax", build_atomic_minmax, ((1, 1), (8, 100), (48, 1000), (64, 37))),
    Case("syncall_norm", build_syncall_norm, ((1000, 1, "Ascend910B2"), (10000, 8, "Ascend910B2"),
                                              (4099, 40, "Ascend910B4"))),
    Case("syncall_soft", build_syncall_soft, ((1000, 1), (5000, 8), (20, 16))),
    # 7. high-level APIs
    Case("activation_tmpbuf", build_activation(True), tuple(
        (op, n, bd, dtype) for op in ("sigmoid", "tanh", "gelu") for (n, bd, dtype) in ((2001, 8, F32), (999, 4, F16))
    )),
    Case("activation_notmp", build_activation(False), tuple(
        (op, n, bd, dtype) for op in ACTIVATIONS for (n, bd, dtype) in ((2001, 8, F32), (999, 4, F16))
    ) + (("silu", 1, 1, F32),)),
    # 8. explicit synchronisation
    Case("sync_tbuf", build_sync_tbuf, ((1, 1), (1000, 4), (600, 1), (10007, 8))),
    Case("cumsum_scalar", build_cumsum_scalar, ((1, 1, 1, F32), (3, 100, 2, F32), (17, 33, 4, F32), (9, 64, 3, I32))),
    # 9. multi-core splits and data movement
    Case("multicore_tiles", build_multicore_tiles, ((1000, 7), (8192, 8), (100, 48), (5, 16), (4097, 3), (5000, 100))),
    Case("datacopypad_modes", build_datacopypad_modes, ("fixed",)),
    Case("embedding_gather", build_embedding_gather, ((10, 1, 1, 1), (100, 33, 50, 4), (1000, 256, 300, 8))),
    Case("copy_strided", build_copy_strided, ((4, 64, 8, 16, 1, 4), (100, 128, 32, 64, 4, 16), (7, 24, 16, 8, 8, 2),
                                              (5, 40, 3, 24, 2, 5))),
    Case("slice_pad", build_slice_pad, ((5, 13, 3, 7, 1, 5), (64, 100, 1, 98, 4, 8), (3, 9, 0, 9, 2, 1),
                                        (20, 40, 17, 1, 3, 6))),
    Case("broadcast_add", build_broadcast_add, ((1, 1, 1), (7, 100, 2), (300, 64, 4), (3, 2040, 2))),
    Case("axpy_scalar_args", build_axpy_scalar_args, ((1, 1, 2.0), (1000, 8, -0.5), (5000, 48, 3.0))),
)


# ----------------------------------------------------------------------------- hardware-rule violations

@dataclass(frozen=True)
class NegativeCase:
    """A kernel that breaks a hardware rule; the simulator must raise SimulatorError of ``kind``."""

    kernel: str
    kind: str  # SimulatorError.kind (csrc/ascendc_sim/sim/diagnostics.h)
    make_args: Callable[[], list]
    block_dim: int = 1
    soc: str = DEFAULT_SOC
    entry: str = ""
    name: str = ""

    @property
    def entry_name(self) -> str:
        return self.entry or self.kernel

    @property
    def test_id(self) -> str:
        return self.name or self.kernel

    def source(self) -> str:
        return kernel_source(self.kernel)


def _unaligned_add_tiling_args() -> list:
    n = 100  # 400 bytes: the tail needs DataCopyPad
    tiling = pack("6I", n, 64, 2, 2, 0, 0)
    return [torch.randn(n), torch.randn(n), torch.zeros(n), None, tiling]


def _syncall_args(block_dim: int) -> Callable[[], list]:
    def make() -> list:
        n = 1000
        tiling = pack("5I", *element_split_tiling(n, block_dim, 1024))
        return [torch.rand(n) + 0.5, torch.zeros(n), torch.zeros(block_dim * 8), tiling]
    return make


NEGATIVE_CASES: tuple[NegativeCase, ...] = (
    NegativeCase("bad_datacopy_count", "datacopy_alignment", lambda: [torch.randn(32), torch.zeros(32)]),
    NegativeCase("ub_overflow", "ub_overflow", lambda: [torch.randn(16384), torch.zeros(16384)]),
    NegativeCase("queue_leak", "queue_alloc_exhausted", lambda: [torch.randn(256), torch.zeros(256)]),
    NegativeCase("gm_out_of_bounds", "gm_out_of_bounds", lambda: [torch.randn(200), torch.zeros(200)]),
    NegativeCase("misaligned_ub", "ub_misaligned", lambda: [torch.randn(64), torch.zeros(64)]),
    NegativeCase("missing_sync", "pipe_race", lambda: [torch.randn(256), torch.zeros(256)]),
    NegativeCase("unpaired_flag", "unpaired_flag", lambda: [torch.randn(64), torch.zeros(64)]),
    NegativeCase("compare_count", "compare_count",
                 lambda: [torch.randn(128), torch.randn(128), torch.zeros(32, dtype=U8)]),
    NegativeCase("bf16_arith", "unsupported_dtype",
                 lambda: [torch.randn(128).to(BF16), torch.randn(128).to(BF16), torch.zeros(128, dtype=BF16)]),
    NegativeCase("gm_write_race", "gm_write_race", lambda: [torch.randn(4 * 64), torch.zeros(64)], block_dim=4),
    # the 310P has no DataCopyPad
    NegativeCase("add_tiling", "unsupported_api", _unaligned_add_tiling_args, soc="Ascend310P3",
                 name="add_tiling_datacopypad_on_310p"),
    # SyncAll with more blocks than the SoC has vector cores waits forever on the NPU
    NegativeCase("syncall_norm", "sync_all_deadlock", _syncall_args(49), block_dim=49,
                 name="syncall_norm_49_blocks_on_48_cores"),
)
