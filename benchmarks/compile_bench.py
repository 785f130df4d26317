"""torch.compile(model, backend="ascendgen") on small models, side by side in one run:

- regions of the model's graphs turned into kernels (of all regions the partitioner found), and for each kernel
  its ops, its estimate and eager's estimate of the same ops;
- compile time: the first call of the compiled model in a fresh process, cold (an empty kernel cache:
  every region is searched; the simulator's content-hashed builds of earlier runs on this machine may
  be reused) and warm (a second fresh process on that cache);
- estimated NPU time of the model's graphs with the kernels against eager PyTorch (simulator). Kernels:
  the simulator's cost model at the model's shapes. Eager: every ATen op of the graph priced on the cost
  model's own assumptions (frontends/dynamo/region.py EAGER_LAUNCH_NS: a 3 us launch, its blocks'
  dispatch, a GM latency) plus the bytes it reads and writes at the SoC's HBM bandwidth (soc.py
  hbm_gb_per_s); views are free. A matrix product (mm, bmm, addmm) is priced as the cost model prices a
  matmul kernel's cube work (region.py cube_ns: one 16 x 16 x k0 fractal multiply a cycle per cube core,
  k0 = 32 bytes of the input type, cost_model.h), the longer of that and its bytes, so that a kernel that
  fuses a Linear or an attention score with the work after it (the "linear" and "attention" models) is
  compared with eager's product and eager's epilogue ops on one scale. A region whose kernel is not
  estimated faster than its eager ops stays eager.

    python benchmarks/compile_bench.py
    python benchmarks/compile_bench.py --models linear,attention    # a subset
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import textwrap

import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from backend_models import MLP, RMSNorm  # noqa: E402  (shared with tests/pipeline/test_backend.py)


class Block(nn.Module):
    """A LLaMA-style block: rms-norm, attention (softmax), residual, rms-norm, SwiGLU MLP, residual."""

    def __init__(self, d=256, heads=4, hidden=512):
        super().__init__()
        self.norm1, self.norm2, self.heads = RMSNorm(d), RMSNorm(d), heads
        self.qkv, self.proj = nn.Linear(d, 3 * d, bias=False), nn.Linear(d, d, bias=False)
        self.gate, self.up, self.down = (nn.Linear(d, hidden, bias=False), nn.Linear(d, hidden, bias=False),
                                         nn.Linear(hidden, d, bias=False))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        scores = torch.softmax((q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // self.heads)), dim=-1)
        h = x + self.proj((scores @ v).transpose(1, 2).reshape(b, t, d))
        n = self.norm2(h)
        return h + self.down(F.silu(self.gate(n)) * self.up(n))


class LossHead(nn.Module):
    """A classifier head and its loss: Linear -> smooth-L1 against a target, reduced to one value."""

    def __init__(self, d=256, classes=128):
        super().__init__()
        self.fc = nn.Linear(d, classes)

    def forward(self, x, target):
        return F.smooth_l1_loss(self.fc(x), target)


class LinearAct(nn.Module):
    """Linear + bias + an activation (GELU, then SiLU after a second Linear): each one kernel, product and epilogue."""

    def __init__(self, d=128, hidden=256):
        super().__init__()
        self.up, self.gate = nn.Linear(d, hidden), nn.Linear(hidden, d)

    def forward(self, x):
        return F.silu(self.gate(F.gelu(self.up(x))))


class AttentionScores(nn.Module):
    """An attention block's scores: softmax(q @ k^T * scale) over rows that fit, then the weighted sum of v."""

    def forward(self, q, k, v):
        scores = torch.softmax((q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1])), dim=-1)
        return scores @ v


MODELS = {
    "linear": (LinearAct, lambda: (torch.randn(2, 32, 128),)),
    "attention": (AttentionScores, lambda: tuple(torch.randn(2, 4, 128, 64) for _ in range(3))),
    "mlp": (lambda: MLP(256, 1024), lambda: (torch.randn(64, 256),)),
    "block": (Block, lambda: (torch.randn(2, 64, 256),)),
    "loss": (LossHead, lambda: (torch.randn(64, 256), torch.randn(64, 128))),
}

