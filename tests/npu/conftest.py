"""The NPU tests run the whole pipeline on a real Ascend NPU (bisheng build, torch_npu launch,
verification, NPU timing, the cache). Where there is none they are skipped with the reason: which
piece is missing and how to add it. See the README's "The NPU target" for how to run them."""

from __future__ import annotations

import functools
import importlib.util

import pytest


@functools.cache
def npu_missing() -> str:
    """Why the NPU tests cannot run here ("" when they can). torch_npu is imported only if installed."""
    if importlib.util.find_spec("torch_npu") is None:
        return ("torch_npu is not installed: these tests need an Ascend NPU, the CANN toolkit and torch_npu "
                "(see the README, 'The NPU target')")
    from torch_ascendgen.errors import NpuUnavailable
    from torch_ascendgen.targets.npu.cann import current_soc, require_cann, torch_npu_module

    try:
        torch_npu_module()
        require_cann()
        current_soc(0)
    except NpuUnavailable as exc:
        return f"the NPU target is unavailable: {exc}"
    return ""


def pytest_collection_modifyitems(config, items):
    reason = npu_missing()
    for item in items:
        if "tests/npu/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.npu)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))
