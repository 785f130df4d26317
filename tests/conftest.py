"""Test settings: one build cache for the whole suite (kernels are built once per content)."""

import os
from pathlib import Path

os.environ.setdefault("TORCH_ASCENDGEN_CACHE_DIR", str(Path(__file__).resolve().parent.parent / ".cache" / "test"))