CHILD = """
import json, sys, time
sys.path.insert(0, {bench_dir!r})
started = time.perf_counter()
import torch
from compile_bench import MODELS
from torch_ascendgen import reports
model_class, make_inputs = MODELS[{model!r}]
torch.manual_seed(0)
model = model_class().eval()
inputs = make_inputs()
compiled = torch.compile(model, backend="ascendgen", options={{"variants": {variants}, "progress": False,
                                                                "cache_dir": {cache_dir!r}}})
with torch.no_grad():
    first = time.perf_counter()
    out = compiled(*inputs)
    seconds = time.perf_counter() - first
    torch.testing.assert_close(out, model(*inputs), rtol=1e-4, atol=1e-4)
graphs = reports()
print("RESULT", json.dumps({{
    "seconds": seconds, "process_seconds": time.perf_counter() - started,
    "regions": sum(len(r.regions) for r in graphs), "kernels": sum(len(r.kernels) for r in graphs),
    "origins": [k.origin for r in graphs for k in r.kernels],
    "compiled_ns": sum(r.compiled_ns for r in graphs), "eager_ns": sum(r.eager_ns for r in graphs),
    "eager_reasons": [g.reason[:140] for r in graphs for g in r.regions if not g.kernel],
    "kernel_regions": [(g.ops, g.kernel_ns, g.eager_ns) for r in graphs for g in r.regions if g.kernel],
}}))
"""


def run_child(model: str, cache_dir: str, variants: int) -> dict:
    code = textwrap.dedent(CHILD.format(bench_dir=os.path.dirname(os.path.abspath(__file__)), model=model,
                                        cache_dir=cache_dir, variants=variants))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"{model}: {done.stderr[-3000:]}")
    return json.loads(next(line[7:] for line in done.stdout.splitlines() if line.startswith("RESULT ")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated: " + ", ".join(MODELS))
    parser.add_argument("--variants", type=int, default=4, help="kernel variants searched per region")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="ascendgen_compile_bench_") as cache_dir:
        for model in args.models.split(","):
            cold = run_child(model, cache_dir, args.variants)
            warm = run_child(model, cache_dir, args.variants)
            rows.append((model, cold, warm))
    print(f"torch.compile(model, backend='ascendgen'), variants={args.variants}, simulator "
          f"(first call of the compiled model in a fresh process; cold: empty kernel cache, warm: a second process)")
    header = (f"{'model':<9} {'kernels/regions':>15} {'cold s':>8} {'warm s':>8} {'est. NPU us: kernels':>21} "
              f"{'eager':>9} {'speed-up':>9}  warm origins")
    print(header)
    print("-" * len(header))
    for model, cold, warm in rows:
        speedup = cold["eager_ns"] / cold["compiled_ns"] if cold["compiled_ns"] else float("nan")
        print(f"{model:<9} {cold['kernels']:>7}/{cold['regions']:<7} {cold['seconds']:8.2f} {warm['seconds']:8.2f} "
              f"{cold['compiled_ns'] / 1000:21.2f} {cold['eager_ns'] / 1000:9.2f} {speedup:8.2f}x  "
              f"{','.join(sorted(set(warm['origins']))) or '-'}")
        for ops, kernel_ns, eager_ns in cold["kernel_regions"]:
            names = ", ".join(op.replace("aten.", "").replace(".default", "") for op in ops)
            estimate = f"{kernel_ns / 1000:.2f}" if kernel_ns is not None else "?"
            print(f"{'':<9}kernel: {estimate} us vs eager {eager_ns / 1000:.2f} us  [{names}]")
        for reason in dict.fromkeys(cold["eager_reasons"]):
            print(f"{'':<9}eager region: {reason}")
    print("\nEstimated NPU time of the model's graphs. Kernels: the simulator's cost model at the model's shapes. "
          "Eager: each ATen op's bytes read and written at the SoC's HBM bandwidth (soc.py hbm_gb_per_s) plus the "
          "cost model's launch, block dispatch and GM latency (frontends/dynamo/region.py); views free; matrix "
          "products priced with the cube cost model a matmul kernel gets (region.py cube_ns). A region whose kernel "
          "is not estimated faster stays eager.")


if __name__ == "__main__":
    main()
