"""Model-porting snippets for the property test (tests/pipeline/test_porting_properties.py).

Each entry is a small PyTorch function of the kind a porting engineer decorates, written from public model
code and public operator descriptions (the docstring names where such code appears), with a spec of its
inputs: for each input a role and how its shape derives from the dims hypothesis draws, so the test can
draw ranks, sizes, dtypes, layouts and edge values the snippet admits.

Roles: ``FLOAT`` activations (the drawn float dtype), ``INDEX`` int64 indices in ``[0, high(dims))``,
``UNIQUE`` int64 indices in that range without repeats (index_copy with repeated indices has no defined
result), ``MASK`` bool, ``INT`` integer values in ``values`` (the drawn int dtype).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

Dims = tuple[int, ...]
Shape = tuple[int, ...]

FLOAT, INDEX, UNIQUE, MASK, INT = "float", "index", "unique", "mask", "int"
FLOATS = (torch.float32, torch.float16, torch.bfloat16)
# "big": a value whose square overflows the dtype while the value itself is ordinary (sums of squares in norms)
EDGES = ("zero", "inf", "-inf", "nan", "huge", "big", "max", "tiny", "subnormal")
# Quantisation casts to int8: a NaN or inf reaching the cast is undefined behaviour in the original itself.
FINITE_EDGES = ("zero", "huge", "big", "tiny", "subnormal")
SIGNED_INTS = (torch.int8, torch.int16, torch.int32, torch.int64)


def ALL(d: Dims) -> Shape:
    return tuple(d)


def LAST(d: Dims) -> Shape:
    return tuple(d[-1:])


def ROWS(d: Dims) -> Shape:
    return (*d[:-1], 1)


def DOUBLE_LAST(d: Dims) -> Shape:
    return (*d[:-1], 2 * d[-1])


def SCALAR(d: Dims) -> Shape:
    return ()


@dataclass(frozen=True)
class Arg:
    """One input: its role, its shape from the drawn dims, and for indices their range."""

    role: str
    shape: Callable[[Dims], Shape] = ALL
    high: Callable[[Dims], int] | None = None  # INDEX/UNIQUE: values in [0, high(dims))
    values: tuple[int, int] = (-100, 100)  # INT: values in [low, high), clipped to the dtype
    nonzero: bool = False  # INT: a divisor


@dataclass(frozen=True)
class Snippet:
    """A function, its inputs, the ranks (number of drawn dims) it admits, its dtypes and edge values.

    ``module``, when set, builds the nn.Module (from the dims and the float dtype) that ``function``, an
    unbound ``forward``, is called on.
    """

    function: Callable
    args: tuple[Arg, ...]
    ranks: tuple[int, int] = (1, 8)
    float_dtypes: tuple[torch.dtype, ...] = FLOATS
    int_dtypes: tuple[torch.dtype, ...] = (torch.int64,)
    edges: tuple[str, ...] = EDGES
    module: Callable[[Dims, torch.dtype], nn.Module] | None = None
    compile: bool = False  # also in the torch.compile subset

    @property
    def name(self) -> str:
        return self.function.__qualname__

    def __repr__(self) -> str:
        return self.name


# ---- attention and positions --------------------------------------------------------------------------


def _rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rope_half(x, cos, sin):
    """Rotary embedding, half-rotation form: `apply_rotary_pos_emb` of Llama/Qwen2/Mistral in HF transformers."""
    return x * cos + _rotate_half(x) * sin


def rope_interleaved(x, cos, sin):
    """Rotary embedding on interleaved pairs: GPT-J / the original Llama reference (`apply_rotary_emb`)."""
    pairs = x.reshape(*x.shape[:-1], x.shape[-1] // 2, 2)
    x1, x2 = pairs[..., 0], pairs[..., 1]
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)


def _rms(x, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def qk_norm(q, k, q_weight, k_weight):
    """Per-head RMSNorm of queries and keys before RoPE: `q_norm`/`k_norm` of Qwen3, OLMo-2 and Gemma-3."""
    return _rms(q.float()).to(q.dtype) * q_weight, _rms(k.float()).to(k.dtype) * k_weight


def masked_softmax(scores, keep):
    """Attention probabilities with a padding mask: BERT-style `scores.masked_fill(~mask, -inf).softmax(-1)`."""
    return scores.masked_fill(~keep, float("-inf")).softmax(dim=-1)


def softcap_softmax(logits):
    """Gemma 2 attention-logit soft-capping (`tanh(logits / cap) * cap`), then softmax in float32."""
    cap = 50.0
    capped = torch.tanh(logits / cap) * cap
    return torch.softmax(capped.float(), dim=-1).to(logits.dtype)


def alibi_bias(scores):
    """ALiBi: per-head slopes times key-query distance built from arange, added to the scores (BLOOM, MPT)."""
    heads, q_len, k_len = scores.shape[-3:]
    slopes = torch.pow(2.0, -8.0 * torch.arange(1, heads + 1, dtype=torch.float32) / max(heads, 1))
    distance = torch.arange(k_len)[None, :] - torch.arange(q_len)[:, None]
    return scores + (slopes[:, None, None] * distance[None].float()).to(scores.dtype)


def causal_softmax(scores):
    """A causal mask from arange comparisons (keys may run ahead by a kv-cache offset), then softmax (GPT-2)."""
    q_len, k_len = scores.shape[-2:]
    future = torch.arange(k_len)[None, :] > torch.arange(q_len)[:, None] + (k_len - q_len)
    return scores.masked_fill(future, float("-inf")).softmax(dim=-1)


def padding_mask_min(x, pad):
    """Additive padding mask with the dtype's lowest value: `_prepare_4d_attention_mask` in HF transformers."""
    return x.masked_fill(pad, torch.finfo(x.dtype).min)


