"""Test settings: one build cache for the whole suite (kernels are built once per content), and one verification
seed, so that a run is reproducible (users get a fresh secret seed per verification; tests of that unset it). And
the groups: the folder a test is in is its marker (unit, sim, pipeline, model, npu; see tests/README.md)."""

import os
from pathlib import Path

os.environ.setdefault("TORCH_ASCENDGEN_CACHE_DIR", str(Path(__file__).resolve().parent.parent / ".cache" / "test"))
os.environ.setdefault("TORCH_ASCENDGEN_VERIFY_SEED", "20261124")

GROUPS = ("unit", "sim", "pipeline", "model", "npu")


def pytest_collection_modifyitems(items):
    """Each test is marked with its folder's group unless it names its own (a module may mix unit and sim tests)."""
    for item in items:
        folder = Path(str(item.fspath)).parent.name
        if folder in GROUPS and not any(item.get_closest_marker(group) for group in GROUPS):
            item.add_marker(folder)
