"""Quickstart: three PyTorch functions become verified AscendC kernels, on the simulator.

    python examples/quickstart.py

On the first run each decorated function's first call captures it, has the built-in generator
write kernel variants, builds and checks each one against the original function on many inputs
(edge values, odd shapes), and keeps the fastest correct one on disk. The script then starts
itself again in a new process: there every function is served from the cache, with nothing
generated.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

from torch_ascendgen import ascend_kernel


@ascend_kernel
def swiglu(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    """The gated activation of Llama-style MLPs."""
    return F.silu(gate) * up


@ascend_kernel
def rms_norm(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    variance = x.float().pow(2).mean(-1, keepdim=True)
    return (x.float() * torch.rsqrt(variance + 1e-6)).to(x.dtype) * weight


@ascend_kernel
def attention_softmax(scores: torch.Tensor) -> torch.Tensor:
    return torch.softmax(scores * 0.125, dim=-1)


def run_all() -> None:
    torch.manual_seed(0)
    work = [
        (swiglu, (torch.randn(64, 512), torch.randn(64, 512))),
        (rms_norm, (torch.randn(64, 512, dtype=torch.float16), torch.rand(512, dtype=torch.float16) + 0.5)),
        (attention_softmax, (torch.randn(128, 256),)),
    ]
    for function, inputs in work:
        started = time.perf_counter()
        with torch.inference_mode():
            result = function(*inputs)
            expected = function.__wrapped__(*inputs)
        seconds = time.perf_counter() - started
        error = (result.float() - expected.float()).abs().max().item()
        (kernel,) = function.kernels()
        meta = kernel.entry.meta
        print(f"\n{function.__name__}: {kernel.origin} kernel in {seconds:.1f} s, max |error| vs PyTorch {error:.2e}")
        if kernel.origin != "cache":
            for record in meta["candidates"]:
                verdict = f"{record['time_ns'] / 1000:7.2f} us estimated" if record["ok"] else "failed"
                chosen = "  <- chosen" if record["label"] == meta["winner"]["label"] else ""
                print(f"  {record['label']:<58} {verdict}{chosen}")
            print(f"  verified at shapes {meta['verified_shapes'][:3]}"
                  f"{' ...' if len(meta['verified_shapes']) > 3 else ''}")
        print(f"  kernel source: {kernel.entry.directory / 'kernel.cpp'}")


def main() -> None:
    second_run = os.environ.get("QUICKSTART_SECOND_RUN") == "1"
    print("== " + ("second process: everything from the cache" if second_run else
                   "first process: generate, build, verify, choose"))
    run_all()
    if not second_run:
        print("\n== starting a new process")
        environment = dict(os.environ, QUICKSTART_SECOND_RUN="1")
        subprocess.run([sys.executable, __file__], env=environment, check=True)


if __name__ == "__main__":
    main()