def repeat_kv(x):
    """Grouped-query attention: each kv head serves n_rep query heads: `repeat_kv` of HF Llama."""
    b, heads, s, d = x.shape
    return x[:, :, None, :, :].expand(b, heads, 2, s, d).reshape(b, heads * 2, s, d)


def repeat_interleave_heads(x):
    """GQA in Falcon/ChatGLM style: `torch.repeat_interleave(k, n_rep, dim=1)`."""
    return torch.repeat_interleave(x, repeats=2, dim=1)


def split_heads(x):
    """Splitting the hidden size into heads with a view and a transpose: every HF attention's q/k/v."""
    b, s, hidden = x.shape
    return x.view(b, s, 2, hidden // 2).transpose(1, 2)


def qkv_chunk(qkv):
    """A fused qkv projection split in three with chunk (GPT-2 `c_attn`, Phi-3 `qkv_proj`)."""
    q, k, v = qkv.chunk(3, dim=-1)
    return q * k + v


# ---- norms ----------------------------------------------------------------------------------------------


def rmsnorm_fp32(x, weight):
    """RMSNorm that upcasts to float32 and casts back before the weight: `LlamaRMSNorm.forward` in HF."""
    dtype = x.dtype
    h = x.to(torch.float32)
    variance = h.pow(2).mean(-1, keepdim=True)
    h = h * torch.rsqrt(variance + 1e-6)
    return weight * h.to(dtype)


def fused_add_rmsnorm(x, residual, weight):
    """Residual add then RMSNorm, returning both: vLLM's `fused_add_rms_norm`."""
    residual = x + residual
    return rmsnorm_fp32(residual, weight), residual


def layer_norm_affine(x, weight, bias):
    """LayerNorm with weight and bias over the last dim: every BERT/ViT/GPT-2 block."""
    return F.layer_norm(x, x.shape[-1:], weight, bias, eps=1e-5)


def l2_normalize(x):
    """Unit-norm embeddings: CLIP / sentence-transformers `F.normalize(x, p=2, dim=-1)`."""
    return F.normalize(x, p=2.0, dim=-1)


def mean_var(x):
    """Statistics over dims: BatchNorm/GroupNorm-style mean and biased variance, and a float32 std over dim 0."""
    return x.mean(dim=-1), x.var(dim=-1, unbiased=False), x.float().std(dim=0)


class RMSNorm(nn.Module):
    """An nn.Module holding its weight vector (T5LayerNorm / LlamaRMSNorm)."""

    def __init__(self, size: int, dtype: torch.dtype):
        super().__init__()
        self.weight = nn.Parameter(torch.linspace(0.5, 1.5, size, dtype=torch.float32).to(dtype), requires_grad=False)
        self.eps = 1e-6

    def forward(self, x):
        """The module's forward: T5LayerNorm / LlamaRMSNorm with the variance in float32."""
        variance = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
        return self.weight * (x.to(torch.float32) * torch.rsqrt(variance + self.eps)).to(x.dtype)


class LayerScale(nn.Module):
    """A learnable per-channel scale with a residual (timm `LayerScale`, CaiT, DINOv2)."""

    def __init__(self, size: int, dtype: torch.dtype):
        super().__init__()
        self.gamma = nn.Parameter(torch.linspace(-1.0, 1.0, size, dtype=torch.float32).to(dtype), requires_grad=False)

    def forward(self, x):
        """The module's forward: timm LayerScale plus the block's residual."""
        return x + x * self.gamma


# ---- activations and MLPs -------------------------------------------------------------------------------


def swiglu_chunk(x):
    """SwiGLU on a fused gate/up projection split with chunk: `SiluAndMul` in vLLM."""
    gate, up = x.chunk(2, dim=-1)
    return F.silu(gate) * up


def geglu(gate, up):
    """GeGLU with the tanh GELU: Gemma's MLP `gelu_pytorch_tanh(gate_proj(x)) * up_proj(x)`."""
    return F.gelu(gate, approximate="tanh") * up


def gelu_tanh_written(x):
    """The tanh GELU written out: `NewGELUActivation` of GPT-2 in HF transformers."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def sigmoid_tanh(x):
    """LSTM gate nonlinearities: sigmoid and tanh of the same pre-activations."""
    return torch.sigmoid(x), torch.tanh(x)


def silu_written(x):
    """Swish written out: EfficientNet's `x * torch.sigmoid(x)`."""
    return x * torch.sigmoid(x)


def mish(x):
    """Mish: YOLOv4's activation, `F.mish`."""
    return F.mish(x)


def hardswish(x):
    """Hard-swish: MobileNetV3's activation, `F.hardswish`."""
    return F.hardswish(x)


def leaky_where(x):
    """Leaky ReLU written with where and a float constant (ported TF/Keras code)."""
    return torch.where(x > 0, x, 0.01 * x)


def clamp_ops(x):
    """Clipping: `x.clamp(-1, 1)` and the `clamp_min(eps)` guard before a division (many losses)."""
    return x.clamp(min=-1.0, max=1.0), x.clamp_min(1e-6)


def abs_sign(x):
    """abs and sign, and their product: sign-magnitude tricks in quantisation-aware code."""
    return x.abs(), x.sign(), x.abs() * x.sign()


def float_constants(x):
    """Python int, bool and float constants mixed into tensor arithmetic (ported NumPy code)."""
    return (x * 3 + True) / 2.5 - (x > 1) * 2


def add_tensor_constant(x):
    """A 0-dim tensor constant made inside the function: `x + torch.tensor(3.14)` (issue 11's first report)."""
    return x + torch.tensor(3.14)


def scale_by_scalar_tensor(x, scale):
    """A 0-dim tensor argument (a learnable temperature, CLIP's `logit_scale`) scaling a tensor and a sum."""
    return x * scale, (x - scale).sum()


# ---- losses and probabilities ---------------------------------------------------------------------------


def log_softmax_last(x):
    """Token log-probabilities of a language-model head: `F.log_softmax(logits, dim=-1)`."""
    return F.log_softmax(x, dim=-1)


def logsumexp_zloss(logits):
    """PaLM's z-loss: `1e-4 * logsumexp(logits, -1) ** 2` (also in OLMo and Chameleon)."""
    return 1e-4 * torch.logsumexp(logits, dim=-1) ** 2


def cross_entropy(logits, target):
    """Cross-entropy with int64 class targets, in float32: every classifier's and LM's training loss."""
    return F.cross_entropy(logits.float(), target)


def nll_sum(log_probs, target):
    """Summed negative log-likelihood of log-probabilities: `F.nll_loss(..., reduction='sum')`."""
    return F.nll_loss(log_probs, target, reduction="sum")


def selected_log_probs(logits, labels):
    """Per-token log-probability of the chosen labels: `selective_log_softmax` in TRL (RLHF)."""
    return torch.gather(logits.log_softmax(-1), -1, labels.unsqueeze(-1)).squeeze(-1)


def mse_huber(a, b):
    """Regression losses: `F.mse_loss` (mean) and element-wise `F.huber_loss` (DQN, detection box losses)."""
    return F.mse_loss(a, b), F.huber_loss(a, b, reduction="none", delta=1.0)


def cosine_similarity(a, b):
    """Embedding similarity: `F.cosine_similarity(a, b, dim=-1)` (sentence-transformers, CLIP losses)."""
    return F.cosine_similarity(a, b, dim=-1)


# ---- quantisation ---------------------------------------------------------------------------------------


def dynamic_int8_quant(x):
    """Dynamic per-token symmetric int8 quantisation: amax, scale, round, clamp, cast (SmoothQuant, vLLM)."""
    scale = x.abs().amax(dim=-1, keepdim=True).float().clamp(min=1e-8) / 127.0
    q = torch.round(x.float() / scale).clamp(-128, 127).to(torch.int8)
    return q, scale


def dequant_int8(q, scale):
    """Dequantisation of int8 weights with a per-row scale: `q.float() * scale` (W8A16 linear layers)."""
    return (q.to(torch.float32) * scale.float()).to(scale.dtype)


# ---- indexing, gathering and caches ---------------------------------------------------------------------


def kv_cache_index_copy(cache, new, positions):
    """KV-cache update at given positions on a clone: `cache.index_copy_(0, positions, new)` (StaticCache)."""
    out = cache.clone()
    out.index_copy_(0, positions, new)
    return out


def kv_cache_slice_assign(cache, new):
    """KV-cache update by slice assignment of the newest tokens on a clone (nanoGPT/llama.cpp-style caches)."""
    out = cache.clone()
    start = out.shape[1] - new.shape[1]
    out[:, start:] = new
    return out


def embedding_scaled(ids, weight):
    """Token embedding lookup scaled by sqrt(hidden): Gemma's `embed_tokens(ids) * normalizer`."""
    return F.embedding(ids, weight) * (weight.shape[-1] ** 0.5)


def gather_last(x, index):
    """`torch.gather` along the last dim: picking per-row entries (beam search scores, label smoothing)."""
    return torch.gather(x, -1, index)


def index_select_rows(x, index):
    """`index_select` on dim 0: reordering a batch or a cache by beam indices (`_reorder_cache` in HF)."""
    return x.index_select(0, index)


def scatter_add_own(x, index):
    """scatter_add into a tensor the function made itself: segment sums in MoE combine / graph nets."""
    out = torch.zeros_like(x)
    out.scatter_add_(-1, index, x)
    return out


def expert_counts(ids, buckets):
    """Tokens per expert by scatter_add of ones (MoE load-balancing statistics, Switch Transformer)."""
    flat = ids.flatten()
    return torch.zeros_like(buckets, dtype=torch.int64).scatter_add_(0, flat, torch.ones_like(flat))


def moe_topk_softmax(router_logits):
    """MoE gating: softmax in float32, top-2 experts, renormalised weights (Mixtral `MixtralSparseMoeBlock`)."""
    probs = torch.softmax(router_logits, dim=-1, dtype=torch.float)
    weights, experts = torch.topk(probs, min(2, probs.shape[-1]), dim=-1)
    weights = weights / weights.sum(dim=-1, keepdim=True)
    return weights.to(router_logits.dtype), experts


def topk_last(x):
    """`torch.topk(x, 3, dim=-1)`: top-k sampling and retrieval."""
    return torch.topk(x, k=min(3, x.shape[-1]), dim=-1)


def greedy_argmax(logits):
    """Greedy decoding: `next_tokens = torch.argmax(next_token_logits, dim=-1)` in HF generate."""
    return logits.argmax(dim=-1)


def sort_stable(x):
    """A stable descending sort with indices: beam search candidates, top-p sampling."""
    return torch.sort(x, dim=-1, descending=True, stable=True)


def top_p_filter(logits):
    """Nucleus filtering: sort, softmax, cumsum, scatter the removal mask back (`TopPLogitsWarper` in HF)."""
    sorted_logits, sorted_indices = torch.sort(logits, descending=False, dim=-1)
    cumulative = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    remove = cumulative <= (1 - 0.9)
    remove[..., -1:] = False
    return logits.masked_fill(remove.scatter(-1, sorted_indices, remove), float("-inf"))


def cumsum_dims(x):
    """cumsum over the first and the middle dim (cumulative attention weights, integral images)."""
    return x.cumsum(dim=0), x.cumsum(dim=x.dim() // 2)


def position_ids_from_mask(attention_mask):
    """Position ids from a 0/1 attention mask with cumsum and masked_fill (HF `prepare_inputs_for_generation`)."""
    position_ids = attention_mask.long().cumsum(-1) - 1
    return position_ids.masked_fill(attention_mask == 0, 1)


# ---- masks, comparisons, integers -----------------------------------------------------------------------


def masked_fill_zero(x, mask):
    """Zeroing padded positions with a bool mask broadcast over the last dim (masked mean pooling)."""
    return x.masked_fill(mask, 0.0)


def where_select(cond, x, y):
    """`torch.where(cond, x, y)` with a bool condition (DETR box matching, masked token replacement)."""
    return torch.where(cond, x, y)


def comparisons(x, y):
    """Comparisons returning bool tensors: thresholds and NaN checks in metrics and sanity checks."""
    return x > y, x == y, x <= 0.5, x.isnan()


def logical_ops(a, b):
    """Combining bool masks: causal & padding masks (`logical_and`, `logical_or`, `logical_not`, xor)."""
    return torch.logical_and(a, b), torch.logical_or(a, b), torch.logical_not(a), a ^ b


def bitwise_ints(a, b):
    """Bitwise ops on integers: packed-bit masks and hashing in tokenizers / bitsandbytes-style packing."""
    return (a & b) | (a ^ 3), ~a


def floor_div_remainder(a, b):
    """Integer floor division and remainder: bucketing positions (T5 relative buckets), block indices."""
    return torch.div(a, b, rounding_mode="floor"), torch.remainder(a, b), a // 3, a % 5


def int_constants(a):
    """Integer tensors with int, bool and float constants (index arithmetic in ported code)."""
    return a * 2 + 1, a + True, a * 0.5


def int_sum(a):
    """Integer reductions: token counts per row and the mean length in float (data collators)."""
    return a.sum(dim=-1), a.to(torch.float32).mean()


def clamp_pixels(a):
    """Clamping integer pixel values into [0, 255] (image preprocessing ports)."""
    return a.clamp(0, 255)


def histogram(x):
    """`torch.histc` of activations in float32 (calibration observers in quantisation toolkits)."""
    return torch.histc(x.float(), bins=8, min=-2.0, max=2.0)


# ---- shapes: pad, cat, split, repeat, views, pooling ----------------------------------------------------


def pad_last(x):
    """`F.pad` with a constant on the last dim (padding sequences to a multiple, causal conv left-padding)."""
    return F.pad(x, (1, 2), value=0.5)


def pad_2d(x):
    """`F.pad` of the last two dims with zeros (same-padding before a convolution, ViT patch padding)."""
    return F.pad(x, (0, 1, 2, 0))


def cat_last(x, y):
    """Concatenation on the last dim (feature concat, rotary halves, prefix tokens)."""
    return torch.cat([x, y], dim=-1)


def cat_first(x, y):
    """Concatenation on dim 0 (appending to a kv cache, batching)."""
    return torch.cat((x, y), dim=0)


def split_sizes(x):
    """`split` with sizes computed from the shape (MLA/DeepSeek's `kv.split([nope, rope], dim=-1)`)."""
    n = x.shape[-1]
    first = n // 3
    a, b = x.split([first, n - first], dim=-1)
    return a * 2.0, b + 1.0


def repeat_last(x):
    """`Tensor.repeat` doubling the last dim (tiling positional tables, prompt tuning)."""
    return x.repeat(*([1] * (x.dim() - 1)), 2)


def transpose_contiguous(x):
    """`x.transpose(-1, -2).contiguous()` before a view (attention outputs back to [b, s, h*d])."""
    return x.transpose(-1, -2).contiguous() * 2


def avg_pool(x):
    """2x2 average pooling (ResNet-D downsampling, UNet encoders)."""
    return F.avg_pool2d(x, kernel_size=2, stride=2)


def max_pool(x):
    """1-d max pooling with padding (TCN / audio front-ends)."""
    return F.max_pool1d(x, kernel_size=3, stride=2, padding=1)


def interpolate_nearest(x):
    """Nearest-neighbour 2x upsampling (FPN top-down path, UNet decoders)."""
    return F.interpolate(x, scale_factor=2.0, mode="nearest")


# ---- the corpus -----------------------------------------------------------------------------------------


def _rope_table(d: Dims) -> Shape:
    return (*d[-2:-1], 2 * d[-1])


def _pair_table(d: Dims) -> Shape:
    return (*d[-2:-1], d[-1])


def _last(d: Dims) -> int:
    return d[-1]


def _first(d: Dims) -> int:
    return d[0]


def _kv_rows(d: Dims) -> Shape:
    return (min(d[0], d[1]), *d[2:])


FLOAT_ALL, FLOAT_LAST = Arg(FLOAT), Arg(FLOAT, LAST)

CORPUS: tuple[Snippet, ...] = (
    Snippet(rope_half, (Arg(FLOAT, DOUBLE_LAST), Arg(FLOAT, _rope_table), Arg(FLOAT, _rope_table)), compile=True),
    Snippet(rope_interleaved, (Arg(FLOAT, DOUBLE_LAST), Arg(FLOAT, _pair_table), Arg(FLOAT, _pair_table))),
    Snippet(qk_norm, (FLOAT_ALL, FLOAT_ALL, FLOAT_LAST, FLOAT_LAST)),
    Snippet(masked_softmax, (FLOAT_ALL, Arg(MASK)), compile=True),
    Snippet(softcap_softmax, (FLOAT_ALL,), compile=True),
    Snippet(alibi_bias, (FLOAT_ALL,), ranks=(3, 5)),
    Snippet(causal_softmax, (FLOAT_ALL,), ranks=(2, 6)),
    Snippet(padding_mask_min, (FLOAT_ALL, Arg(MASK, LAST))),
    Snippet(repeat_kv, (FLOAT_ALL,), ranks=(4, 4)),
    Snippet(repeat_interleave_heads, (FLOAT_ALL,), ranks=(2, 5)),
    Snippet(split_heads, (Arg(FLOAT, DOUBLE_LAST),), ranks=(3, 3)),
    Snippet(qkv_chunk, (Arg(FLOAT, lambda d: (*d[:-1], 3 * d[-1])),)),
    Snippet(rmsnorm_fp32, (FLOAT_ALL, FLOAT_LAST), compile=True),
    Snippet(fused_add_rmsnorm, (FLOAT_ALL, FLOAT_ALL, FLOAT_LAST)),
    Snippet(layer_norm_affine, (FLOAT_ALL, FLOAT_LAST, FLOAT_LAST), compile=True),
    Snippet(l2_normalize, (FLOAT_ALL,), compile=True),
    Snippet(mean_var, (FLOAT_ALL,), ranks=(0, 8), compile=True),
    Snippet(RMSNorm.forward, (FLOAT_ALL,), module=lambda d, dtype: RMSNorm(d[-1], dtype)),
    Snippet(LayerScale.forward, (FLOAT_ALL,), module=lambda d, dtype: LayerScale(d[-1], dtype), compile=True),
    Snippet(swiglu_chunk, (Arg(FLOAT, DOUBLE_LAST),), compile=True),
    Snippet(geglu, (FLOAT_ALL, FLOAT_ALL), compile=True),
    Snippet(gelu_tanh_written, (FLOAT_ALL,), ranks=(0, 8), compile=True),
    Snippet(sigmoid_tanh, (FLOAT_ALL,), ranks=(0, 8)),
    Snippet(silu_written, (FLOAT_ALL,), ranks=(0, 8)),
    Snippet(mish, (FLOAT_ALL,), ranks=(0, 8)),
    Snippet(hardswish, (FLOAT_ALL,), ranks=(0, 8)),
    Snippet(leaky_where, (FLOAT_ALL,), ranks=(0, 8), compile=True),
    Snippet(clamp_ops, (FLOAT_ALL,), ranks=(0, 8)),
    Snippet(abs_sign, (FLOAT_ALL,), ranks=(0, 8)),
    Snippet(float_constants, (FLOAT_ALL,), ranks=(0, 8)),
    Snippet(add_tensor_constant, (FLOAT_ALL,), ranks=(0, 8)),
    Snippet(scale_by_scalar_tensor, (FLOAT_ALL, Arg(FLOAT, SCALAR)), ranks=(0, 8)),
    Snippet(log_softmax_last, (FLOAT_ALL,), compile=True),
    Snippet(logsumexp_zloss, (FLOAT_ALL,)),
    Snippet(cross_entropy, (FLOAT_ALL, Arg(INDEX, lambda d: (d[0], *d[2:]), high=lambda d: d[1])), ranks=(2, 5)),
    Snippet(nll_sum, (FLOAT_ALL, Arg(INDEX, lambda d: d[:1], high=lambda d: d[1])), ranks=(2, 2)),
    Snippet(selected_log_probs, (FLOAT_ALL, Arg(INDEX, lambda d: d[:-1], high=_last))),
    Snippet(mse_huber, (FLOAT_ALL, FLOAT_ALL), ranks=(0, 8)),
    Snippet(cosine_similarity, (FLOAT_ALL, FLOAT_ALL), compile=True),
    Snippet(dynamic_int8_quant, (FLOAT_ALL,), edges=FINITE_EDGES),
    Snippet(dequant_int8, (Arg(INT, values=(-128, 128)), Arg(FLOAT, ROWS)), int_dtypes=(torch.int8,),
            compile=True),
    Snippet(kv_cache_index_copy, (Arg(FLOAT, lambda d: (d[0], *d[2:])), Arg(FLOAT, _kv_rows),
                                  Arg(UNIQUE, lambda d: _kv_rows(d)[:1], high=_first)), ranks=(2, 6)),
    Snippet(kv_cache_slice_assign, (FLOAT_ALL, Arg(FLOAT, lambda d: (d[0], d[1] // 2, *d[2:]))), ranks=(2, 6)),
    Snippet(embedding_scaled, (Arg(INDEX, lambda d: d[2:], high=_first), Arg(FLOAT, lambda d: d[:2])),
            ranks=(2, 5)),
    Snippet(gather_last, (FLOAT_ALL, Arg(INDEX, lambda d: (*d[:-1], 2), high=_last))),
    Snippet(index_select_rows, (FLOAT_ALL, Arg(INDEX, LAST, high=_first))),
    Snippet(scatter_add_own, (FLOAT_ALL, Arg(INDEX, high=_last))),
    Snippet(expert_counts, (Arg(INDEX, lambda d: d[1:], high=_first), Arg(FLOAT, lambda d: d[:1])), ranks=(1, 5)),
    Snippet(moe_topk_softmax, (FLOAT_ALL,), ranks=(1, 4)),
    Snippet(topk_last, (FLOAT_ALL,)),
    Snippet(greedy_argmax, (FLOAT_ALL,), ranks=(0, 8)),
    Snippet(sort_stable, (FLOAT_ALL,)),
    Snippet(top_p_filter, (FLOAT_ALL,)),
    Snippet(cumsum_dims, (FLOAT_ALL,), ranks=(0, 8)),
    Snippet(position_ids_from_mask, (Arg(INT, values=(0, 2)),), int_dtypes=(torch.int64, torch.int32, torch.bool)),
    Snippet(masked_fill_zero, (FLOAT_ALL, Arg(MASK, LAST)), compile=True),
    Snippet(where_select, (Arg(MASK), FLOAT_ALL, FLOAT_LAST), ranks=(0, 8)),
    Snippet(comparisons, (FLOAT_ALL, FLOAT_ALL), ranks=(0, 8)),
    Snippet(logical_ops, (Arg(MASK), Arg(MASK)), ranks=(0, 8), edges=()),
    Snippet(bitwise_ints, (Arg(INT), Arg(INT)), ranks=(0, 8), int_dtypes=(*SIGNED_INTS, torch.uint8), edges=()),
    Snippet(floor_div_remainder, (Arg(INT, values=(-1000, 1000)), Arg(INT, values=(-9, 10), nonzero=True)),
            ranks=(0, 8), int_dtypes=(torch.int32, torch.int64), edges=()),
    Snippet(int_constants, (Arg(INT),), ranks=(0, 8), int_dtypes=SIGNED_INTS, edges=()),
    Snippet(int_sum, (Arg(INT),), int_dtypes=(torch.int32, torch.int64, torch.uint8), edges=()),
    Snippet(clamp_pixels, (Arg(INT, values=(-300, 300)),), ranks=(0, 8), int_dtypes=(torch.int16, torch.int32),
            edges=()),
    Snippet(histogram, (FLOAT_ALL,), ranks=(0, 8)),
    Snippet(pad_last, (FLOAT_ALL,)),
    Snippet(pad_2d, (FLOAT_ALL,), ranks=(2, 8)),
    Snippet(cat_last, (FLOAT_ALL, Arg(FLOAT, lambda d: (*d[:-1], d[-1] // 2 + 1)))),
    Snippet(cat_first, (FLOAT_ALL, Arg(FLOAT, lambda d: (d[0] // 2 + 1, *d[1:])))),
    Snippet(split_sizes, (FLOAT_ALL,)),
    Snippet(repeat_last, (FLOAT_ALL,)),
    Snippet(transpose_contiguous, (FLOAT_ALL,), ranks=(2, 8)),
    Snippet(avg_pool, (FLOAT_ALL,), ranks=(4, 4)),
    Snippet(max_pool, (FLOAT_ALL,), ranks=(3, 3)),
    Snippet(interpolate_nearest, (FLOAT_ALL,), ranks=(3, 5)),
)
