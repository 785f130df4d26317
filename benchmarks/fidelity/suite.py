"""The fidelity suite: public AscendC kernels, compiled unmodified on the simulator, each checked against torch.

One ``Case`` per vendored kernel file (``kernels/<owner>/<repo>/<path>``): who wrote it, where it comes from,
the issue-14 API groups it exercises, and its ``Variant`` launches. A variant names the kernel entry and draws
one launch: the block count, the arguments in the entry's parameter order (tensors, numbers, tiling bytes packed
as the repository's tiling header lays them out) and the expected content of the output arguments, computed
with torch from the same inputs. The arguments follow the repository's own host code (its tiling function or
launcher), read at the vendored commit.

Formats: ``bare`` (a ``__global__ __aicore__`` entry the repository's host code launches), ``kernel-launch``
(the file also holds a ``<<<>>>`` launcher), ``operator project`` (the entry reads ``GET_TILING_DATA`` from the
project's op_host tiling header).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import torch
from host_tiling import host_tiling, matmul_api_tiling

from torch_ascendgen.targets.sim.list_tensor import ListOf

GROUPS = ("basic_arith_logic", "math_library", "data_movement", "sort_selection", "reductions", "high_level",
          "static_list_tensors", "std_utils", "debug", "cube", "matmul_api", "mixed_aic_aiv")

# issue 16's groups: cube = the low-level cube instructions (DataCopy Nd2Nz, LoadData, Mmad, Fixpipe),
# matmul_api = the high-level Matmul object, mixed_aic_aiv = cube and vector cores handing data over
ARITH, MATH, MOVE, SORT, REDUCE, HIGH, STATIC, STD, DEBUG, CUBE, MMAPI, MIXED = GROUPS


@dataclass(frozen=True)
class Launch:
    """One launch: ``args`` in the entry's parameter order; ``expected`` {parameter index: what that GM buffer holds
    afterwards}; ``atol``/``rtol`` override the runner's per-dtype tolerance."""

    block_dim: int
    args: tuple
    expected: Mapping[int, torch.Tensor]
    atol: float | None = None
    rtol: float | None = None


@dataclass(frozen=True)
class OpLaunch:
    """One call of an operator project, by its OpDef: the inputs, the attributes by name, and ``expected`` {output
    index: what that output holds, from its first element}. The project's own host code (InferShape, TilingFunc)
    decides the block count, the tiling and the workspace."""

    inputs: tuple
    attrs: Mapping[str, object]
    expected: Mapping[int, torch.Tensor]
    atol: float | None = None
    rtol: float | None = None


@dataclass(frozen=True)
class Variant:
    """One launch of ``entry``. ``diagnostic``: the launch does something undefined upstream (the note says what),
    and the simulator is right when it stops it with this diagnostic kind."""

    entry: str
    label: str  # dtype and shape, as the table shows it
    make: Callable[[torch.Generator], Launch | OpLaunch]
    diagnostic: str = ""


@dataclass(frozen=True)
class OpKernel:
    """An operator project's kernel as its project builds it, without the host code: the OpDef's op type and its
    inputs and outputs in order, each with the ge dtype it runs with (the DTYPE_<NAME> macros). A variant passes
    the tiling key (what TILING_KEY_IS tests; the TilingFunc's SetTilingKey) after the tiling."""

    op_type: str
    inputs: tuple[tuple[str, str], ...]  # (name, "DT_FLOAT16"...)
    outputs: tuple[tuple[str, str], ...]
    tiling_header: str = ""  # the op_host tiling header GET_TILING_DATA reads (a repository path), if it does
    listed: int = 0  # tensors the DYNAMIC inputs' lists hold: passed after the key, so that the launch knows their GM


@dataclass(frozen=True)
class Case:
    id: str  # author/kernel-file-stem
    author: str
    repo: str  # GitHub owner/name
    commit: str
    path: str  # the kernel file, relative to the repository
    groups: tuple[str, ...]
    variants: tuple[Variant, ...]
    fmt: str = "bare"
    include_roots: tuple[str, ...] = ()  # the repository's -I directories its includes are relative to
    soc: str = ""  # the chip the repository targets, when not the default
    note: str = ""
    licence: str = ""
    op: OpKernel | None = None  # an operator project's kernel, built with its OpDef's dtypes and the tiling key
    snapshot: bool = False  # its files come from a commit whose paths other cases need at other contents

    @property
    def vendored(self) -> str:
        """Where its files are vendored (sources.repo_dir): the repository's copy, or its own snapshot of it."""
        return f"{self.repo}@{self.commit[:12]}" if self.snapshot else self.repo


# ---- input helpers ---------------------------------------------------------------------------------------------

def uniform(g: torch.Generator, shape, lo: float = -1.0, hi: float = 1.0, dtype=torch.float32) -> torch.Tensor:
    return (torch.rand(shape, generator=g, dtype=torch.float32) * (hi - lo) + lo).to(dtype)


def integers(g: torch.Generator, shape, lo: int, hi: int, dtype=torch.int32) -> torch.Tensor:
    return torch.randint(lo, hi, shape, generator=g, dtype=torch.int64).to(dtype)


def padded(t: torch.Tensor, extra: int) -> torch.Tensor:
    """``t`` flattened with ``extra`` trailing elements: a buffer a kernel may read a little past (as upstream's
    allocator allows), whose first ``t.numel()`` elements are ``t``."""
    return torch.cat([t.reshape(-1), torch.zeros(extra, dtype=t.dtype)])


def as_bytes(t: torch.Tensor) -> torch.Tensor:
    return t.contiguous().reshape(-1).view(torch.uint8)


def round_half_away(x: torch.Tensor) -> torch.Tensor:
    """AscendC CAST_ROUND: to nearest, ties away from zero."""
    return torch.sign(x) * torch.floor(x.abs() + 0.5)


def pack(fmt: str, *values) -> bytes:
    return struct.pack("<" + fmt, *values)


def auto_sync_note(what: str) -> str:
    """A kernel that hands data between the scalar pipe and another with no synchronisation of its own: correct as
    its project builds it (bisheng's --cce-auto-sync, on by default, synchronises the scalar pipe), a pipe_race
    without that."""
    return f"{what}, with no synchronisation of its own: the compiler's auto sync provides it"


# ---- ggml-org/ggml: ggml-cann kernels (MIT) ----------------------------------------------------------------------
# Shapes travel as ggml's ne (int64[4], innermost first) and nb (byte strides, size_t[4]).

GGML_COMMIT = "5c9ae47c8e4121a8ec5a5d342e830c75af53f112"  # the last commit with the kernels (later deleted)


def ggml_ne(t: torch.Tensor) -> bytes:
    ne = list(t.shape[::-1]) + [1] * (4 - t.dim())
    return pack("4q", *ne)


def ggml_nb(t: torch.Tensor) -> bytes:
    ne = list(t.shape[::-1]) + [1] * (4 - t.dim())
    nb = [s * t.element_size() for s in t.stride()[::-1]]
    while len(nb) < 4:
        nb.append(nb[-1] * ne[len(nb) - 1])
    return pack("4Q", *nb)


def _get_rows(dtype_in, dtype_out, b: int, h: int, rows: int, d: int, n: int, blocks: int, pad: int = 0):
    def make(g):
        x = uniform(g, (b, h, rows, d), -4, 4).to(dtype_in)
        idx = integers(g, (b, h, n), 0, rows)
        out = torch.zeros(b, h, n, d, dtype=dtype_out)
        expected = torch.stack([torch.stack([x[i, j, idx[i, j].long()] for j in range(h)]) for i in range(b)])
        return Launch(blocks, (padded(x, pad), idx, out, ggml_ne(x), ggml_nb(x), ggml_ne(idx), ggml_nb(idx),
                               ggml_ne(out), ggml_nb(out)), {2: expected.to(dtype_out)})
    return make


