"""Size text: what capture writes for computed sizes and guards is evaluated exactly as sympy would, and nothing
else is ever evaluated."""

import random

import pytest
import sympy
from torch.utils._sympy.functions import CleanDiv, FloorDiv, Max, Mod, PythonMod

from torch_ascendgen.capture.sizes import bind, evaluate, failing, holds, shape, size_text, symbols
from torch_ascendgen.errors import NotExpressible

A, B = sympy.symbols("s75 s96", integer=True, positive=True)
NAMES = {"s75": "s0", "s96": "s1"}

EXPRESSIONS = [
    A + B, 2 * A, A * B - 3, 3 - A, FloorDiv(B + 1, 2), B - FloorDiv(B + 1, 2), 3 * FloorDiv(A, 2),
    -FloorDiv(A, 2) * B, CleanDiv(2 * A, 2), Mod(A * B, 4), PythonMod(A, 3) - 1, Max(1, B - 3), A ** 2,
    (A + B) * (A - B), sympy.Eq(Mod(A * B, 2 * A), 0), sympy.Ne(A * B, 2 * A), A * B - 3 * A >= 2, A < B,
    sympy.Eq(FloorDiv(B + FloorDiv(B + 1, 2) - 1, FloorDiv(B + 1, 2)), 2), sympy.And(A > 3, B <= 5),
    sympy.Or(A > 3, sympy.Eq(B, 2)),
]


@pytest.mark.parametrize("expr", EXPRESSIONS, ids=str)
def test_written_sizes_evaluate_as_sympy_does(expr):
    text = size_text(expr, NAMES)
    generator = random.Random(0)
    for _ in range(60):
        a, b = generator.randint(2, 64), generator.randint(2, 64)
        expected = expr.subs({A: a, B: b})
        got = evaluate(text, {"s0": a, "s1": b})
        assert (bool(expected) == got) if isinstance(got, bool) else int(expected) == got, (text, a, b)


def test_what_size_text_cannot_write_is_refused():
    for expr in (A / 3, sympy.Float(0.5) * A, sympy.sqrt(A), sympy.Symbol("u0", integer=True) + A):
        with pytest.raises(NotExpressible):
            size_text(expr, NAMES)


@pytest.mark.parametrize("text", ["__import__('os').system('true')", "s0.real", "s0 ** 100", "lambda: 1", "[1][0]",
                                  "max(s0, key=abs)", "s0 if s1 else 2", "open('x')", "(s0).bit_length()"])
def test_only_size_text_is_evaluated(text):
    with pytest.raises(ValueError, match="size text|powers"):
        evaluate(text, {"s0": 3, "s1": 4})


def test_binding_reads_plain_symbols_and_checks_the_sizes_written_from_them():
    specs = [("s0", "s1"), ("s2", "s1"), ("s0 + s2", "s1"), (1, "s1")]
    assert bind(specs, [(4, 8), (3, 8), (7, 8), (1, 8)]) == {"s0": 4, "s1": 8, "s2": 3}
    for shapes, reason in [([(4, 8), (3, 9), (7, 8), (1, 8)], "equal"),
                           ([(4, 8), (3, 8), (6, 8), (1, 8)], r"s0 \+ s2 = 7"),
                           ([(4, 8), (3, 8), (7, 8), (2, 8)], "made for 1"), ([(4, 8)] * 3, "tensors")]:
        with pytest.raises(ValueError, match=reason):
            bind(specs, shapes)
    assert shape(("s0 // 2", 3, "2*s1"), {"s0": 9, "s1": 4}) == (4, 3, 8)


def test_guards_hold_or_name_the_one_that_fails():
    guards = ("s1 % 2 == 0", "s0 >= 3")
    assert holds(guards, {"s0": 3, "s1": 8})
    assert failing(guards, {"s0": 3, "s1": 7}) == "s1 % 2 == 0"
    assert failing(guards, {"s1": 8}) == "s0 >= 3"  # a guard that cannot be evaluated does not hold
    assert symbols("max(s0, s1 // 2) + s3") == {"s0", "s1", "s3"}
