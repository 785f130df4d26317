"""The order among equal values that the sort kernels reproduce (csrc/templates/sort.cpp) is torch's CPU order.

torch.sort(stable=False) on CPU is std::sort and torch.topk std::partial_sort (k * 64 <= n) or std::nth_element
then std::sort of the first k - 1, over (value, index) pairs compared on the value (NaN largest). The kernel's
scalar path redoes those algorithms as libstdc++ implements them; this model of them (the same moves as the
kernel's Seq class) is checked against torch here, so that a torch build that sorts otherwise (x86-simd-sort,
another C++ library) shows up as this test failing, not only as kernels failing verification.
"""

from __future__ import annotations

import random

import pytest
import torch


class Seq:
    """libstdc++'s introsort, introselect and heap selection over a list, with ``before(a, b)``."""

    def __init__(self, items, before):
        self.a, self.before = items, before

    def median_to_first(self, result, a, b, c):
        x, less = self.a, self.before
        if less(x[a], x[b]):
            pick = b if less(x[b], x[c]) else (c if less(x[a], x[c]) else a)
        else:
            pick = a if less(x[a], x[c]) else (c if less(x[b], x[c]) else b)
        x[result], x[pick] = x[pick], x[result]

    def partition(self, first, last, pivot):
        x, less, p = self.a, self.before, self.a[pivot]
        while True:
            while less(x[first], p):
                first += 1
            last -= 1
            while less(p, x[last]):
                last -= 1
            if first >= last:
                return first
            x[first], x[last] = x[last], x[first]
            first += 1

    def partition_pivot(self, first, last):
        self.median_to_first(first, first + 1, first + (last - first) // 2, last - 1)
        return self.partition(first + 1, last, first)

    def adjust_heap(self, first, hole, length, value):
        x, less = self.a, self.before
        top = child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if less(x[first + child], x[first + child - 1]):
                child -= 1
            x[first + hole], hole = x[first + child], child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            x[first + hole], hole = x[first + child - 1], child - 1
        parent = (hole - 1) // 2
        while hole > top and less(x[first + parent], value):
            x[first + hole], hole = x[first + parent], parent
            parent = (hole - 1) // 2
        x[first + hole] = value

    def heap_select(self, first, middle, last):
        length = middle - first
        for parent in range((length - 2) // 2, -1, -1):
            self.adjust_heap(first, parent, length, self.a[first + parent])
        for i in range(middle, last):
            if self.before(self.a[i], self.a[first]):
                value, self.a[i] = self.a[i], self.a[first]
                self.adjust_heap(first, 0, length, value)

    def sort_heap(self, first, last):
        while last - first > 1:
            last -= 1
            value, self.a[last] = self.a[last], self.a[first]
            self.adjust_heap(first, 0, last - first, value)

    def insertion_sort(self, first, last):
        x, less = self.a, self.before
        for i in range(first + 1, last):
            value, j = x[i], i
            if less(value, x[first]):
                x[first + 1:i + 1] = x[first:i]
                x[first] = value
                continue
            while less(value, x[j - 1]):
                x[j] = x[j - 1]
                j -= 1
            x[j] = value

    def std_sort(self, first, last):
        stack = [(first, last, 2 * ((last - first).bit_length() - 1))] if last - first > 1 else []
        while stack:
            lo, hi, depth = stack.pop()
            while hi - lo > 16:
                if depth == 0:
                    self.heap_select(lo, hi, hi)
                    self.sort_heap(lo, hi)
                    break
                depth -= 1
                cut = self.partition_pivot(lo, hi)
                stack.append((cut, hi, depth))
                hi = cut
        self.insertion_sort(first, last)  # the final insertion sort: stable, whatever its two phases

    def nth_element(self, nth, last):
        first, depth = 0, 2 * (last.bit_length() - 1)
        while last - first > 3:
            if depth == 0:
                self.heap_select(first, nth + 1, last)
                self.a[first], self.a[nth] = self.a[nth], self.a[first]
                return
            depth -= 1
            cut = self.partition_pivot(first, last)
            first, last = (cut, last) if cut <= nth else (first, cut)
        self.insertion_sort(first, last)


def _before(descending: bool):
    def before(a, b):
        nan_a, nan_b = a[0] != a[0], b[0] != b[0]
        if descending:
            return (nan_a and not nan_b) or a[0] > b[0]
        return (nan_b and not nan_a) or a[0] < b[0]
    return before


def model_sort(values: list[float], descending: bool) -> list[int]:
    seq = Seq([(v, i) for i, v in enumerate(values)], _before(descending))
    seq.std_sort(0, len(values))
    return [i for _, i in seq.a]


def model_topk(values: list[float], k: int, largest: bool) -> list[int]:
    seq = Seq([(v, i) for i, v in enumerate(values)], _before(largest))
    n = len(values)
    if k * 64 <= n:
        seq.heap_select(0, k, n)
        seq.sort_heap(0, k)
    else:
        seq.nth_element(k - 1, n)
        seq.std_sort(0, k - 1)
    return [i for _, i in seq.a[:k]]


def _values(n: int, dtype: torch.dtype, rng: random.Random) -> torch.Tensor:
    """Values with many ties: small integers, zeros of both signs, infinities and NaN."""
    pool = [-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, float("inf"), -float("inf"), float("nan")]
    return torch.tensor([rng.choice(pool) for _ in range(n)]).to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_torch_sort_orders_ties_as_std_sort(dtype):
    rng = random.Random(0)
    for n in (2, 16, 17, 40, 100, 700):
        for descending in (True, False):
            x = _values(n, dtype, rng)
            order = torch.sort(x, descending=descending, stable=False).indices.tolist()
            assert order == model_sort(x.float().tolist(), descending), (n, descending)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_torch_topk_orders_ties_as_partial_sort_or_nth_element(dtype):
    rng = random.Random(1)
    for n, k in ((10, 1), (10, 4), (64, 1), (100, 2), (300, 4), (300, 5), (300, 50), (700, 700)):
        for largest in (True, False):
            x = _values(n, dtype, rng)
            order = torch.topk(x, k, largest=largest).indices.tolist()
            assert order == model_topk(x.float().tolist(), k, largest), (n, k, largest)


def test_torch_stable_sort_orders_ties_by_index_with_nan_largest():
    x = torch.tensor([1.0, float("nan"), -0.0, 0.0, float("inf"), float("nan"), 0.0, -0.0])
    assert torch.sort(x, descending=True, stable=True).indices.tolist() == [1, 5, 4, 0, 2, 3, 6, 7]
    assert torch.sort(x, stable=True).indices.tolist() == [2, 3, 6, 7, 0, 4, 1, 5]
