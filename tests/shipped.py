"""Every kernel the project writes or ships, for the tests that check them all (the screen, the library audit)."""

from __future__ import annotations

import functools
from pathlib import Path

import torch

from torch_ascendgen.cache import SeedStore
from torch_ascendgen.capture import capture
from torch_ascendgen.generators.builtin.generator import generate_builtin

REPO = Path(__file__).resolve().parents[1]


@functools.cache
def shipped_kernels() -> dict[str, tuple[str, bool]]:
    """name -> (source, follows the contract): every built-in template variant (between them, the tasks below
    take every template, the looped one's row and column forms, both buffer counts, the sort and histc
    templates, the matmul template), every seed, every
    tests/kernels kernel."""
    x = torch.randn
    tasks = {
        "elementwise": (lambda a, b: torch.sigmoid(a) * b + 1, [x(8, 64), x(8, 64)]),
        "elementwise_half": (lambda a, b: torch.where(a > b, a, b), [x(8, 64, dtype=torch.float16)] * 2),
        "rowwise_softmax": (lambda a: torch.softmax(a, -1), [x(8, 64)]),
        "rowwise_layer_norm": (lambda a, w: torch.nn.functional.layer_norm(a, (64,), w), [x(8, 64), x(64)]),
        "reduce_all": (lambda a, b: ((a - b) ** 2).mean(), [x(64, 512), x(64, 512)]),
        "looped_columns": (lambda a: a.sum(1), [x(4, 96, 40)]),
        "looped_rows": (lambda a: torch.softmax(a, -1), [x(4, 20000)]),
        "sort_topk": (lambda a: torch.topk(a, 4), [x(8, 100)]),
        "sort_stable": (lambda a: torch.sort(a, stable=True), [x(8, 100, dtype=torch.bfloat16)]),
        "histc": (lambda a: torch.histc(a, 10, -1, 1), [x(64, 64)]),
        "matmul_gelu": (lambda a, w, b: torch.nn.functional.gelu(a @ w + b), [x(40, 24), x(24, 48), x(48)]),
    }
    kernels = {}
    for name, (function, inputs) in tasks.items():
        for candidate in generate_builtin(capture(function, inputs, name=name), 6):
            key = f"{name}: {candidate.variant['template']}, {candidate.variant['buffers']} buffer(s)"
            kernels.setdefault(key, (candidate.source, True))
    kernels.update({f"seed {seed.key[:12]}": (seed.source, True) for seed in SeedStore().all()})
    kernels.update({f"tests/kernels/{p.name}": (p.read_text(), False)
                    for p in sorted((REPO / "tests" / "kernels").glob("*.cpp"))})
    return kernels
