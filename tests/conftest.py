"""Test settings: one build cache for the whole suite (kernels are built once per content), and one verification
seed, so that a run is reproducible (users get a fresh secret seed per verification; tests of that unset it)."""

import os
from pathlib import Path

os.environ.setdefault("TORCH_ASCENDGEN_CACHE_DIR", str(Path(__file__).resolve().parent.parent / ".cache" / "test"))
os.environ.setdefault("TORCH_ASCENDGEN_VERIFY_SEED", "20261124")
