"""Fake quantization's decompositions (capture/fake_quant.py) give torch's CPU kernels' results bit for bit:
rounding ties, values outside the range, NaN and infinities, half inputs; and a function using it is captured."""

import pytest
import torch

from torch_ascendgen.capture import capture
from torch_ascendgen.capture.fake_quant import fake_quant_decompositions

pytestmark = pytest.mark.unit
aten = torch.ops.aten
DECOMPOSED = fake_quant_decompositions()


def values(dtype: torch.dtype, scale: torch.Tensor, seed: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(6, 40, generator=generator) * 60
    x[:, 0] = (torch.randint(-300, 300, (6,), generator=generator) + 0.5) * scale.reshape(-1)[: 6].float()
    x[0, 1:6] = torch.tensor([float("nan"), float("inf"), -float("inf"), 1e30, -1e30])
    return x.to(dtype)


def same(got, expected) -> bool:
    return all(torch.equal(g.view(torch.int8) if g.is_floating_point() else g,
                           e.view(torch.int8) if e.is_floating_point() else e) for g, e in zip(got, expected))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_form_is_torchs_bit_for_bit(dtype, seed):
    scales = torch.rand(6, generator=torch.Generator().manual_seed(seed)) * 0.5 + 1e-3
    zero_points = torch.randint(-20, 20, (6,), dtype=torch.int32, generator=torch.Generator().manual_seed(seed))
    x = values(dtype, scales, seed)
    cases = [
        (aten.fake_quantize_per_channel_affine_cachemask.default, (x, scales, zero_points, 0, -128, 127)),
        (aten.fake_quantize_per_tensor_affine_cachemask.default,
         (x, float(scales[0]), int(zero_points[0]) + 20, 0, 255)),
        (aten._fake_quantize_per_tensor_affine_cachemask_tensor_qparams.default,
         (x, scales[:1], zero_points[:1], torch.tensor([1]), -128, 127)),
        (aten._fake_quantize_per_tensor_affine_cachemask_tensor_qparams.default,
         (x, scales[:1], zero_points[:1], torch.tensor([0]), -128, 127)),
    ]
    for op, args in cases:
        assert same(DECOMPOSED[op](*args), op(*args)), op


def test_a_qat_weight_fake_quantization_is_captured():
    task = capture(lambda w, s, z: torch.fake_quantize_per_channel_affine(w, s, z, 0, -128, 127),
                   [torch.randn(8, 4), torch.rand(8) + 0.1, torch.zeros(8, dtype=torch.int32)])
    assert "fake_quantize" not in task.graph_text and "round" in task.graph_text