def _q8_blocks(g, shape):
    """ggml's Q8_0 layout as the ggml-cann kernels use it: every int8 quant, then one fp16 scale per 32."""
    q = integers(g, shape, -127, 128, torch.int8)
    scale = uniform(g, shape[:-1] + (shape[-1] // 32,), 0.001, 0.1).half()
    return q, scale


def _get_rows_q8(b, h, rows, d, n, blocks):
    def make(g):
        q, scale = _q8_blocks(g, (b, h, rows, d))
        idx = integers(g, (b, h, n), 0, rows)
        out = torch.zeros(b, h, n, d)
        x = (q.float().reshape(b, h, rows, d // 32, 32) * scale.float()[..., None]).reshape(b, h, rows, d)
        expected = torch.stack([torch.stack([x[i, j, idx[i, j].long()] for j in range(h)]) for i in range(b)])
        data = torch.cat([as_bytes(q), as_bytes(scale)])
        return Launch(blocks, (data, idx, out, ggml_ne(q), ggml_ne(idx), ggml_nb(idx), ggml_ne(out), ggml_nb(out)),
                      {2: expected})
    return make


def _get_rows_q4(b, h, rows, d, n, blocks):
    def make(g):
        q = integers(g, (b, h, rows, d), -8, 8, torch.int8)
        scale = uniform(g, (b, h, rows, d // 32), 0.001, 0.1).half()
        idx = integers(g, (b, h, n), 0, rows)
        out = torch.zeros(b, h, n, d)
        nibbles = (q.reshape(-1, 2).to(torch.int16) & 0xF)
        packed_q = (nibbles[:, 0] | (nibbles[:, 1] << 4)).to(torch.uint8)  # element 2k in the low nibble
        x = (q.float().reshape(b, h, rows, d // 32, 32) * scale.float()[..., None]).reshape(b, h, rows, d)
        expected = torch.stack([torch.stack([x[i, j, idx[i, j].long()] for j in range(h)]) for i in range(b)])
        data = torch.cat([packed_q, as_bytes(scale)])
        return Launch(blocks, (data, idx, out, ggml_ne(q), ggml_ne(idx), ggml_nb(idx), ggml_ne(out), ggml_nb(out)),
                      {2: expected})
    return make


def _dup(src_dtype, dst_dtype, shape, width_pad):
    """Rows of a (row-strided) source copied into a contiguous destination, one block per row."""
    def make(g):
        wide = uniform(g, shape[:-1] + (shape[-1] + width_pad,), -3, 3).to(src_dtype)
        view = wide[..., :shape[-1]]
        dst = torch.zeros(shape, dtype=dst_dtype)
        rows = math.prod(shape[:-1])
        return Launch(rows, (wide, dst, ggml_ne(view), ggml_nb(view), ggml_ne(dst), ggml_nb(dst)),
                      {1: view.to(dst_dtype)})
    return make


def _quantize_q8(src_dtype, rows, d, blocks):
    def make(g):
        x = uniform(g, (rows, d), -2, 2).to(src_dtype)
        groups = x.float().reshape(rows, d // 32, 32)
        amax = groups.abs().amax(-1, keepdim=True)
        dscale = amax / 127
        inv = torch.where(dscale != 0, 1.0 / dscale, torch.zeros_like(dscale))
        scaled = torch.where(dscale != 0, groups * inv, groups)
        q = round_half_away(scaled).to(torch.int8).reshape(rows, d)
        out = torch.zeros(rows * d + rows * d // 32 * 2, dtype=torch.uint8)
        expected = torch.cat([as_bytes(q), as_bytes(dscale.reshape(-1).half())])
        return Launch(blocks, (x, out, ggml_ne(x), ggml_nb(x), ggml_ne(x)), {1: expected})
    return make


def _quantize_q4(src_dtype, rows, d, blocks):
    def make(g):
        x = uniform(g, (rows, d), -2, 2).to(src_dtype)
        groups = x.float().reshape(rows, d // 32, 32)
        mx, mn = groups.amax(-1, keepdim=True), groups.amin(-1, keepdim=True)
        dscale = torch.where((mn < 0) & (-mn > mx), mn, mx) / -8
        inv = torch.where(dscale != 0, 1.0 / dscale, torch.zeros_like(dscale))
        scaled = torch.where(dscale != 0, groups * inv, groups)
        q = (torch.clamp(torch.floor(scaled + 8.5), max=15) - 8).to(torch.int16).reshape(-1, 2) & 0xF
        packed_q = (q[:, 0] | (q[:, 1] << 4)).to(torch.uint8)
        out = torch.zeros(rows * d // 2 + rows * d // 32 * 2, dtype=torch.uint8)
        expected = torch.cat([packed_q, as_bytes(dscale.reshape(-1).half())])
        return Launch(blocks, (x, out, ggml_ne(x), ggml_nb(x), ggml_ne(x)), {1: expected})
    return make


_QUANTIZE_LEAK = ("calculate() takes scale_local from AllocTensor and never frees it; the pages ask for AllocTensor "
                  "and FreeTensor in pairs, so the simulator stops the launch at kernel end (queue_tensor_leak). "
                  "With the tensor freed the results match torch")


_Q4_SHORT_COPY = ("copy_in() moves 32 int4b_t (16 bytes) with DataCopy, whose length must be whole 32-byte blocks (the "
                  "kernel's own comment asks why there is no error); the simulator stops it (datacopy_alignment). "
                  "With 64 elements copied the results match torch (tests/sim/test_sim_int4.py)")


def ggml_cases() -> list[Case]:
    base = "src/ggml-cann/kernels/"
    common = dict(author="ggml-org", repo="ggml-org/ggml", commit=GGML_COMMIT, licence="MIT")
    return [
        Case("ggml-org/dup", path=base + "dup.cpp", groups=(MOVE, ARITH), variants=(
            Variant("ascendc_dup_by_rows_fp16", "fp16 2x3x64 strided rows",
                    _dup(torch.half, torch.half, (2, 3, 64), 16)),
            Variant("ascendc_dup_by_rows_fp32", "fp32 5x40", _dup(torch.float, torch.float, (5, 40), 8)),
            Variant("ascendc_dup_by_rows_fp32_to_fp16", "fp32->fp16 4x48",
                    _dup(torch.float, torch.half, (4, 48), 0)),
            Variant("ascendc_dup_by_rows_fp16_to_fp32", "fp16->fp32 3x32",
                    _dup(torch.half, torch.float, (3, 32), 16)),
        ), **common),
        Case("ggml-org/get_row_f32", path=base + "get_row_f32.cpp", groups=(MOVE,), variants=(
            Variant("ascendc_get_row_f32", "fp32 2x2x10x32 idx 5",
                    _get_rows(torch.float, torch.float, 2, 2, 10, 32, 5, 4)),
            Variant("ascendc_get_row_f32", "fp32 1x3x7x20 idx 4 (row tail)",
                    _get_rows(torch.float, torch.float, 1, 3, 7, 20, 4, 3, pad=8)),
        ), **common),
        Case("ggml-org/get_row_f16", path=base + "get_row_f16.cpp", groups=(MOVE, ARITH), variants=(
            Variant("ascendc_get_row_f16", "fp16->fp32 2x2x10x64 idx 5",
                    _get_rows(torch.half, torch.float, 2, 2, 10, 64, 5, 4)),
            Variant("ascendc_get_row_f16", "fp16->fp32 1x1x9x24 idx 6 (row tail)",
                    _get_rows(torch.half, torch.float, 1, 1, 9, 24, 6, 2, pad=16), diagnostic="local_overrun"),
        ), note="a row of 24 halves: its Cast converts the 32 halves of the 32-byte-aligned input buffer into the "
                "24-float output buffer (upstream bug; on the NPU it writes past that buffer)", **common),
        Case("ggml-org/get_row_q8_0", path=base + "get_row_q8_0.cpp", groups=(MOVE, ARITH), variants=(
            Variant("ascendc_get_row_q8_0", "q8_0 2x1x6x64 idx 4", _get_rows_q8(2, 1, 6, 64, 4, 3)),
            Variant("ascendc_get_row_q8_0", "q8_0 1x2x5x32 idx 7", _get_rows_q8(1, 2, 5, 32, 7, 4)),
        ), **common),
        Case("ggml-org/get_row_q4_0", path=base + "get_row_q4_0.cpp", groups=(MOVE, ARITH), variants=(
            Variant("ascendc_get_row_q4_0", "q4_0 2x1x6x64 idx 4", _get_rows_q4(2, 1, 6, 64, 4, 3),
                    diagnostic="datacopy_alignment"),
        ), note=_Q4_SHORT_COPY, **common),
        Case("ggml-org/quantize_f32_q8_0", path=base + "quantize_f32_q8_0.cpp", groups=(ARITH, REDUCE, MOVE),
             variants=(Variant("ascendc_quantize_f32_q8_0", "fp32 6x64", _quantize_q8(torch.float, 6, 64, 4),
                               diagnostic="queue_tensor_leak"),
                       Variant("ascendc_quantize_f32_q8_0", "fp32 3x544", _quantize_q8(torch.float, 3, 544, 2),
                               diagnostic="queue_tensor_leak")),
             note=_QUANTIZE_LEAK, **common),
        Case("ggml-org/quantize_f16_q8_0", path=base + "quantize_f16_q8_0.cpp", groups=(ARITH, REDUCE, MOVE),
             variants=(Variant("ascendc_quantize_f16_q8_0", "fp16 6x64", _quantize_q8(torch.half, 6, 64, 4),
                               diagnostic="queue_tensor_leak"),),
             note=_QUANTIZE_LEAK, **common),
        Case("ggml-org/quantize_float_to_q4_0", path=base + "quantize_float_to_q4_0.cpp",
             groups=(ARITH, REDUCE, MOVE), variants=(
                 Variant("ascendc_quantize_f32_to_q4_0", "fp32 4x64", _quantize_q4(torch.float, 4, 64, 2)),
                 Variant("ascendc_quantize_f16_to_q4_0", "fp16 3x96", _quantize_q4(torch.half, 3, 96, 3)),
             ), **common),
    ]



# ---- sgl-project/sgl-kernel-npu (MIT; files say BSD-3-Clause) -----------------------------------------------------

SGL_COMMIT = "f425bdf1e191a7682296d3b2ed0b927d4e37d671"


def _helloworld(total: int):
    def make(g):
        x, y = uniform(g, (total,), dtype=torch.half), uniform(g, (total,), dtype=torch.half)
        return Launch(8, (x, y, torch.zeros_like(x), total), {2: x + y})  # blockDim 8, as op_host/helloworld.cpp
    return make


def _apply_token_bitmask(dtype, rows: int, vocab: int):
    """op_host/apply_token_bitmask.cpp: vocab padded to 256, one block per row, tileLength from a 192 KiB UB."""
    def make(g):
        logits = uniform(g, (rows, vocab), -5, 5, dtype)
        bitmask = integers(g, (rows, vocab // 32), -2**31, 2**31)
        bitmask[0, :2] = -1  # whole words kept
        bits = (bitmask[:, :, None] >> torch.arange(32)) & 1
        expected = torch.where(bits.reshape(rows, vocab) == 1, logits, torch.tensor(float("-inf"), dtype=dtype))
        size = torch.tensor([], dtype=dtype).element_size()
        per_unit = 2 * (2 * 256 * size + 256 // 32 * 4)
        tile = min((196608 - 16384) // per_unit * 256, vocab)
        blocks = min(rows, 40)
        return Launch(blocks, (logits, bitmask, rows, vocab, vocab, vocab // 32, rows // blocks, rows % blocks, tile,
                               blocks, size), {0: expected})
    return make


def _tree(g, topk: int, depth: int, nodes: int):
    """A draft tree as EAGLE builds it: node j's selected index is slot(parent) * topk + r (r: its rank among its
    parent's children), where parent_list[slot] holds the parent's own selected index; slot 0 is the root."""
    selected, parent_list, slots, children = [], [0] * (topk * (depth - 1) + 1), {}, {}
    for j in range(nodes):
        free = [p for p in range(-1, j) if children.get(p, 0) < topk and (p == -1 or p in slots
                                                                          or len(slots) < topk * (depth - 1))]
        parent = free[int(torch.randint(len(free), (1,), generator=g))]
        if parent >= 0 and parent not in slots:
            slots[parent] = len(slots) + 1
            parent_list[slots[parent]] = selected[parent]
        selected.append((slots[parent] if parent >= 0 else 0) * topk + children.get(parent, 0))
        children[parent] = children.get(parent, 0) + 1
    return selected, parent_list


def _build_tree_reference(parent_list, selected, seq_lens, topk, depth, draft):
    """sglang's build_tree_efficient (FULL_MASK), written from the kernel's loops."""
    bs = len(seq_lens)
    mask = torch.zeros(int(sum(seq_lens)) * draft + draft * draft * bs, dtype=torch.bool)
    positions = torch.zeros(bs, draft, dtype=torch.int64)
    index = torch.zeros(bs, draft, dtype=torch.int64)
    next_token = torch.full((bs, draft), -1, dtype=torch.int64)
    sibling = torch.full((bs, draft), -1, dtype=torch.int64)
    for b in range(bs):
        sel, par, seq_len = selected[b], parent_list[b], seq_lens[b]
        seq_tree_idx = draft * draft * b + sum(seq_lens[:b]) * draft
        for tid in range(draft):
            row = seq_tree_idx + (seq_len + draft) * tid + seq_len
            mask[row] = True
            if tid == 0:
                positions[b, 0] = seq_len
                for i in range(draft - 1, 0, -1):
                    index[b, i] = b * draft + i
                    parent_tb = sel[i - 1] // topk
                    pos = 0
                    if parent_tb > 0:
                        token = par[parent_tb]
                        while pos < draft:
                            if sel[pos] == token:
                                pos += 1
                                break
                            pos += 1
                    if pos == draft:
                        continue
                    if next_token[b, pos] != -1:
                        sibling[b, i] = next_token[b, pos]
                    next_token[b, pos] = i
                index[b, 0] = b * draft
            else:
                cur, position = tid - 1, 0
                while True:
                    position += 1
                    mask[row + 1 + cur] = True
                    parent_tb = sel[cur] // topk
                    if parent_tb == 0:
                        break
                    cur = sel.index(par[parent_tb])
                positions[b, tid] = position + seq_len
    return mask, positions, index, next_token, sibling


def _build_tree(bs: int, topk: int, depth: int, draft: int, blocks: int):
    def make(g):
        trees = [_tree(g, topk, depth, draft - 1) for _ in range(bs)]
        selected = torch.tensor([t[0] for t in trees], dtype=torch.int64)
        parent_list = torch.tensor([t[1] for t in trees], dtype=torch.int64)
        seq_lens = integers(g, (bs,), 1, 20, torch.int64)
        mask, positions, index, next_token, sibling = _build_tree_reference(
            [t[1] for t in trees], [t[0] for t in trees], seq_lens.tolist(), topk, depth, draft)
        big = bs % blocks or blocks
        tiling = pack("4q5i4x", topk, depth, draft, 0, bs, mask.numel(), big, -(-bs // blocks), bs // blocks)
        outputs = [torch.zeros_like(mask), torch.zeros_like(positions), torch.zeros_like(index),
                   torch.zeros_like(next_token), torch.zeros_like(sibling)]
        return Launch(blocks, (parent_list, selected, seq_lens, *outputs, torch.zeros(32, dtype=torch.uint8),
                               tiling), {3: mask, 4: positions, 5: index, 6: next_token, 7: sibling})
    return make


# LoRA kernels (sgl-project's csrc/lora, adapted from vllm-ascend's csrc/kernels): weights [loras, rows, cols].

def _lora_requests(g, tokens: int, requests: int, loras: int):
    """Tokens cut into ``requests`` runs (seq lens) and a LoRA per request, -1 (none) for one of them."""
    cuts = sorted(torch.randperm(tokens - 1, generator=g)[:requests - 1].add(1).tolist())
    lens = torch.tensor([b - a for a, b in zip([0, *cuts], [*cuts, tokens])], dtype=torch.int64)
    index = integers(g, (requests,), 0, loras, torch.int64)
    index[-1] = -1
    return lens, index, index.repeat_interleave(lens)


def _shrink_reference(x, w, per_token, scale, y0):
    y = y0.clone()
    for t, lora in enumerate(per_token.tolist()):
        if lora >= 0:
            y[t] = scale * (w[lora].float() @ x[t].float())
    return y


def _expand_reference(x, w, per_token, y_in, offset: int, width: int, y0):
    y = y0.clone()
    for t, lora in enumerate(per_token.tolist()):
        if lora >= 0:
            y[t, offset:offset + width] = (y_in[t, offset:offset + width].float() + w[lora].float() @ x[t]).to(y.dtype)
    return y


def _bgmv_shrink(dtype, tokens: int, hidden: int, rank: int, loras: int, blocks: int, vllm: bool = False):
    def make(g):
        x, w = uniform(g, (tokens, hidden), dtype=dtype), uniform(g, (loras, rank, hidden), -0.1, 0.1, dtype)
        index = integers(g, (tokens,), -1, loras, torch.int64)
        y = torch.full((tokens, rank), 5.0)
        per_core = -(-tokens // blocks)
        expected = _shrink_reference(x, w, index, 0.5, y)
        return Launch(blocks, (x, w, index, tokens, y, tokens, per_core, hidden, rank, 0.5), {4: expected},
                      atol=1e-3, rtol=1e-3)
    return make


def _bgmv_expand(dtype, tokens: int, rank: int, out: int, full: int, offset: int, loras: int, blocks: int):
    def make(g):
        x, w = uniform(g, (tokens, rank)), uniform(g, (loras, out, rank), -0.5, 0.5, dtype)
        index = integers(g, (tokens,), -1, loras, torch.int64)
        y_in, y_out = uniform(g, (tokens, full), dtype=dtype), torch.zeros(tokens, full, dtype=dtype)
        expected = _expand_reference(x, w, index, y_in, offset, out, y_out)
        return Launch(blocks, (x, w, index, tokens, y_in, y_out, tokens, -(-tokens // blocks), rank, out, offset,
                               full), {5: expected})
    return make


def _sgmv_shrink(dtype, tokens: int, requests: int, hidden: int, rank: int, loras: int, blocks: int):
    def make(g):
        x, w = uniform(g, (tokens, hidden), dtype=dtype), uniform(g, (loras, rank, hidden), -0.1, 0.1, dtype)
        lens, index, per_token = _lora_requests(g, tokens, requests, loras)
        y = torch.full((tokens, rank), 5.0)
        expected = _shrink_reference(x, w, per_token, 2.0, y)
        return Launch(blocks, (x, w, index, requests, lens, requests, y, tokens, -(-tokens // blocks), hidden, rank,
                               2.0), {6: expected}, atol=1e-3, rtol=1e-3)
    return make


def _sgmv_expand(dtype, tokens: int, requests: int, rank: int, out: int, full: int, offset: int, loras: int,
                 blocks: int):
    def make(g):
        x, w = uniform(g, (tokens, rank)), uniform(g, (loras, out, rank), -0.5, 0.5, dtype)
        lens, index, per_token = _lora_requests(g, tokens, requests, loras)
        y_in, y_out = uniform(g, (tokens, full), dtype=dtype), torch.zeros(tokens, full, dtype=dtype)
        expected = _expand_reference(x, w, per_token, y_in, offset, out, y_out)
        return Launch(blocks, (x, w, index, requests, lens, requests, y_in, y_out, tokens, -(-tokens // blocks), rank,
                               out, offset, full), {7: expected})
    return make


def _sgemmv_shrink(dtype, tokens: int, requests: int, hidden: int, max_rank: int, loras: int, blocks: int):
    """Per-LoRA ranks (int32) and scales (fp16); a token's first rank(lora) outputs are written."""
    def make(g):
        x, w = uniform(g, (tokens, hidden), dtype=dtype), uniform(g, (loras, max_rank, hidden), -0.1, 0.1, dtype)
        lens, index, per_token = _lora_requests(g, tokens, requests, loras)
        ranks = torch.tensor([max_rank, max_rank // 2, 0, max_rank][:loras], dtype=torch.int32)
        scales = torch.tensor([0.5, 2.0, 1.0, 1.5][:loras], dtype=torch.half)
        y = torch.full((tokens, max_rank), 5.0)
        expected = y.clone()
        for t, lora in enumerate(per_token.tolist()):
            if lora >= 0 and ranks[lora] > 0:
                r = int(ranks[lora])
                expected[t, :r] = float(scales[lora]) * (w[lora, :r].float() @ x[t].float())
        return Launch(blocks, (x, w, index.int(), requests, lens.int(), requests, ranks, loras, scales, loras, y,
                               tokens, -(-tokens // blocks), hidden, max_rank), {10: expected}, atol=1e-3, rtol=1e-3)
    return make


def _tri_inv(dtype, count: int, n: int):
    """Unit lower-triangular matrices (the kernel reads them column-major as unit upper-triangular ones), one per
    block; TriInvColumnSweepTiling {num_blocks, num_elems, matrix_size}."""
    def make(g):
        m = torch.tril(uniform(g, (count, n, n), -0.3, 0.3), -1) + torch.eye(n)
        m = m.to(dtype)
        expected = torch.linalg.inv(m.double()).to(dtype)
        return Launch(count, (m, torch.zeros_like(m), pack("3I", count, m.numel(), n)), {1: expected},
                      atol=1e-2 if dtype == torch.half else None)
    return make


def _alloc_extend_reference(pre, seq, last_loc, free_pages, page: int):
    """sglang's alloc_extend: each request's new token slots continue its last page, then fill whole new pages and
    a partial one from ``free_pages`` (taken in request order)."""
    out, pages_before = [], 0
    for p, s, last in zip(pre, seq, last_loc):
        need = -(-s // page) - -(-p // page)
        first_page_end = min(s, -(-p // page) * page)
        slots = [last + 1 + i for i in range(first_page_end - p)]
        whole = max(s // page * page - -(-p // page) * page, 0)
        for k in range(whole // page):
            slots += [free_pages[pages_before + k] * page + i for i in range(page)]
        if len(slots) < s - p:
            slots += [free_pages[pages_before + need - 1] * page + i for i in range(s - p - len(slots))]
        out += slots
        pages_before += need
    return torch.tensor(out, dtype=torch.int64)


def _alloc_extend(batch: int, page: int, blocks: int):
    """AllocExtendTilingData {batch_size, page_size, used_core_num, total_extend_tokens}; requests round-robin over
    the blocks; the page count written to ``values`` is not checked."""
    def make(g):
        pre = integers(g, (batch,), 0, 40, torch.int64)
        seq = pre + integers(g, (batch,), 1, 3 * page, torch.int64)
        last_loc = pre - 1 + 1000 * torch.arange(1, batch + 1)
        free_pages = torch.randperm(200, generator=g)[:64].to(torch.int64)
        expected = _alloc_extend_reference(pre.tolist(), seq.tolist(), last_loc.tolist(), free_pages.tolist(), page)
        tiling = pack("3i4xq", batch, page, blocks, expected.numel())
        return Launch(blocks, (pre, seq, last_loc, free_pages, torch.zeros_like(expected),
                               torch.zeros(4, dtype=torch.int64), torch.zeros(32, dtype=torch.uint8), tiling),
                      {4: expected})
    return make


def sgl_cases() -> list[Case]:
    common = dict(author="sgl-project", repo="sgl-project/sgl-kernel-npu", commit=SGL_COMMIT, licence="MIT")
    return [
        Case("sgl-project/kernel_helloworld", path="csrc/helloworld/op_kernel/kernel_helloworld.cpp",
             groups=(ARITH, MOVE), variants=(
                 Variant("helloworld", "fp16 4096", _helloworld(4096)),
                 Variant("helloworld", "fp16 32768", _helloworld(32768)),
             ), **common),
        Case("sgl-project/apply_token_bitmask", path="csrc/apply_token_bitmask/op_kernel/apply_token_bitmask.cpp",
             groups=(MOVE,), variants=(
                 Variant("apply_token_bitmask_fp16", "fp16 3x1024", _apply_token_bitmask(torch.half, 3, 1024)),
                 Variant("apply_token_bitmask_fp32", "fp32 2x32000 (3 tiles)",
                         _apply_token_bitmask(torch.float, 2, 32000)),
                 Variant("apply_token_bitmask_bf16", "bf16 5x512", _apply_token_bitmask(torch.bfloat16, 5, 512)),
             ), note=auto_sync_note("Compute copies the logits UB->UB (V), then SetValue writes -inf into the same "
                                    "buffer"), **common),
        Case("sgl-project/build_tree_kernel", path="csrc/build_tree/op_kernel/build_tree_kernel.cpp",
             groups=(MOVE,), variants=(
                 Variant("build_tree_efficient", "bs 3, topk 4, depth 4, 8 draft tokens", _build_tree(3, 4, 4, 8, 2)),
                 Variant("build_tree_efficient", "bs 5, topk 2, depth 6, 12 draft tokens",
                         _build_tree(5, 2, 6, 12, 3)),
             ), **common),
        Case("sgl-project/tri_inv_kernel", path="csrc/tri_inv/op_kernel/tri_inv_kernel.cpp", groups=(ARITH, MOVE),
             variants=(
                 Variant("tri_inv_col_sweep_fp32", "fp32 5 matrices 8x8", _tri_inv(torch.float, 5, 8)),
                 Variant("tri_inv_col_sweep_fp16", "fp16 3 matrices 16x16", _tri_inv(torch.half, 3, 16)),
             ), note=auto_sync_note("each column's Duplicate(b) (V) is followed by b.SetValue (scalar)"), **common),
        Case("sgl-project/alloc_extend_kernel", path="csrc/alloc_extend/op_kernel/alloc_extend_kernel.cpp",
             groups=(MOVE,), variants=(
                 Variant("alloc_extend", "6 requests, pages of 16, 3 blocks", _alloc_extend(6, 16, 3), "local_overrun"),
                 Variant("alloc_extend", "5 requests, pages of 4, 5 blocks", _alloc_extend(5, 4, 5), "local_overrun"),
             ), note="CopyIn offsets the seq_lens and last_loc copies by total_size_aligned, a byte count, as an "
                     "element index: they land past the buffer (upstream bug)", **common),
        Case("sgl-project/alloc_extend_kernel@63871595", path="csrc/alloc_extend/op_kernel/alloc_extend_kernel.cpp",
             groups=(DEBUG, MOVE), variants=(
                 Variant("alloc_extend", "6 requests, pages of 16, 6 blocks", _alloc_extend(6, 16, 6)),
                 Variant("alloc_extend", "5 requests, pages of 4, 5 blocks", _alloc_extend(5, 4, 5)),
             ), note="the kernel's first version (2025-08-25), which prints its page arithmetic with "
                     "AscendC::printf; one request per block, as its host code launches min(AIV cores, batch) "
                     "blocks", snapshot=True, **{**common, "commit": "638715953b213b83929cd13fbb0297b63507a53a"}),
        *lora_cases("csrc/lora/op_kernel/{}_kernel.cpp", common),
        Case("sgl-project/sgemmv_shrink_kernel", path="csrc/lora/op_kernel/sgemmv_shrink_kernel.cpp",
             groups=(ARITH, REDUCE, MOVE), variants=(
                 Variant("sgemmv_shrink_half", "fp16 12 tokens / 3 requests, hidden 1024, ranks 16/8/0",
                         _sgemmv_shrink(torch.half, 12, 3, 1024, 16, 3, 4)),
             ), note=SHRINK_RACE, **common),
    ]


SHRINK_RACE = auto_sync_note("the dot product's ReduceSum result is read with GetValue after only a PIPE_V barrier")

EXPAND_RACE = auto_sync_note("CopyInX fills xDup with SetValue and Compute's Mul reads it")


def lora_cases(path: str, common: dict) -> list[Case]:
    """bgmv/sgmv shrink and expand: sgl-project's copies (bare) and vllm-ascend's originals (kernel-launch)."""
    author = common["author"]
    return [
        Case(f"{author}/bgmv_shrink", path=path.format("bgmv_shrink"), groups=(ARITH, REDUCE, MOVE), variants=(
            Variant("bgmv_shrink_half", "fp16 7 tokens, hidden 1024, rank 16", _bgmv_shrink(torch.half, 7, 1024, 16,
                                                                                            3, 3)),
            Variant("bgmv_shrink_half", "fp16 3 tokens, hidden 12800 (two tiles), rank 8",
                    _bgmv_shrink(torch.half, 3, 12800, 8, 2, 2)),
        ), note=SHRINK_RACE, **common),
        Case(f"{author}/bgmv_expand", path=path.format("bgmv_expand"), groups=(ARITH, REDUCE, MOVE), variants=(
            Variant("bgmv_expand_half", "fp16 5 tokens, rank 16 -> 512 of 1024 at 256",
                    _bgmv_expand(torch.half, 5, 16, 512, 1024, 256, 3, 2)),
            Variant("bgmv_expand_half", "fp16 4 tokens, rank 8 -> 4352 (two tiles)",
                    _bgmv_expand(torch.half, 4, 8, 4352, 4352, 0, 2, 4)),
        ), note=EXPAND_RACE, **common),
        Case(f"{author}/sgmv_shrink", path=path.format("sgmv_shrink"), groups=(ARITH, REDUCE, MOVE), variants=(
            Variant("sgmv_shrink_half", "fp16 10 tokens / 3 requests, hidden 2048, rank 32",
                    _sgmv_shrink(torch.half, 10, 3, 2048, 32, 2, 4)),
        ), note=SHRINK_RACE, **common),
        Case(f"{author}/sgmv_expand", path=path.format("sgmv_expand"), groups=(ARITH, REDUCE, MOVE), variants=(
            Variant("sgmv_expand_half", "fp16 9 tokens / 4 requests, rank 64 -> 256 of 512 at 0",
                    _sgmv_expand(torch.half, 9, 4, 64, 256, 512, 0, 3, 3)),
        ), note=EXPAND_RACE, **common),
    ]


# ---- Tencent/KsanaLLM: 3rdparty/LLM_kernels ascend kernels (Apache-2.0) ------------------------------------------
# Tiling structs travel through GM and are copied word by word (llm_kernels::ascend::*TilingConfig).

TENCENT_COMMIT = "fae8e36ee5cbb8a580ed626c005eb273ec5d33cc"


def _elementwise_tiling(total: int, blocks: int, tiles: int, *extra) -> bytes:
    """{total_elem_num, block_elem_num, tile_num[, ...]}: each block takes total/blocks elements in tile_num tiles."""
    return pack("3I", total, total // blocks, tiles) + b"".join(extra)


def _tencent_cast(src, dst, total: int, blocks: int, tiles: int):
    def make(g):
        x = uniform(g, (total,), -100, 100, src)
        return Launch(blocks, (x, torch.zeros(total, dtype=dst), _elementwise_tiling(total, blocks, tiles)),
                      {1: x.to(dst)})
    return make


def _tencent_add(dtype, total: int, blocks: int):
    def make(g):
        a, b = uniform(g, (total,), dtype=dtype), uniform(g, (total,), dtype=dtype)
        tiling = _elementwise_tiling(total, blocks, 1, pack("f", 1.0))  # AddTilingConfig: tile_num 1, alpha 1
        return Launch(blocks, (a, b, None, torch.zeros_like(a), tiling), {3: a + b})
    return make


def _tencent_silu_mul(dtype, total: int, blocks: int):
    def make(g):
        x, w = uniform(g, (total,), -4, 4, dtype), uniform(g, (total,), -2, 2, dtype)
        expected = (torch.nn.functional.silu(x.float()) * w.float()).to(dtype)
        return Launch(blocks, (x, w, torch.zeros_like(x), _elementwise_tiling(total, blocks, 1)), {2: expected})
    return make


def _tencent_embedding(dtype, tokens: int, hidden: int, vocab: int, vocab_id: int = 0, shards: int = 1):
    """One block per token; ids outside this shard's [vocab_id * vocab, (vocab_id + 1) * vocab) leave their row."""
    def make(g):
        table = uniform(g, (vocab, hidden), dtype=dtype)
        ids = integers(g, (tokens,), vocab_id * vocab, (vocab_id + 1) * vocab) if shards == 1 else \
            integers(g, (tokens,), 0, vocab * shards)
        local = ids - vocab_id * vocab
        inside = (local >= 0) & (local < vocab)
        out = torch.full((tokens, hidden), 7.0, dtype=dtype)
        expected = torch.where(inside[:, None], table[local.clamp(0, vocab - 1).long()], out)
        tiling = pack("4I2Qi4x", tokens, hidden, 1, 1, vocab, vocab_id, 0)
        return Launch(tokens, (ids, table, out, tiling), {2: expected})
    return make


def _tencent_argmax(dtype, batch: int, vocab: int, tiles: int):
    """16 rows per block (ARGMAX_SINGLE_BLOCK_CAPACITY); every block stores 16 indices."""
    def make(g):
        x = uniform(g, (batch, vocab), 0.1, 10, dtype)
        blocks = -(-batch // 16)
        out = torch.zeros(blocks * 16, dtype=torch.int32)
        expected = x.float().argmax(-1).to(torch.int32)
        return Launch(blocks, (x, out, pack("4I", batch, vocab, tiles, 0)), {1: expected})
    return make


def _neox_rope(x: torch.Tensor, cache: torch.Tensor, pos: torch.Tensor, heads: int) -> torch.Tensor:
    """GPT-NeoX rotary embedding over whole heads: cache rows are [cos | sin] of rotary_dim / 2 each."""
    tokens, dim = x.shape[0], cache.shape[1]
    cos, sin = cache[pos.long()].float().chunk(2, -1)
    x1, x2 = x.float().reshape(tokens, heads, dim).chunk(2, -1)
    out = torch.cat([x1 * cos[:, None] - x2 * sin[:, None], x2 * cos[:, None] + x1 * sin[:, None]], -1)
    return out.reshape(tokens, heads * dim).to(x.dtype)


def _tencent_rope(dtype, tokens: int, heads: int, kv_heads: int, head: int, max_pos: int):
    """RotaryEmbeddingTilingConfig {seq_len, hidden_units_num, rotary_dim, num_heads, num_kv_heads, head_size}: one
    block per token, query then key, rotary_dim = head_size."""
    def make(g):
        q, k = uniform(g, (tokens, heads * head), dtype=dtype), uniform(g, (tokens, kv_heads * head), dtype=dtype)
        pos = torch.randperm(max_pos, generator=g)[:tokens].to(torch.int64)
        angle = uniform(g, (max_pos, head // 2), -3, 3)
        cache = torch.cat([angle.cos(), angle.sin()], -1).to(dtype)
        tiling = pack("2I4i", tokens, heads * head, head, heads, kv_heads, head)
        return Launch(tokens, (pos, q, k, cache, tiling, torch.zeros_like(q), torch.zeros_like(k)),
                      {5: _neox_rope(q, cache, pos, heads), 6: _neox_rope(k, cache, pos, kv_heads)})
    return make


def _tencent_rmsnorm(dtype, rows: int, hidden: int, host_api: bool = False):
    """One block per row, each handing RmsNorm its row. The tiling (RmsNormTiling's 12 words, then eps) as
    InvokeRmsLayerNorm fills it by hand: the shape [1, rows, hidden], one row per pass (mainBsLength 1, loopRound 1),
    mainBshLength = mainBsLengthAlign = hidden, which also sizes the kernel's workspace. ``host_api``: the struct from
    GetRmsNormTilingInfo for the one row a block normalises, with the least workspace the helper accepts."""
    def make(g):
        x, gamma = uniform(g, (rows, hidden), -2, 2, dtype), uniform(g, (hidden,), 0.5, 1.5, dtype)
        xf = x.float()
        expected = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * gamma.float()).to(dtype)
        if host_api:
            size = x.element_size()
            least = 4 * (8 + hidden * (2 if size == 2 else 1))
            shape = f"{{1, {rows}, {hidden}}}"
            tiling = host_tiling("RmsNormTiling", f"GetRmsNormTilingInfo({shape}, {shape}, {least}, {size}, t)")
        else:
            tiling = pack("4If7I", 1, rows, hidden, hidden, 1.0 / hidden, hidden, 1, hidden, 1, 0, 0, 0)
        return Launch(rows, (x, gamma, torch.zeros_like(x), tiling + pack("f", 1e-6)), {2: expected})
    return make


_RMSNORM_ROWS = ("InvokeRmsLayerNorm's tiling describes all the rows ([1, m, H]: RmsNorm.md's srcLocal shape) while "
                 "each block hands RmsNorm one row: RmsNorm of the tiling's shape overruns the block's buffers (the "
                 "simulator reads the shape from the tiling; on the NPU the kernel relies on CANN's implementation "
                 "reading only its one-row pass plan, which the pages call opaque). One row (m = 1) is consistent")


def tencent_cases() -> list[Case]:
    base = "3rdparty/LLM_kernels/csrc/kernels/ascend/"
    common = dict(author="Tencent", repo="Tencent/KsanaLLM", commit=TENCENT_COMMIT, licence="Apache-2.0",
                  include_roots=("3rdparty/LLM_kernels",))
    return [
        Case("Tencent/cast_kernel", path=base + "cast/cast_kernel.cc", groups=(ARITH, MOVE), variants=(
            Variant("InvokeCastFloatToHalfKernel", "fp32->fp16 4x2048", _tencent_cast(torch.float, torch.half,
                                                                                      8192, 4, 2)),
            Variant("InvokeCastHalfToFloatKernel", "fp16->fp32 2x1024", _tencent_cast(torch.half, torch.float,
                                                                                      2048, 2, 2)),
        ), **common),
        Case("Tencent/add_kernel", path=base + "add/add_kernel.cc", groups=(ARITH, MOVE, DEBUG), variants=(
            Variant("InvokeAddFloatKernel", "fp32 4x1024", _tencent_add(torch.float, 4096, 4)),
            Variant("InvokeAddHalfKernel", "fp16 8x256", _tencent_add(torch.half, 2048, 8)),
        ), **common),
        Case("Tencent/silu_mul_kernel", path=base + "silu_mul/silu_mul_kernel.cc", groups=(HIGH, ARITH, MOVE, DEBUG),
             variants=(
                 Variant("InvokeSiluMulFloatKernel", "fp32 2x512", _tencent_silu_mul(torch.float, 1024, 2),
                         diagnostic="local_overrun"),
             ), note="Silu is given the block's size in bytes as its element count: it overruns its buffers "
                     "(upstream bug)", **common),
        Case("Tencent/embedding_kernel", path=base + "embedding/embedding_kernel.cc", groups=(MOVE, DEBUG),
             variants=(
                 Variant("InvokeLookupEmbeddingFloatKernel", "fp32 6 tokens x 256",
                         _tencent_embedding(torch.float, 6, 256, 50)),
                 Variant("InvokeLookupEmbeddingHalfKernel", "fp16 5 tokens x 512, vocab shard 1",
                         _tencent_embedding(torch.half, 5, 512, 40, 1)),
                 Variant("InvokeLookupEmbeddingFloatKernel", "fp32 8 tokens x 256, ids of other shards",
                         _tencent_embedding(torch.float, 8, 256, 30, 0, shards=3), diagnostic="bad_argument"),
             ), note="a token of another vocab shard returns from Init before its queues have buffers, and Process "
                     "then allocates from them (upstream bug)", **common),
        Case("Tencent/rotary_embedding_kernel", path=base + "rotary_embedding/rotary_embedding_kernel.cc",
             groups=(ARITH, MOVE, DEBUG), variants=(
                 Variant("InvokeRotaryEmbeddingFloatKernel", "fp32 4 tokens, 4 q / 2 kv heads of 64",
                         _tencent_rope(torch.float, 4, 4, 2, 64, 32)),
                 Variant("InvokeRotaryEmbeddingHalfKernel", "fp16 3 tokens, 8 q / 8 kv heads of 128",
                         _tencent_rope(torch.half, 3, 8, 8, 128, 16)),
             ), **common),
        Case("Tencent/rmsnorm_kernel", path=base + "rmsnorm/rmsnorm_kernel.cc", groups=(HIGH, MOVE, DEBUG),
             variants=(
                 Variant("InvokeRmsNormFloatKernel", "fp32 1x512", _tencent_rmsnorm(torch.float, 1, 512)),
                 Variant("InvokeRmsNormHalfKernel", "fp16 1x1024", _tencent_rmsnorm(torch.half, 1, 1024)),
                 Variant("InvokeRmsNormFloatKernel", "fp32 1x4096, tiling from GetRmsNormTilingInfo",
                         _tencent_rmsnorm(torch.float, 1, 4096, host_api=True)),
                 Variant("InvokeRmsNormHalfKernel", "fp16 1x2048, tiling from GetRmsNormTilingInfo",
                         _tencent_rmsnorm(torch.half, 1, 2048, host_api=True)),
                 Variant("InvokeRmsNormFloatKernel", "fp32 4x4096 (the repository's test shape)",
                         _tencent_rmsnorm(torch.float, 4, 4096), diagnostic="local_overrun"),
                 Variant("InvokeRmsNormHalfKernel", "fp16 4x4096 (the repository's test shape)",
                         _tencent_rmsnorm(torch.half, 4, 4096), diagnostic="local_overrun"),
             ), note=_RMSNORM_ROWS, **common),
        Case("Tencent/argmax_kernel", path=base + "argmax/argmax_kernel.cc", groups=(ARITH, MOVE), variants=(
            Variant("InvokeArgmaxFloatKernel", "fp32 20x512", _tencent_argmax(torch.float, 20, 512, 2)),
            Variant("InvokeArgmaxHalfKernel", "fp16 5x1024", _tencent_argmax(torch.half, 5, 1024, 4)),
        ), note=auto_sync_note("fp16: the Cast result is read with GetValue after only a PIPE_V barrier"), **common),
    ]


# ---- opencv/opencv_contrib: modules/cannops AscendC kernel (Apache-2.0) ------------------------------------------

OPENCV_COMMIT = "63b1f2911cbccd78e88d8704136289e41d2d8bba"
CV_DTYPES = {torch.uint8: 0, torch.int8: 1, torch.int16: 3, torch.int32: 4, torch.float32: 5, torch.float16: 7}


def _threshold(dtype, kind: int, total: int, blocks: int, thresh: float, maxval: float):
    """cv::threshold: 0 BINARY, 1 BINARY_INV, 2 TRUNC, 3 TOZERO, 4 TOZERO_INV (ThresholdOpencvTilingData)."""
    def make(g):
        if dtype.is_floating_point:
            x = uniform(g, (total,), -50, 250, dtype)
        else:
            info = torch.iinfo(dtype)
            x = integers(g, (total,), max(info.min, -1000), min(info.max, 1000) + 1, dtype)
        above = x.double() > thresh
        th, mv, zero = (torch.tensor(v, dtype=torch.float64) for v in (thresh, maxval, 0.0))
        y = [torch.where(above, mv, zero), torch.where(above, zero, mv), torch.where(above, th, x.double()),
             torch.where(above, x.double(), zero), torch.where(above, zero, x.double())][kind]
        tiling = pack("ffIBB2x", maxval, thresh, total, kind, CV_DTYPES[dtype])
        return Launch(blocks, (tiling, x, torch.zeros_like(x)), {2: y.to(dtype)})
    return make


def opencv_cases() -> list[Case]:
    names = ("BINARY", "BINARY_INV", "TRUNC", "TOZERO", "TOZERO_INV")
    variants = [Variant("threshold_opencv", f"fp32 {names[k]} 4096", _threshold(torch.float, k, 4096, 4, 42.5, 200.0))
                for k in range(5)]
    variants += [Variant("threshold_opencv", "uint8 BINARY 8192", _threshold(torch.uint8, 0, 8192, 8, 100.0, 255.0)),
                 Variant("threshold_opencv", "int32 TRUNC 2048", _threshold(torch.int32, 2, 2048, 2, 7.0, 1.0)),
                 Variant("threshold_opencv", "fp16 TOZERO 4096", _threshold(torch.half, 3, 4096, 4, 0.5, 1.0))]
    return [Case("opencv/threshold_opencv_kernel", author="opencv", repo="opencv/opencv_contrib",
                 commit=OPENCV_COMMIT, path="modules/cannops/ascendc_kernels/threshold_opencv_kernel.cpp",
                 groups=(ARITH, MOVE), variants=tuple(variants), licence="Apache-2.0", soc="Ascend310P3",
                 note="sized for a 248 KiB UB: run on Ascend310P3 (256 KiB)")]


# ---- InfiniTensor/InfiniCore: infiniop ascend kernels (MIT); each file ends in a <<<>>> launcher -----------------


def _infini_swiglu(dtype, batch: int, seq: int, hd: int, fused: bool):
    """c = a * silu(b) over [batch, seq, hd] on 8 blocks (BLOCK_NUM), each a slice of hd; ``fused``: a and b are
    read with a row stride of 2 * hd (views of a gate/up buffer), as the infiniop descriptor allows."""
    def make(g):
        width = 2 * hd if fused else hd
        a, b = uniform(g, (batch, seq, width), -3, 3, dtype), uniform(g, (batch, seq, width), -3, 3, dtype)
        c = torch.zeros(batch, seq, hd, dtype=dtype)
        expected = (a[..., :hd].float() * torch.nn.functional.silu(b[..., :hd].float())).to(dtype)
        return Launch(8, (c, a, b, batch, seq, hd, seq * hd, seq * width, seq * width, hd, width, width),
                      {0: expected})
    return make


def _infini_cast(src, count: int):
    def make(g):
        x = uniform(g, (count,), -1000, 1000, src)
        pad = -count % (32 // x.element_size())
        return Launch(1, (torch.zeros(count + pad, dtype=torch.float), padded(x, pad), count),
                      {0: x.float()})
    return make


def _paged_caching(dtype, tokens: int, heads: int, head_size: int, block_size: int, blocks: int):
    """k/v [tokens, heads, head_size] into caches [blocks, heads, block_size, head_size] at slot_mapping (-1: skip);
    one AI core per (token, head)."""
    def make(g):
        k, v = uniform(g, (tokens, heads, head_size), dtype=dtype), uniform(g, (tokens, heads, head_size), dtype=dtype)
        slots = torch.randperm(blocks * block_size, generator=g)[:tokens]
        slots[0] = -1
        k_cache = uniform(g, (blocks, heads, block_size, head_size), dtype=dtype)
        v_cache = uniform(g, (blocks, heads, block_size, head_size), dtype=dtype)
        k_expected, v_expected = k_cache.clone(), v_cache.clone()
        for t, slot in enumerate(slots.tolist()):
            if slot >= 0:
                k_expected[slot // block_size, :, slot % block_size] = k[t]
                v_expected[slot // block_size, :, slot % block_size] = v[t]
        strides = (heads * head_size, heads * head_size, heads * block_size * head_size,
                   heads * block_size * head_size, block_size * head_size, block_size * head_size, head_size, head_size)
        return Launch(tokens * heads, (k_cache, v_cache, k, v, slots, heads, head_size, block_size, *strides),
                      {0: k_expected, 1: v_expected})
    return make


def _kv_caching(dtype, idx_dtype, batch: int, heads: int, seq: int, dim: int, capacity: int, transposed: bool):
    """k/v [batch, heads, seq, dim] appended to caches [batch, heads, capacity, dim] after past_kv_lengths[b];
    one block per (b, h, s); ``transposed``: k and v are [batch, seq, heads, dim] buffers seen through strides."""
    def make(g):
        shape = (batch, seq, heads, dim) if transposed else (batch, heads, seq, dim)
        k_buf, v_buf = uniform(g, shape, dtype=dtype), uniform(g, shape, dtype=dtype)
        k, v = (k_buf.transpose(1, 2), v_buf.transpose(1, 2)) if transposed else (k_buf, v_buf)
        past = integers(g, (batch,), 0, capacity - seq, idx_dtype)
        k_cache = uniform(g, (batch, heads, capacity, dim), dtype=dtype)
        v_cache = uniform(g, (batch, heads, capacity, dim), dtype=dtype)
        k_expected, v_expected = k_cache.clone(), v_cache.clone()
        for b, p in enumerate(past.tolist()):
            k_expected[b, :, p:p + seq] = k[b]
            v_expected[b, :, p:p + seq] = v[b]
        cache_strides = k_cache.stride()
        return Launch(batch * heads * seq, (k_cache, v_cache, k_buf, v_buf, past, batch, heads, seq, dim,
                                            *cache_strides, *cache_strides, *k.stride(), *v.stride()),
                      {0: k_expected, 1: v_expected})
    return make


def _random_sample(dtype, vocab: int, topk: int, topp: float, temperature: float, random_val: float):
    """Top-k/top-p sampling over the host's top-k (values descending, int64 indices): softmax of the top-k with
    the whole vocabulary's exp-sum, inclusive CumSum, cut at topp, then the first cumulative above
    random_val * cum[end - 1]; one block, as random_sample_kernel_launch."""
    def make(g):
        logits = uniform(g, (vocab,), -4, 4, dtype)
        values, index = logits.float().topk(topk)
        inv_t = 1.0 / temperature
        exp = torch.exp((logits.float() - values[0]) * inv_t)
        probs = torch.exp((values - values[0]) * inv_t) / exp.sum()
        cum = probs.cumsum(0)
        end = next((i for i in range(topk) if cum[i] >= topp), topk - 1)
        end = end + 1 if end < topk - 1 else topk
        threshold = random_val * cum[end - 1]
        choice = next((i for i in range(end) if threshold < cum[i]), end - 1)
        pad = -vocab % (32 // logits.element_size())
        result = torch.zeros(1, dtype=torch.int64)
        return Launch(1, (padded(logits, pad), result, values.to(dtype), index, random_val, topp, topk, temperature,
                          vocab), {1: index[choice:choice + 1]})
    return make


def infinicore_cases() -> list[Case]:
    common = dict(author="InfiniTensor", repo="InfiniTensor/InfiniCore", licence="MIT", fmt="kernel-launch")
    return [
        Case("InfiniTensor/swiglu_ascend_kernel", commit="2cec6ce6b27a789bf47818b370defa47a271dcc4",
             path="src/infiniop/ops/swiglu/ascend/swiglu_ascend_kernel.cpp", groups=(HIGH, ARITH, MOVE), variants=(
                 Variant("swiglu_kernel_half", "fp16 2x3x256", _infini_swiglu(torch.half, 2, 3, 256, False)),
                 Variant("swiglu_kernel_float", "fp32 1x4x512 gate/up views", _infini_swiglu(torch.float, 1, 4, 512,
                                                                                             True)),
                 Variant("swiglu_kernel_bf16", "bf16 2x2x384", _infini_swiglu(torch.bfloat16, 2, 2, 384, False)),
             ), **common),
        Case("InfiniTensor/cast_kernel", commit="2cec6ce6b27a789bf47818b370defa47a271dcc4",
             path="src/infiniop/ops/rms_norm/ascend/cast_kernel.cpp", groups=(ARITH, MOVE), variants=(
                 Variant("cast_kernel_f16_to_f32", "fp16->fp32 1000", _infini_cast(torch.half, 1000)),
                 Variant("cast_kernel_bf16_to_f32", "bf16->fp32 4096", _infini_cast(torch.bfloat16, 4096)),
             ), **common),
        Case("InfiniTensor/paged_caching_ascend_kernel", commit="2cec6ce6b27a789bf47818b370defa47a271dcc4",
             path="src/infiniop/ops/paged_caching/ascend/paged_caching_ascend_kernel.cpp", groups=(MOVE,), variants=(
                 Variant("paged_caching_kernel_f16", "fp16 5 tokens x 2 heads x 64, blocks of 4",
                         _paged_caching(torch.half, 5, 2, 64, 4, 3)),
                 Variant("paged_caching_kernel_f32", "fp32 3 tokens x 4 heads x 32, blocks of 8",
                         _paged_caching(torch.float, 3, 4, 32, 8, 2)),
             ), **common),
        Case("InfiniTensor/random_sample_kernel", commit="2cec6ce6b27a789bf47818b370defa47a271dcc4",
             path="src/infiniop/ops/random_sample/ascend/random_sample_kernel.cpp",
             groups=(HIGH, MATH, ARITH, MOVE), variants=(
                 Variant("random_sample_kernel_fp32", "fp32 vocab 1000, top-32, top-p 0.8, T 0.7",
                         _random_sample(torch.float, 1000, 32, 0.8, 0.7, 0.37), "pipe_race"),
                 Variant("random_sample_kernel_fp16", "fp16 vocab 512, top-16, top-p 0.5, T 1.0",
                         _random_sample(torch.half, 512, 16, 0.5, 1.0, 0.61), "pipe_race"),
             ), note="copyIn fills the TBuf _inBuffer with DataCopy (MTE2) and reads it with Adds (V) with no flag in "
                     "between, which the compiler's auto sync (scalar pipe only) does not provide: an upstream race "
                     "(its scalar reads after DataCopy and Exp are the auto sync's)", **common),
        Case("InfiniTensor/kv_caching_ascend_kernel", commit="afdc5e5cd3905b90438e27825d96f9922660453f",
             path="src/infiniop/ops/kv_caching/ascend/kv_caching_ascend_kernel.cpp", groups=(MOVE,), variants=(
                 Variant("kv_caching_kernel_f16_i64", "fp16 2x2x3x64 into 16 slots",
                         _kv_caching(torch.half, torch.int64, 2, 2, 3, 64, 16, False)),
                 Variant("kv_caching_kernel_f16_i32", "fp16 1x4x2x32 [b, s, h, d] views into 8 slots",
                         _kv_caching(torch.half, torch.int32, 1, 4, 2, 32, 8, True)),
             ), **common),
    ]


# ---- vllm-project/vllm-ascend: csrc/kernels (Apache-2.0); each file ends in a <<<>>> launcher --------------------

VLLM_COMMIT = "182b75ea84ff13ece27b57391331ef8935410aea"


def _masked_input(size: int, cores: int, org: tuple[int, int], padding: int, added: tuple[int, int]):
    """vLLM's vocab-parallel embedding mask: ids in this rank's original or added vocab shift to local ids, others
    become 0 with mask True; csrc/torch_binding.cpp cuts ``size`` into ceil(size / aiv_num) chunks."""
    def make(g):
        ids = integers(g, (size,), 0, added[1] + 50)
        in_org = (ids >= org[0]) & (ids < org[1])
        in_added = (ids >= added[0]) & (ids < added[1])
        offset = org[0] * in_org + (added[0] - (org[1] - org[0]) - padding) * in_added
        keep = in_org | in_added
        loops = -(-size // cores)
        return Launch(cores, (ids, torch.zeros_like(ids), torch.zeros(size, dtype=torch.bool), org[0], org[1], padding,
                              added[0], added[1], size, loops, cores),
                      {1: torch.where(keep, ids - offset, 0).int(), 2: ~keep})
    return make


def _advance_step(queries: int, block_size: int, max_blocks: int):
    """vLLM multi-step advance_step: tokens <- sampled, positions <- seq_lens, seq_lens += 1, slot_mapping from the
    block table; launch_advance_step_flashattn's 20-core split."""
    def make(g):
        sampled = integers(g, (queries,), 0, 32000, torch.int64)
        seq_lens = integers(g, (queries,), 1, block_size * max_blocks - 1)
        tables = torch.randperm(queries * max_blocks * 2, generator=g)[:queries * max_blocks].int().reshape(
            queries, max_blocks)
        pos = seq_lens.long()
        slots = (tables.gather(1, (pos // block_size)[:, None])[:, 0].long() * block_size + pos % block_size).int()
        cores = min(20, queries)
        per_core = -(-queries // cores)
        zeros64, zeros32 = torch.zeros(queries, dtype=torch.int64), torch.zeros(queries, dtype=torch.int32)
        return Launch(cores, (queries, queries, block_size, zeros64, sampled, zeros64.clone(), seq_lens, zeros32,
                              tables, max_blocks, per_core),
                      {3: sampled, 5: pos, 6: seq_lens + 1, 7: slots})
    return make


def _vllm_rope(tokens: int, heads: int, kv_heads: int, head: int, max_pos: int, cores: int):
    """vLLM's rotary_embedding (GPT-NeoX halves), fp16: q [tokens, heads * head], k [tokens, kv_heads * head], cache
    [max_pos, head] = [cos | sin]; rotary_embedding_impl launches one block per token (up to 65535)."""
    def make(g):
        q, k = uniform(g, (tokens, heads * head), dtype=torch.half), uniform(g, (tokens, kv_heads * head),
                                                                             dtype=torch.half)
        pos = torch.randperm(max_pos, generator=g)[:tokens].to(torch.int64)
        angle = uniform(g, (max_pos, head // 2), -3, 3)
        cache = torch.cat([angle.cos(), angle.sin()], -1).half()
        q_out, k_out = torch.zeros_like(q), torch.zeros_like(k)
        return Launch(cores, (pos, q_out, k_out, q, k, cache, head, heads * head, kv_heads * head, heads * head,
                              kv_heads * head, heads, kv_heads, head, tokens, 1, cores),
                      {1: _neox_rope(q, cache, pos, heads), 2: _neox_rope(k, cache, pos, kv_heads)}, atol=1e-2)
    return make


def vllm_cases() -> list[Case]:
    common = dict(author="vllm-project", repo="vllm-project/vllm-ascend", commit=VLLM_COMMIT, licence="Apache-2.0",
                  fmt="kernel-launch")
    return [
        *lora_cases("csrc/kernels/{}.cpp", common),
        Case("vllm-project/get_masked_input_and_mask_kernel",
             path="csrc/kernels/get_masked_input_and_mask_kernel.cpp", groups=(ARITH, MOVE),
             variants=(Variant("get_masked_input_and_mask_kernel", "1024 ids on 32 cores, vocab 100..400 + 500..520",
                               _masked_input(1024, 32, (100, 400), 12, (500, 520))),),
             **{**common, "commit": "28d0cdff7c8a6fe5e3c72ef34d3b6e41ac400a79"}),
        Case("vllm-project/get_masked_input_and_mask_kernel@2cc2993d",
             path="csrc/kernels/get_masked_input_and_mask_kernel.cpp", groups=(DEBUG, ARITH, MOVE),
             variants=(Variant("get_masked_input_and_mask_kernel", "1024 ids on 32 cores, vocab 100..400 + 500..520",
                               _masked_input(1024, 32, (100, 400), 12, (500, 520))),),
             note="the kernel's debug version (2025-05-07, 'add debug message'): DumpTensor of its intermediate "
                  "tensors and AscendC::printf around Init and Process", snapshot=True,
             **{**common, "commit": "2cc2993d6381fa00049e01ea82fd7b295984bfa5"}),
        Case("vllm-project/pos_encoding_kernels", path="csrc/kernels/pos_encoding_kernels.cpp", groups=(ARITH, MOVE),
             variants=(Variant("rope_custom_true_half", "fp16 4 tokens, 3 q / 1 kv heads of 128",
                               _vllm_rope(4, 3, 1, 128, 32, 4), "bad_mask"),
                       Variant("rope_custom_true_half", "fp16 5 tokens on 2 cores, 5 q / 5 kv heads of 64",
                               _vllm_rope(5, 5, 5, 64, 16, 2), "bad_mask")),
             note="utils.h local_mem_copy calls Copy for the tail even when it is empty: for a copy of a multiple of "
                  "128 halves Copy gets a continuous mask of 0, outside the documented 1..128 (upstream bug)",
             **{**common, "commit": "06aa6036f6647019f1c44ef7db79169bff069f2e"}),
        Case("vllm-project/advance_step", path="csrc/kernels/advance_step.cpp", groups=(ARITH, MOVE),
             variants=(Variant("AdvanceStepFlashAttnKernel", "8 queries on 8 cores, blocks of 16",
                               _advance_step(8, 16, 4), "local_overrun"),
                       Variant("AdvanceStepFlashAttnKernel", "45 queries on 20 cores, blocks of 8",
                               _advance_step(45, 8, 6), "local_overrun")),
             note="Adds<int32_t, false> runs one full repeat (64 lanes, the mask it leaves unset) on a buffer of "
                  "tasks_per_core elements: it writes past it (upstream bug)",
             **{**common, "commit": "3e39d7234c0e5c66b184c136c602e87272b5a36e"}),
    ]


# ---- duoduoyi6/ascendC_debug_agent: archive_tasks kernels (Apache-2.0); mixed-mode (AIC:AIV 1:2) kernel-launch ---
# blockDim counts AI cores, each running two vector sub-blocks (KERNEL_TYPE_MIX_AIC_1_2), as the tasks' pybind11.cpp.

DUODUOYI_COMMIT = "fec1248e869159ba5f19264f6405668fd7cb96bb"


RMS_RACE = auto_sync_note("the ReduceSum result is read with GetValue right after the ReduceSum")
POOL_RACE = ("rows are stepped by GetBlockIdx() from 0 to 2 * blocks (two vector cores per AI core) in steps of the "
             "block count, so both vector cores that reach a row write it, with the same values: a write-after-write "
             "race by CANN's racecheck, which asc-devkit issue #1723 confirms as an operator fault (upstream bug)")


def _rms_norm(m: int, n: int):
    """RmsNormKernelTiling {M, N, blockM 64, usedCoreNum, tasksPerCore, rowFactor 8, eps, invN}; y and invRms."""
    def make(g):
        x, gamma = uniform(g, (m, n), -2, 2), uniform(g, (n,), 0.5, 1.5)
        blocks = -(-m // 64)
        cores = min(20, blocks)
        inv = torch.rsqrt(x.pow(2).mean(-1) + 1e-6)
        tiling = pack("6i2f", m, n, 64, cores, -(-blocks // cores), 8, 1e-6, 1.0 / n)
        return Launch(cores, (x, gamma, torch.zeros_like(x), torch.zeros(m), tiling),
                      {2: x * inv[:, None] * gamma, 3: inv})
    return make


def _gather_elements(mode: int, rows: int, x_rows: int, width: int, y_width: int, ig: int):
    """y[r, j] = x[row(r), index[r, j]] for j < IG, 0 after; row(r) = r (mode 0) or row_map[r] (modes 1, 2)."""
    def make(g):
        x = uniform(g, (x_rows, width))
        index = integers(g, (rows, y_width), 0, width)
        row_map = integers(g, (rows,), 0, x_rows) if mode else torch.arange(rows, dtype=torch.int32)
        expected = torch.zeros(rows, y_width)
        expected[:, :ig] = x[row_map.long()].gather(1, index[:, :ig].long())
        block_m = next(b for b in (32, 16, 8, 4, 2, 1) if rows >= b)
        blocks = -(-rows // block_m)
        cores = min(20, blocks)
        tiling = pack("12i", rows, x_rows, width, ig, width, y_width, block_m, cores, -(-blocks // cores),
                      max(block_m // 2, 1), int(mode != 0), mode)
        return Launch(cores, (x, index, row_map, torch.zeros(rows, y_width), tiling), {3: expected})
    return make


def _avg_pool3d(impl: int, n: int, c: int, dhw: tuple[int, int, int], k: tuple[int, int, int],
                stride: tuple[int, int, int], pad: tuple[int, int, int], include_pad: bool,
                split_mode: int = 0, block_c: int = 0, split_w: int = 0, multi_w: int = 1):
    """AvgPool3D on channels-last rows (x [N*D*H*W, C] -> y [N*OD*OH*OW, C]) as run_avg_pool3_d tiles it:
    AvgPool3DKernelTiling (36 int32), blockM the largest of 64..2 dividing the output rows, min(20, mNum) cores."""
    def make(g):
        x = uniform(g, (n, c, *dhw))
        out = [(size + 2 * p - kk) // ss + 1 for size, kk, ss, p in zip(dhw, k, stride, pad)]
        expected = torch.nn.functional.avg_pool3d(x, k, stride, pad, count_include_pad=include_pad)
        rows = n * math.prod(out)
        block_m = next(b for b in (64, 32, 16, 8, 4, 2) if b <= rows and rows % b == 0)
        cores = min(20, rows // block_m)
        tiling = pack("36i", n, c, *dhw, *out, *k, *stride, *pad, int(include_pad), 0, split_mode, block_c, split_w,
                      multi_w, block_m, block_m // 2, rows // block_m, math.prod(out), math.prod(dhw),
                      dhw[1] * dhw[2], c // block_c if block_c else 1, cores, -(-(rows // block_m) // cores), cores,
                      min(c, 256), impl, 0)
        x_rows = x.permute(0, 2, 3, 4, 1).reshape(-1, c).contiguous()
        y_rows = expected.permute(0, 2, 3, 4, 1).reshape(-1, c).contiguous()
        return Launch(cores, (x_rows, torch.zeros_like(y_rows), tiling), {1: y_rows})
    return make


def _pool_label(shape: dict) -> str:
    dims = "x".join(map(str, (shape["n"], shape["c"], *shape["dhw"])))
    k, st, p = ("x".join(map(str, shape[key])) for key in ("k", "stride", "pad"))
    return f"fp32 {dims}, k {k}, s {st}, p {p}, pad {'in' if shape['include_pad'] else 'ex'}cluded"


def duoduoyi_cases() -> list[Case]:
    common = dict(author="duoduoyi6", repo="duoduoyi6/ascendC_debug_agent", commit=DUODUOYI_COMMIT,
                  licence="Apache-2.0", fmt="kernel-launch")
    rms = "archive_tasks/rms_norm/kernel/rms_norm_{}.cpp"
    gather = "archive_tasks/gather_elements_v2/kernel/gather_elements_v2_{}_fp32.cpp"
    pool = "archive_tasks/avg_pool3_d/kernel/avg_pool3_d_{}.cpp"
    window = dict(n=2, c=16, dhw=(4, 6, 6), k=(2, 3, 3), stride=(2, 2, 2), pad=(0, 1, 1), include_pad=False)
    even = dict(n=1, c=8, dhw=(2, 4, 8), k=(2, 2, 2), stride=(2, 2, 2), pad=(0, 0, 0), include_pad=True)
    depth = dict(n=2, c=16, dhw=(4, 6, 6), k=(2, 1, 1), stride=(2, 1, 1), pad=(0, 0, 0), include_pad=False)
    depth_pad = dict(n=1, c=8, dhw=(5, 2, 4), k=(3, 1, 1), stride=(1, 1, 1), pad=(1, 0, 0), include_pad=False)
    # (file, impl mode, extra tiling, shapes): reduce_d is chosen for 1x1 H/W windows only (model_new_ascendc.py)
    pools = [("generic", 0, {}, (window, even)), ("reduce_d", 1, {}, (depth, depth_pad)),
             ("split_c", 2, dict(split_mode=1, block_c=8), (window, even)),
             ("split_w", 3, dict(split_mode=2, split_w=2), (window, even)),
             ("multi_w", 4, dict(split_mode=3, multi_w=2), (window, even))]
    return [
        *(Case(f"duoduoyi6/avg_pool3_d_{name}", path=pool.format(name), groups=(ARITH, MOVE),
               variants=tuple(Variant(f"avg_pool3_d_{name}_custom", _pool_label(shape),
                                      _avg_pool3d(impl, **shape, **extra), "gm_write_race") for shape in shapes),
               note=POOL_RACE, **common)
          for name, impl, extra, shapes in pools),
        Case("duoduoyi6/rms_norm_merge_n", path=rms.format("merge_n"), groups=(REDUCE, MATH, ARITH, MOVE),
             variants=(Variant("rms_norm_merge_n_custom_fp32", "fp32 130x512", _rms_norm(130, 512)),), **common),
        Case("duoduoyi6/rms_norm_single_row", path=rms.format("single_row"), groups=(REDUCE, MATH, ARITH, MOVE),
             variants=(Variant("rms_norm_single_row_custom_fp32", "fp32 70x2048", _rms_norm(70, 2048)),),
             note=RMS_RACE, **common),
        Case("duoduoyi6/rms_norm_splitd", path=rms.format("splitd"), groups=(REDUCE, MATH, ARITH, MOVE),
             variants=(Variant("rms_norm_splitd_custom_fp32", "fp32 9x10240", _rms_norm(9, 10240)),),
             note=RMS_RACE, **common),
        Case("duoduoyi6/gather_elements_v2_last_dim_fp32", path=gather.format("last_dim"), groups=(MOVE,),
             variants=(Variant("gather_elements_v2_last_dim_fp32_custom", "fp32 40x64 -> 40x16 (12 gathered)",
                               _gather_elements(0, 40, 40, 64, 16, 12)),), **common),
        Case("duoduoyi6/gather_elements_v2_transpose_fp32", path=gather.format("transpose"), groups=(MOVE,),
             variants=(Variant("gather_elements_v2_transpose_fp32_custom", "fp32 rows mapped, 24x32 -> 24x8",
                               _gather_elements(1, 24, 10, 32, 8, 8)),), **common),
        Case("duoduoyi6/gather_elements_v2_scalar_fp32", path=gather.format("scalar"), groups=(MOVE,),
             variants=(Variant("gather_elements_v2_scalar_fp32_custom", "fp32 rows mapped, 5x128 -> 5x8 (3)",
                               _gather_elements(2, 5, 7, 128, 8, 3)),), **common),
    ]


# ---- mindspore-ai/ms_custom_ops: ops/ascendc kernels (Apache-2.0); operator projects, raw uint32 tiling ------------

MS_COMMIT = "5e567b3fb3211d58bf0b24d31b1c43955d9a32fb"


def _npd_rows(key: torch.Tensor, kv_seq: list[int], heads: int, page: int) -> torch.Tensor:
    """The NPD layout of ``key`` [tokens, heads * dim]: each batch's tokens padded to whole pages, every page
    [heads, page, dim] (ComputeKvNpdOffset), as [rows, heads * dim] with rows = tokens + (page - 1) * batches."""
    tokens, hidden = key.shape
    dim = hidden // heads
    out = torch.full((tokens + (page - 1) * len(kv_seq), hidden), 7.0, dtype=key.dtype).reshape(-1)
    first, base = 0, 0
    for length in kv_seq:
        for i in range(length):
            row = key[first + i].reshape(heads, dim)
            for h in range(heads):
                at = base + (i // page) * heads * page * dim + h * page * dim + (i % page) * dim
                out[at:at + dim] = row[h]
        first += length
        base += -(-length // page) * page * hidden
    return out.reshape(-1, hidden)


def _reshape_and_cache_npd(key_id: int, tokens: int, heads: int, dim: int, page: int, pages: int,
                           kv_seq: tuple[int, ...]):
    """ReshapeAndCacheNpd (tiling key: bit 0 the cache in NPD [pages, heads, page, dim] rather than ND [pages, page,
    heads, dim], bit 1 key/value out in NPD): each token's key and value rows go to the cache slot slot_mapping
    names (a negative slot skips the token) and to out_key/out_value. The host's uint32 tiling: [key, cores,
    tokens, hidden, key heads, value heads, page, batches], kv lengths at 32, q lengths after them; the caches are
    written in place."""
    def make(g):
        hidden = heads * dim
        key, value = uniform(g, (tokens, hidden), dtype=torch.half), uniform(g, (tokens, hidden), dtype=torch.half)
        slots = torch.randperm(pages * page, generator=g)[:tokens].to(torch.int32)
        slots[1] = -1
        cache_npd, kv_npd = key_id & 1, key_id >> 1 & 1
        shape = (pages, heads, page, dim) if cache_npd else (pages, page, heads, dim)
        caches = [torch.zeros(shape, dtype=torch.half), torch.zeros(shape, dtype=torch.half)]
        expected_caches = [c.clone() for c in caches]
        rows = tokens + (page - 1) * len(kv_seq) if kv_npd else tokens
        outs = [torch.full((rows, hidden), 7.0, dtype=torch.half) for _ in range(2)]
        expected_outs = []
        for src, cache, out in zip((key, value), expected_caches, outs):
            for t, slot in enumerate(slots.tolist()):
                if slot < 0:
                    continue
                if cache_npd:
                    cache[slot // page, :, slot % page] = src[t].reshape(heads, dim)
                else:
                    cache.reshape(-1, hidden)[slot] = src[t]
            kept = slots >= 0
            if kv_npd:
                expected = _npd_rows(torch.where(kept[:, None], src, torch.tensor(7.0, dtype=torch.half)),
                                     list(kv_seq), heads, page)
            else:
                expected = torch.where(kept[:, None], src, out)
            expected_outs.append(expected)
        q_seq = torch.ones(len(kv_seq), dtype=torch.int64)
        kv = torch.tensor(kv_seq, dtype=torch.int64)
        table = torch.arange(len(kv_seq) * 4, dtype=torch.int32).reshape(len(kv_seq), 4)
        words = [key_id, tokens, tokens, hidden, heads, heads, page, len(kv_seq)] + [0] * 24
        tiling = pack(f"{32 + 2 * len(kv_seq)}I", *words, *kv_seq, *q_seq.tolist())
        return Launch(tokens, (key, value, *caches, slots, q_seq, kv, table, *outs, torch.zeros(32, dtype=torch.uint8),
                               tiling, key_id),
                      {2: expected_caches[0], 3: expected_caches[1], 8: expected_outs[0], 9: expected_outs[1]})
    return make


MS_NO_INIT_SOC_STATE = ("static tensor programming without InitSocState: the class's LocalMemAllocator hands out "
                        "UB in Init, and the kernel never calls AscendC::InitSocState(), which the InitSocState page "
                        "says static tensor programming must call at the kernel entry (atomic and mask state a "
                        "previous operator left would otherwise apply); the simulator stops the first Alloc "
                        "(upstream bug)")


def mindspore_cases() -> list[Case]:
    half, i32, i64 = "DT_FLOAT16", "DT_INT32", "DT_INT64"
    op = OpKernel("ReshapeAndCacheNpd",
                  inputs=(("key", half), ("value", half), ("key_cache", half), ("value_cache", half),
                          ("slot_mapping", i32), ("actual_seq_qlen", i64), ("actual_seq_kvlen", i64),
                          ("block_tbl", i32)),
                  outputs=(("out_key", half), ("out_value", half)))
    return [
        Case("mindspore-ai/reshape_and_cache_npd", author="mindspore-ai", repo="mindspore-ai/ms_custom_ops",
             commit=MS_COMMIT, path="ops/ascendc/reshape_and_cache_npd/op_kernel/reshape_and_cache_npd.cpp",
             groups=(STATIC, MOVE), fmt="operator project", op=op, licence="Apache-2.0", variants=(
                 Variant("reshape_and_cache_npd", "fp16 6 tokens, 2 heads of 32, ND cache, ND out (key 0)",
                         _reshape_and_cache_npd(0, 6, 2, 32, 4, 5, (4, 2)), "bad_argument"),
                 Variant("reshape_and_cache_npd", "fp16 7 tokens, 2 heads of 16, NPD cache, NPD out (key 3)",
                         _reshape_and_cache_npd(3, 7, 2, 16, 4, 4, (3, 4)), "bad_argument"),
             ), note=MS_NO_INIT_SOC_STATE),
    ]


# ---- xLLM-AI/xllm-ops: xllm_ops kernels (Apache-2.0); operator projects with GET_TILING_DATA -------------------------

XLLM_COMMIT = "a02859514cae70f4ee4c2d23f65c77e9906e0b4d"


def _select_unshared_kv(batch: int, beams: int, heads: int, steps: int, dim: int, layers: int, blocks: int):
    """SelectUnsharedKV, in place: each batch's KV block ([blocks, beams, heads, max decode steps, dim] per layer, key
    and value lists) takes, for beam k, what beam src(k) held, where group_token_num [batch, beams] is the prefix sum
    of how many new beams each old beam gives (a beam in [cum[j - 1], cum[j]) takes beam j). SelectUnsharedKVTilingData
    as select_unshared_kv_cpu.cpp's TilingFunc fills it: {total_beam, head_num, head_dim, copy_head_num_per_loop,
    copy_repeat_times, copy_head_num_tail, max_decode_step, used_core_num, block_beam_stride, block_batch_stride,
    block_head_stride, decode_step, beam_size, batch, layer_num}, min(batch * beams, AIV cores) blocks."""
    def make(g):
        counts = [integers(g, (beams,), 0, 3).tolist() for _ in range(batch)]
        for c in counts:  # beams new beams per batch, drawn from the old ones
            while sum(c) != beams:
                i = int(torch.randint(beams, (1,), generator=g))
                c[i] = max(c[i] + (1 if sum(c) < beams else -1), 0)
        cum = torch.tensor(counts, dtype=torch.int32).cumsum(1).to(torch.int32)
        table = torch.randperm(blocks, generator=g)[:batch].to(torch.int32)
        caches = [uniform(g, (blocks, beams, heads, steps, dim), dtype=torch.half) for _ in range(2 * layers)]
        expected = [c.clone() for c in caches]
        for b in range(batch):
            src = torch.repeat_interleave(torch.arange(beams), torch.tensor(counts[b]))
            for c, e in zip(caches, expected):
                e[table[b]] = c[table[b], src]
        per_loop = min(95 * 1024 // 2 // dim, heads)
        repeat = -(-heads // per_loop)
        tail = heads % per_loop or per_loop
        beam_stride = heads * steps * dim
        cores = min(batch * beams, 40)
        tiling = pack("8I3Q4I", batch * beams, heads, dim, per_loop, repeat, tail, steps, cores, beam_stride,
                      beam_stride * beams, steps * dim, steps, beams, batch, layers)
        first = 10  # the listed tensors follow the tiling key
        keys, values = tuple(range(first, first + layers)), tuple(range(first + layers, first + 2 * layers))
        beam_index = torch.arange(batch * beams, dtype=torch.int32)
        args = (beam_index, table, ListOf(keys), ListOf(values), cum.reshape(-1), None, None,
                torch.zeros(32, dtype=torch.uint8), tiling, 0, *caches)
        return Launch(cores, args, {first + i: e for i, e in enumerate(expected)})
    return make


def xllm_cases() -> list[Case]:
    i32, half = "DT_INT32", "DT_FLOAT16"
    base = "xllm_ops/select_unshared_kv/"
    op = OpKernel("SelectUnsharedKV",
                  inputs=(("beam_index", i32), ("block_table", i32), ("x_key_block", half), ("x_value_block", half),
                          ("group_token_num", i32)),
                  outputs=(("select_key_block", half), ("select_value_block", half)),
                  tiling_header=base + "select_unshared_kv_tiling.h", listed=4)
    return [
        Case("xLLM-AI/select_unshared_kv", author="xLLM-AI", repo="xLLM-AI/xllm-ops", commit=XLLM_COMMIT,
             path=base + "select_unshared_kv.cpp", groups=(STATIC, MOVE), fmt="operator project", op=op,
             licence="Apache-2.0", variants=(
                 Variant("select_unshared_kv", "fp16 2 layers, batch 2 x 4 beams, 4 heads x 8 steps x 64",
                         _select_unshared_kv(2, 4, 4, 8, 64, 2, 5)),
                 Variant("select_unshared_kv", "fp16 2 layers, batch 3 x 6 beams, 2 heads x 4 steps x 32",
                         _select_unshared_kv(3, 6, 2, 4, 32, 2, 4)),
             ), note="the key and value caches arrive as ListTensorDesc lists (one tensor per layer); the beams move "
                     "in place, upward then downward, with CrossCoreSetFlag<0>/CrossCoreWaitFlag between each "
                     "round's reads and writes"),
    ]


# ---- Ascend/DrivingSDK: kernels/ operator projects (BSD-3-Clause) -----------------------------------------------
# msopgen layout: op_host/<op>.cpp (OpDef, InferShape, TilingFunc) and <op>_tiling.h, op_kernel/<op>.cpp and <op>.h;
# run through their own host code (targets/sim/op_project.py).

DRIVING_COMMIT = "e667017eb751b614c128c9c81812634cae362ee4"


def _unique(dtype, size: int, high: int, distinct: bool = False):
    """unique_v2: the sorted distinct values of the flattened input (ascending) in the first uniqueCnt elements of
    the output, and uniqueCnt. Values pass through float (Muls by -1, Sort32 descending), so integers stay small.
    ``distinct``: a permutation of ``size`` values from -``high``, so no two blocks end and start on one value."""
    def make(g):
        if distinct:
            x = (torch.randperm(size, generator=g) - high).to(dtype)
        else:
            x = integers(g, (size,), -high, high).to(dtype)
        values = torch.unique(x)
        return OpLaunch((x,), {}, {0: values, 1: torch.tensor([values.numel()], dtype=torch.int32)})
    return make


def _knn(batch: int, sources: int, centers: int, k: int, from_knn: bool):
    """knn: for each center (center_xyz [B, M, 3]) the k nearest of the N sources (xyz [B, 3, N]) by squared
    distance, nearest first: dist [B, M, k] (squared distances) and idx [B, M, k] (int32 source indices)."""
    def make(g):
        xyz, center = uniform(g, (batch, 3, sources), -4, 4), uniform(g, (batch, centers, 3), -4, 4)
        dist = ((xyz[:, None, :, :] - center[:, :, :, None]) ** 2).sum(2)  # [B, M, N]
        if from_knn:
            dist = dist.clamp(max=1e10)
        values, index = dist.topk(k, dim=-1, largest=False, sorted=True)
        return OpLaunch((xyz, center), {"is_from_knn": from_knn, "k": k}, {0: values, 1: index.int()})
    return make


def driving_cases() -> list[Case]:
    return [
        Case("Ascend/unique_v2", author="Ascend", repo="Ascend/DrivingSDK", commit=DRIVING_COMMIT,
             path="kernels/unique_v2/op_kernel/unique_v2.cpp", groups=(SORT, MOVE, ARITH), fmt="operator project",
             variants=(
                 Variant("unique_v2", "int32 1000 in [-300, 300), one tile", _unique(torch.int32, 1000, 300)),
                 Variant("unique_v2", "int32 20000 distinct, three tiles on three blocks",
                         _unique(torch.int32, 20000, 10000, distinct=True)),
                 Variant("unique_v2", "fp16 20000 in [-500, 500), three tiles on three blocks",
                         _unique(torch.half, 20000, 500), diagnostic="gm_write_race"),
                 Variant("unique_v2", "fp32 9000 in [-2000, 2000), two tiles", _unique(torch.float, 9000, 2000),
                         diagnostic="pipe_race"),
             ), licence="BSD-3-Clause",
             note="Sort32 per 32, MrgSort up to a tile of 8192, MrgSort across blocks in GM ordered by IBSet/IBWait "
                  "and SyncAll, then GatherMask/Compare for the distinct values (its Compare mask is a "
                  "LocalTensor<uint16_t>: the simulator takes any unsigned mask width). The int32 launches match "
                  "torch. Upstream bugs the simulator stops: fp32 copies the Muls result out with only a PIPE_V "
                  "barrier (pipe_race V->MTE3), and blocks whose ranges end and start on one value both write it "
                  "(gm_write_race: two cores writing the same bytes, even with the same value, is a race; see the "
                  "mixed-launch section of docs/simulator_coverage.md)"),
        Case("Ascend/knn", author="Ascend", repo="Ascend/DrivingSDK", commit=DRIVING_COMMIT,
             path="kernels/knn/op_kernel/knn.cpp", groups=(SORT, ARITH, MOVE), fmt="operator project",
             include_roots=("kernels",), variants=(
                 Variant("knn", "2 batches, 500 sources, 7 centers, k 16", _knn(2, 500, 7, 16, True)),
                 Variant("knn", "1 batch, 1000 sources, 40 centers, k 5", _knn(1, 1000, 40, 5, False)),
             ), licence="BSD-3-Clause",
             note="Sort32 per 32 of a 384-source chunk, MrgSort into 4 runs and with the best so far, Extract of "
                  "the k nearest. Its KnnTilingData has a bool field (isFromKnn); the TilingData page allows int8_t "
                  "to uint64_t and float only"),
    ]


# ---- matmul kernels (issue 16): the cube unit, the Matmul API, mixed AIC/AIV launches ----------------------------

LIB_API_WORKSPACE = 16 * 1024 * 1024  # GetLibApiWorkSpaceSize, the system workspace before the user's


def _matmul_reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a @ b accumulated exactly (float64), as float32: the cube accumulates fp16/bf16 products in float32 and int8
    products in int32, each exact here, so only the order of the float32 additions differs."""
    return (a.double() @ b.double()).float()


def _leakyrelu_tiling(m: int, n: int, k: int) -> bytes:
    """MatmulLeakyReluTiling {M, N, K, baseM, baseN, baseK, l1Prefetch}: pybind11.cpp's DEFAULT_* (128, 128, 128, 4)."""
    return pack("7i", m, n, k, 128, 128, 128, 4)


def _matmul_leakyrelu(dtype, m: int, n: int, k: int):
    """c = LeakyRelu(a @ b, 0.001) in float32 (the slope leakyrelu.h hard-codes); pybind11.cpp launches 20 blocks with
    a workspace of baseM * baseN * WORKSPACE_DEPTH(4) accumulators per block."""
    def make(g):
        if dtype == torch.int8:
            a, b = integers(g, (m, k), -8, 8, torch.int8), integers(g, (k, n), -8, 8, torch.int8)
        else:
            a, b = uniform(g, (m, k), dtype=dtype), uniform(g, (k, n), dtype=dtype)
        workspace = torch.zeros(128 * 128 * 4 * 4 * 20, dtype=torch.uint8)
        expected = torch.nn.functional.leaky_relu(_matmul_reference(a, b), 0.001)
        return Launch(20, (a, b, torch.zeros(m, n), workspace, _leakyrelu_tiling(m, n, k)), {2: expected},
                      atol=1e-4, rtol=1e-5)
    return make


def _int8_matmul_scale(m: int, n: int, k: int):
    """c = half(float(a @ b) * scale[n]): int32 accumulators Cast to float (exact below 2^24), Mul by the column
    scale, Cast to half (CAST_NONE: round to nearest even). pybind11.cpp launches 2 blocks."""
    def make(g):
        a, b = integers(g, (m, k), -128, 127, torch.int8), integers(g, (k, n), -128, 127, torch.int8)
        scale = uniform(g, (n,), -2, 2) * 1e-4
        workspace = torch.zeros(128 * 128 * 4 * 4 * 2, dtype=torch.uint8)
        expected = (_matmul_reference(a, b) * scale).half()
        return Launch(2, (a, b, scale, torch.zeros(m, n, dtype=torch.half), workspace,
                          pack("6i", m, n, k, 128, 128, 128)), {3: expected})
    return make


def _reshape_matmul_quant(m: int, n: int, h_k: int, lo: float):
    """y = int8 row-wise dynamic quantization of (x viewed [m * n / h_k, h_k]) @ h, viewed back [m, n]: per row
    scale = absmax * (1/127) (Muls), each value times 1/scale (a float scalar), Cast to half then to int8 (CAST_NONE:
    round to nearest even). One block per 128 rows; ReshapeMatmulQuantTiling as pybind11.cpp fills it; a float32
    workspace of [m, n]. atol 1: a float32 sum in another order can land on the other side of a rounding edge."""
    def make(g):
        x, h = uniform(g, (m, n), lo, 1, torch.bfloat16), uniform(g, (h_k, h_k), lo, 1, torch.bfloat16)
        product = _matmul_reference(x.reshape(-1, h_k), h).reshape(m, n)
        scale = product.abs().amax(1) * torch.tensor(1 / 127, dtype=torch.float32)
        quantized = (product * (1 / scale)[:, None]).half().float().round().to(torch.int8)
        tiling = pack("9i", m, n, h_k, 128, 256, 64, 256, n // 256, h_k // 256)
        return Launch(m // 128, (x, h, torch.zeros(m, n, dtype=torch.int8), torch.zeros(m * n * 4, dtype=torch.uint8),
                                 tiling), {2: quantized}, atol=1)
    return make


def _row_scan(rows: int, s: int):
    """z = the inclusive prefix sum of each row of x [rows, s] (fp16 in, float out), computed a tile of s rows at a
    time as x_tile @ triu(ones(s)) (the kernel's own lower-triangular constant in GM, loaded transposed).
    torch_scan.h: RowScanTiling {rows * s, s}, min(AIC cores (20 on the repository's Ascend910B4), rows) blocks. When
    rows is not a multiple of s the last tile is still read and written whole (GetWorkDistribution counts tiles
    rounded up), past the end of x and z: the variant expects the simulator to stop it."""
    def make(g):
        x = uniform(g, (rows, s), dtype=torch.half)
        expected = x.double().cumsum(1).float()
        return Launch(min(20, rows), (x, torch.zeros(rows * s), torch.zeros(32, dtype=torch.uint8),
                                      pack("2I", rows * s, s)), {1: expected})
    return make


def _block_scan(tiles: int, s: int):
    """z = the inclusive prefix sum of each run of s * s elements of x (the repository's test: x @ triu(ones(s*s))
    per run), computed as A @ U + L @ (A @ 1) from the upper (triu(ones(s))) and strictly lower (tril(ones(s), -1))
    matrices the host passes; A @ 1, the row totals, goes through L1 as half (Fixpipe F322F16), hence the
    repository's own tolerance (atol 1e-2, rtol 1e-3). min(20, tiles) blocks."""
    def make(g):
        x = (torch.randn(tiles, s * s, generator=g) * 0.1).half()
        ones = torch.ones(s, s, dtype=torch.half)
        expected = x.double().cumsum(1).float()
        return Launch(min(20, tiles), (x, torch.triu(ones), torch.tril(ones, -1), torch.zeros(tiles * s * s),
                                       torch.zeros(32, dtype=torch.uint8), pack("2I", tiles * s * s, s)),
                      {3: expected}, atol=1e-2, rtol=1e-3)
    return make


UNALLOCATED_CAST = ("for int8, LeakyKernel::Process Casts the int32 accumulators into reluCastLocal, a LocalTensor "
                    "never taken from castBuf_ (Init only sizes it): on the NPU it writes UB address 0, the input "
                    "queue's buffer, and works by that aliasing (upstream bug; the simulator stops an empty "
                    "LocalTensor)")

SCALE_RACE = ("ScaleKernel::Process copies the scale row into a TBuf (MTE2) and its Mul reads it (V) with only "
              "PipeBarrier<PIPE_MTE2> between them, which orders MTE2 with itself (the PipeBarrier page): an MTE2->V "
              "hand-over with no flag (upstream bug, as InfiniCore random_sample's; with full barriers in a local "
              "copy, both variants match torch)")

TCUSCAN_COMMIT = "ddcd5cef186e23ea433766ebaf7e40acce2ec91d"


def matmul_cases() -> list[Case]:
    """Public cube kernels: duoduoyi6's hand-written Nd2Nz/LoadData/Mmad/Fixpipe pipeline handing tiles to the vector
    cores through a GM ring (CrossCoreSetFlag), huawei-csl's scans on the cube."""
    duo = dict(author="duoduoyi6", repo="duoduoyi6/ascendC_debug_agent", commit=DUODUOYI_COMMIT, licence="Apache-2.0",
               fmt="kernel-launch")
    leaky = "archive_tasks/matmul_leakyrelu/kernel/matmul_leakyrelu_{}.cpp"
    csl = dict(author="huawei-csl", repo="huawei-csl/pytorch-tcuscan", commit=TCUSCAN_COMMIT,
               licence="BSD-3-Clause-Clear")
    return [
        Case("duoduoyi6/matmul_leakyrelu_fp16", path=leaky.format("fp16"), groups=(CUBE, MIXED, ARITH, MOVE),
             variants=(
                 Variant("matmul_leakyrelu_custom_fp16", "fp16 256x640 @ 640x384 (6 tiles, K in 4+1 L1 loads)",
                         _matmul_leakyrelu(torch.half, 256, 384, 640)),
                 Variant("matmul_leakyrelu_custom_fp16", "fp16 128x128 @ 128x128 (one tile)",
                         _matmul_leakyrelu(torch.half, 128, 128, 128)),
             ), note="GM ND -> L1 Nz (DataCopy Nd2NzParams), L1 -> L0A/L0B by LoadData3DParamsV2, Mmad, Fixpipe to a "
                     "GM ring the vector cores read (CrossCoreSetFlag/WaitFlag mode 2, 4 slots), LeakyRelu", **duo),
        Case("duoduoyi6/matmul_leakyrelu_int8", path=leaky.format("int8"), groups=(CUBE, MIXED, ARITH, MOVE),
             variants=(
                 Variant("matmul_leakyrelu_custom_int8", "int8 128x256 @ 256x256", _matmul_leakyrelu(torch.int8, 128,
                                                                                                      256, 256),
                         diagnostic="bad_argument"),
             ), note="int8 B goes to L0B by LoadDataWithTranspose (LoadData2dTransposeParams); " + UNALLOCATED_CAST,
             **duo),
        Case("duoduoyi6/int8_matmul_scale", path="archive_tasks/quant_matmul/kernel/int8_matmul_scale.cpp",
             groups=(CUBE, MIXED, ARITH, MOVE), variants=(
                 Variant("int8_matmul_scale_custom", "int8 256x384 @ 384x384, 2 blocks",
                         _int8_matmul_scale(256, 384, 384), diagnostic="pipe_race"),
                 Variant("int8_matmul_scale_custom", "int8 128x640 @ 640x128, 2 blocks (one idle; K in 3+2)",
                         _int8_matmul_scale(128, 128, 640), diagnostic="pipe_race"),
             ), note="the int8 cube pipeline (LoadDataWithTranspose for B), int32 accumulators through the GM ring, "
                     "Cast/Mul/Cast on the vector cores. " + SCALE_RACE, **duo),
        Case("duoduoyi6/reshape_matmul_quant_bf16",
             path="archive_tasks/reshape_matmul_rowwise_quant_int8/kernel/reshape_matmul_quant_bf16.cpp",
             groups=(CUBE, MIXED, REDUCE, ARITH, MOVE), variants=(
                 Variant("reshape_matmul_quant_bf16", "bf16 256x512 in 256-chunks @ 256x256, 2 blocks",
                         _reshape_matmul_quant(256, 512, 256, 0.0)),
                 Variant("reshape_matmul_quant_bf16", "bf16 384x768 in 256-chunks @ 256x256 (signed), 3 blocks",
                         _reshape_matmul_quant(384, 768, 256, -1.0)),
             ), note="bf16 cube (LoadData3DParamsV2 for both L0A and L0B), Fixpipe with a GM row stride, one "
                     "CrossCoreSetFlag after all tiles, then ReduceMax/GetValue row maxima and Cast float->half->int8 "
                     "on the vector cores", **duo),
        Case("huawei-csl/row_scan", path="src/row_scan.cpp", groups=(CUBE, MOVE), variants=(
            Variant("row_scan_fp16", "fp16 256 rows of 64 (4 tiles)", _row_scan(256, 64)),
            Variant("row_scan_fp16", "fp16 300 rows of 128 (2 tiles and a tail of 44 rows)", _row_scan(300, 128),
                    diagnostic="gm_out_of_bounds"),
            Variant("row_scan_fp16", "fp16 64 rows of 32 (2 tiles)", _row_scan(64, 32)),
        ), note="cube-only (ASCEND_IS_AIC): lower-triangular all-ones matrices as `const static __gm__ half[]` in the "
                "kernel binary (constants.h), LoadData2dParams with ifTranspose into L0B, Mmad, Fixpipe with the "
                "v200 FixpipeParams/Nz2NdParams. A row count that is not a multiple of the tile size makes the "
                "last block read and write a whole tile past x and z (upstream bug; the repository's own test "
                "shapes, 20 * 128 * 128 * i - 13 rows, do so unnoticed)", **csl),
        Case("huawei-csl/block_scan", path="src/block_scan.cpp", groups=(CUBE, MOVE), variants=(
            Variant("block_scan_fp16", "fp16 12 runs of 32x32", _block_scan(12, 32)),
            Variant("block_scan_fp16", "fp16 3 runs of 64x64", _block_scan(3, 64)),
            Variant("block_scan_fp16", "fp16 21 runs of 16x16 on 20 blocks (2 runs each on the first 10)",
                    _block_scan(21, 16)),
        ), note="three Mmads per tile accumulating in L0C, an L0C -> L1 Fixpipe (F322F16, CFG_NZ) feeding the next "
                "Mmad's B, InitConstValue of an all-ones L1 matrix. Its constructor's "
                "ASCENDC_ASSERT((num_tiles_ <= 0)) is inverted (it holds only when there is no work); "
                "ASCENDC_ASSERT is compiled out of NPU builds (CPU-debug only), so upstream never sees it", **csl),
    ]


DRIVING_UB_BYTES = 196608  # GetCoreMemSize(UB) on Atlas A2 (the simulator's A2 profiles)


def _sparse_matmul_tiling(dtype, kernel: tuple[int, int, int], c_in: int, c_out: int, tasks: int,
                          aic: int) -> tuple[bytes, int]:
    """SparseMatmulTilingData as sparse_matmul_tiling.cpp's TilingForSparseMatmul fills it (followed by hand, with the
    MatmulApiTiling it asks for computed by host_tiling.matmul_api_tiling): 13 uint32, then mm0TilingData; and
    matmulTaskPerIter, which sizes the workspace."""
    size = 2 if dtype == torch.half else 4
    k0, k1, k2 = kernel
    volume = k0 * k1 * k2
    ub = int(DRIVING_UB_BYTES * 0.8)  # AVALIABLE_UB_RATIO: ubSize *= 0.8 on a uint64_t
    aiv = 2 * aic
    in_aligned, volume_aligned = -(-c_in * size // 32) * 32 // size, -(-volume * size // 32) * 32 // size
    single_loop = (ub - k2 * in_aligned * size) // ((1 + volume_aligned) * 4 + in_aligned * size)
    per_iter = max(min(tasks // aiv + 1, 256), 1)
    kind = "DT_FLOAT16" if dtype == torch.half else "DT_FLOAT"
    cube = matmul_api_tiling(
        *(f"tiling.Set{m}Type(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, "
          f"matmul_tiling::DataType::{kind})" for m in "ABC"),
        f"tiling.SetOrgShape({per_iter}, {c_out}, {c_in * volume})", f"tiling.SetShape({per_iter}, {c_out}, "
        f"{c_in * volume})", "tiling.SetBias(false)", "tiling.SetBufferSpace(-1, -1, -1)")
    return pack("13I", k0, k1, k2, c_in, c_out, tasks // aiv, tasks % aiv, single_loop, tasks, per_iter, ub, aiv,
                single_loop) + cube, per_iter


def _sparse_matmul(dtype, kernel: tuple[int, int, int], c_in: int, c_out: int, tasks: int, inputs: int,
                   aic: int = 24):
    """sparse_value[t] = sum over task t's entries e (former_sorted_indices[offset[t]:offset[t + 1]], each
    input_index * volume + kernel_position) of features[input_index] @ weight[kernel_position] ([c_in, c_out]):
    the kernel gathers each entry's feature row into an img2col row at its kernel position (zeros elsewhere) and
    multiplies the rows by the [volume * c_in, c_out] weight with the Matmul API (IterateAll). Distinct kernel
    positions per task (a repeated one would overwrite, not add). AIC-count blocks (SetBlockDim(aicNum)); the
    tasks are split over the AIV cores."""
    def make(g):
        volume = kernel[0] * kernel[1] * kernel[2]
        features = uniform(g, (inputs, c_in), dtype=dtype)
        weight = uniform(g, (*kernel, c_in, c_out), -0.1, 0.1, dtype)
        flat = weight.reshape(volume, c_in, c_out).double()
        codes, offsets, expected = [], [0], torch.zeros(tasks, c_out, dtype=torch.float64)
        for t in range(tasks):
            count = int(torch.randint(1, volume + 1, (1,), generator=g))
            positions = torch.randperm(volume, generator=g)[:count]
            rows = torch.randint(0, inputs, (count,), generator=g)
            for position, row in zip(positions.tolist(), rows.tolist()):
                codes.append(row * volume + position)
                expected[t] += features[row].double() @ flat[position]
            offsets.append(len(codes))
        tiling, per_iter = _sparse_matmul_tiling(dtype, kernel, c_in, c_out, tasks, aic)
        workspace = torch.zeros(LIB_API_WORKSPACE + 2 * aic * per_iter * volume * c_in * features.element_size(),
                                dtype=torch.uint8)
        args = (features, weight, torch.tensor(offsets, dtype=torch.int32), torch.tensor(codes, dtype=torch.int32),
                torch.zeros(len(codes), 4, dtype=torch.int32), torch.zeros(tasks, c_out, dtype=dtype),
                torch.zeros(tasks, 4, dtype=torch.int32), workspace, tiling, 0)
        return Launch(aic, args, {5: expected.to(dtype)})
    return make


def driving_matmul_cases() -> list[Case]:
    base = "kernels/sparse_matmul/"
    op = OpKernel("SparseMatmul", inputs=(("features", "DT_FLOAT16"), ("weight", "DT_FLOAT16"),
                                          ("unique_indices_offset", "DT_INT32"),
                                          ("former_sorted_indices", "DT_INT32"), ("indices", "DT_INT32")),
                  outputs=(("sparse_value", "DT_FLOAT16"), ("sparse_indices", "DT_INT32")),
                  tiling_header=base + "op_host/sparse_matmul_tiling.h")
    common = dict(author="Ascend", repo="Ascend/DrivingSDK", commit=DRIVING_COMMIT, fmt="operator project",
                  licence="BSD-3-Clause", path=base + "op_kernel/sparse_matmul.cpp",
                  groups=(MMAPI, MIXED, MOVE))
    note = ("img2col of sparse-conv features in GM (DataCopyPad rows, zeroed between rounds) times the weight "
            "through the Matmul API (REGIST_MATMUL_OBJ, SetTensorA/B, SetSingleShape, IterateAll<true> into GM) from "
            "the vector cores of a mixed launch; the tiling's TCubeTiling is MatmulApiTiling's (host_tiling.py), "
            "the rest follows TilingForSparseMatmul by hand (its op_host file is sparse_matmul_tiling.cpp, not the "
            "<op>.cpp the runner runs)")
    return [
        Case("Ascend/sparse_matmul", op=op, note=note, variants=(
            Variant("sparse_matmul", "fp16 3x3x3 kernel, 16 -> 32 channels, 100 outputs from 50 inputs",
                    _sparse_matmul(torch.half, (3, 3, 3), 16, 32, 100, 50)),
            Variant("sparse_matmul", "fp16 1x3x3 kernel, 32 -> 16 channels, 30 outputs (fewer than the AIV cores)",
                    _sparse_matmul(torch.half, (1, 3, 3), 32, 16, 30, 12)),
        ), **common),
    ]

CASES: list[Case] = [*ggml_cases(), *sgl_cases(), *tencent_cases(), *opencv_cases(), *infinicore_cases(),
                     *vllm_cases(), *duoduoyi_cases(), *mindspore_cases(),
                     *xllm_cases(), *driving_cases(), *matmul_cases(),
                     *driving_matmul_cases()]
