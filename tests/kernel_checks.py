"""Helpers the simulator tests share: where a marked line of a kernel source is, and a launch that must fail."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from torch_ascendgen.errors import SimulatorError


def marked_line(source: str, marker: str) -> int:
    """The 1-based number of the one line of ``source`` that ends with ``marker`` (a comment such as ``// @op``)."""
    hits = [i + 1 for i, text in enumerate(source.splitlines()) if text.rstrip().endswith(marker)]
    assert len(hits) == 1, marker
    return hits[0]


def expect_error(kind: str, fn: Callable, *args, **kwargs) -> SimulatorError:
    """The SimulatorError of kind ``kind`` that ``fn(*args, **kwargs)`` must raise."""
    with pytest.raises(SimulatorError) as info:
        fn(*args, **kwargs)
    assert info.value.kind == kind, info.value.message
    return info.value
