"""Decompositions of PyTorch's fake quantization (QAT's FakeQuantize), which has no meta kernel to trace through.

Written from what torch's CPU kernels give, bit for bit (tests/unit/test_fake_quant.py checks it against them, NaN,
infinities and rounding ties included): q = zero_point + nearbyint(x * (1 / scale)) in float32 (half inputs too),
the output (clamp(q, quant_min, quant_max) - zero_point) * scale in the input's dtype, the mask quant_min <= q <=
quant_max. Where q is NaN or past int64, the per-tensor kernel clamps in float (NaN becomes quant_min, infinities the
nearer end) and the per-channel kernel casts to int64 first (x86 gives INT64_MIN: quant_min).
"""

from __future__ import annotations

import torch

aten = torch.ops.aten


def _per_tensor(x: torch.Tensor, scale: torch.Tensor, zero_point: torch.Tensor, qmin: int, qmax: int):
    q = torch.round(x.float() * (1.0 / scale)) + zero_point
    clamped = torch.where(torch.isnan(q), float(qmin), q.clamp(qmin, qmax))
    return ((clamped - zero_point) * scale).to(x.dtype), (q >= qmin) & (q <= qmax)


def _per_tensor_cachemask(x, scale, zero_point, quant_min, quant_max):
    return _per_tensor(x, torch.tensor(scale, dtype=torch.float32), torch.tensor(zero_point, dtype=torch.int64),
                       quant_min, quant_max)


def _tensor_qparams_cachemask(x, scale, zero_point, fake_quant_enabled, quant_min, quant_max):
    out, mask = _per_tensor(x, scale.float().reshape(()), zero_point.reshape(()).to(torch.int64), quant_min,
                            quant_max)
    enabled = fake_quant_enabled.reshape(()) != 0  # disabled: the input as it is, every position kept
    return torch.where(enabled, out, x), mask | ~enabled


def _per_channel_cachemask(x, scale, zero_point, axis, quant_min, quant_max):
    shape = [1] * x.dim()
    shape[axis] = -1
    scale, zero_point = scale.float().reshape(shape), zero_point.reshape(shape)
    q = torch.round(x.float() * (1.0 / scale)) + zero_point
    outside = torch.isnan(q) | (q.abs() >= 2.0 ** 63)  # the int64 cast's INT64_MIN, clamped to quant_min
    clamped = torch.where(outside, float(quant_min), q.clamp(quant_min, quant_max))
    return ((clamped - zero_point) * scale).to(x.dtype), (q >= quant_min) & (q <= quant_max)


def fake_quant_decompositions() -> dict:
    return {aten.fake_quantize_per_tensor_affine_cachemask.default: _per_tensor_cachemask,
            aten._fake_quantize_per_tensor_affine_cachemask_tensor_qparams.default: _tensor_qparams_cachemask,
            aten.fake_quantize_per_channel_affine_cachemask.default: _per_channel_cachemask}
