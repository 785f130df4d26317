"""Size text: how a task writes sizes that are not plain symbols ("s0 + s1", "(s1 // 2)") and the conditions its
kernel holds under (guards, "s1 % 2 == 0"), and how those are evaluated for the sizes of a call.

The text is a small subset of Python's expression syntax, written here from the sympy expressions the trace
gives (``size_text``) in the task's symbol names (s0, s1, ...): integers, symbols, ``+ - * // % **``, comparisons,
``and or not`` and ``max``/``min``. It is evaluated by walking its syntax tree (``evaluate``): only those nodes are
accepted, on Python integers, with the values of the named symbols and nothing else; no text is ever ``eval``-ed.
"""

from __future__ import annotations

import ast
import functools
import operator
from collections.abc import Callable, Mapping, Sequence

from torch_ascendgen.errors import NotExpressible

MAX_EXPONENT = 8  # ``a ** n`` with a larger n is refused (sizes never need it; evaluation stays cheap)


# ---- writing: sympy -> text --------------------------------------------------------------------------------

_ATOM, _POWER, _UNARY, _PRODUCT, _SUM, _COMPARE, _NOT, _AND, _OR = 100, 90, 80, 70, 60, 50, 40, 30, 20


def size_text(expr, names: Mapping[str, str]) -> str:
    """``expr`` (a sympy expression or relation over the trace's symbols) as size text, each symbol renamed by
    ``names``; raises NotExpressible for anything else (a float, a function the text does not have)."""
    return _write(expr, names)[0]


def _write(expr, names: Mapping[str, str]) -> tuple[str, int]:
    import sympy

    if expr is sympy.true or expr is sympy.false:
        return ("True" if expr is sympy.true else "False"), _ATOM
    if isinstance(expr, sympy.Integer):
        value = int(expr)
        return str(value), (_ATOM if value >= 0 else _UNARY)
    if isinstance(expr, sympy.Symbol):
        if expr.name not in names:
            raise NotExpressible(f"the symbol {expr.name} is not a size of an input")
        return names[expr.name], _ATOM
    writer = _WRITERS.get(type(expr).__name__)
    if writer is None:
        raise NotExpressible(f"{type(expr).__name__} ({expr}) has no size text")
    return writer(expr, names)


def _operand(expr, names, precedence: int, right: bool = False) -> str:
    """``expr`` written as an operand of an operator of ``precedence`` (parenthesised when it binds less tightly;
    a right operand of equal precedence too, as Python's operators here are left-associative)."""
    text, own = _write(expr, names)
    return f"({text})" if own < precedence or (right and own == precedence) else text


def _add(expr, names) -> tuple[str, int]:
    terms = list(expr.args)
    text = _operand(terms[0], names, _SUM)
    for term in terms[1:]:
        negated = -term
        if _is_negative(term):
            text += " - " + _operand(negated, names, _SUM, right=True)
        else:
            text += " + " + _operand(term, names, _SUM, right=True)
    return text, _SUM


def _is_negative(term) -> bool:
    coefficient, _ = term.as_coeff_Mul()
    return bool(coefficient.is_negative)


def _mul(expr, names) -> tuple[str, int]:
    import sympy

    coefficient, rest = expr.as_coeff_Mul()
    if not coefficient.is_Integer:
        raise NotExpressible(f"{expr} has a fractional coefficient")
    if coefficient == -1:
        return "-" + _operand(rest, names, _UNARY), _UNARY
    factors = list(sympy.Mul.make_args(rest))
    text = "*".join(_operand(f, names, _PRODUCT, right=i > 0 or coefficient != 1) for i, f in enumerate(factors))
    return (text if coefficient == 1 else f"{int(coefficient)}*{text}"), _PRODUCT


def _pow(expr, names) -> tuple[str, int]:
    base, exponent = expr.args
    if not (getattr(exponent, "is_Integer", False) and 0 <= int(exponent) <= MAX_EXPONENT):
        raise NotExpressible(f"{expr} is not a power with a small natural exponent")
    return f"{_operand(base, names, _POWER + 1)}**{int(exponent)}", _POWER


def _binary(symbol: str, precedence: int) -> Callable:
    def write(expr, names) -> tuple[str, int]:
        left, right = expr.args
        return f"{_operand(left, names, precedence)} {symbol} {_operand(right, names, precedence, right=True)}", \
            precedence
    return write


def _call(name: str) -> Callable:
    def write(expr, names) -> tuple[str, int]:
        return f"{name}({', '.join(_write(a, names)[0] for a in expr.args)})", _ATOM
    return write


def _joined(word: str, precedence: int) -> Callable:
    def write(expr, names) -> tuple[str, int]:
        return f" {word} ".join(_operand(a, names, precedence + 1) for a in expr.args), precedence
    return write


def _not(expr, names) -> tuple[str, int]:
    return "not " + _operand(expr.args[0], names, _NOT), _NOT


def _identity(expr, names) -> tuple[str, int]:
    return _write(expr.args[0], names)


_WRITERS: dict[str, Callable] = {
    "Add": _add, "Mul": _mul, "Pow": _pow, "PowByNatural": _pow,
    "FloorDiv": _binary("//", _PRODUCT), "CleanDiv": _binary("//", _PRODUCT),
    "Mod": _binary("%", _PRODUCT), "PythonMod": _binary("%", _PRODUCT),
    "Max": _call("max"), "Min": _call("min"), "Identity": _identity,
    "Equality": _binary("==", _COMPARE), "Unequality": _binary("!=", _COMPARE),
    "StrictLessThan": _binary("<", _COMPARE), "LessThan": _binary("<=", _COMPARE),
    "StrictGreaterThan": _binary(">", _COMPARE), "GreaterThan": _binary(">=", _COMPARE),
    "And": _joined("and", _AND), "Or": _joined("or", _OR), "Not": _not,
}


# ---- reading: text -> value --------------------------------------------------------------------------------


def evaluate(text: str, binding: Mapping[str, int]) -> int | bool:
    """The value of size text for these symbol values; ValueError for a symbol without a value, a division by
    zero or text outside the size language."""
    try:
        return _compiled(text)(binding)
    except KeyError as exc:
        raise ValueError(f"{text!r} needs a value for {exc.args[0]}") from None
    except ZeroDivisionError:
        raise ValueError(f"{text!r} divides by zero for {dict(binding)}") from None


def symbols(text: str) -> set[str]:
    """The symbols ``text`` names."""
    return {node.id for node in ast.walk(ast.parse(text, mode="eval")) if isinstance(node, ast.Name)
            and node.id not in ("max", "min")}


def holds(guards: Sequence[str], binding: Mapping[str, int]) -> bool:
    """Whether every guard is true for these symbol values (one that cannot be evaluated is not)."""
    return failing(guards, binding) is None


def failing(guards: Sequence[str], binding: Mapping[str, int]) -> str | None:
    """The first guard that is not true for these symbol values, or None."""
    for guard in guards:
        try:
            if not evaluate(guard, binding):
                return guard
        except ValueError:
            return guard
    return None


def bind(specs: Sequence[Sequence[int | str]], shapes: Sequence[Sequence[int]]) -> dict[str, int]:
    """Symbol values from actual shapes: every size that is a symbol gives its value (equal wherever it appears),
    then every size written as an expression must equal its value. ValueError names the first mismatch."""
    if len(specs) != len(shapes):
        raise ValueError(f"{len(shapes)} tensors where the kernel takes {len(specs)}")
    binding: dict[str, int] = {}
    for spec, shape in zip(specs, shapes):
        if len(spec) != len(shape):
            raise ValueError(f"rank {len(shape)} where the kernel was made for rank {len(spec)}")
        for expected, actual in zip(spec, shape):
            if isinstance(expected, int):
                if expected != actual:
                    raise ValueError(f"a dimension of {actual} where the kernel was made for {expected}")
            elif expected.isidentifier() and binding.setdefault(expected, int(actual)) != actual:
                raise ValueError(f"sizes {binding[expected]} and {actual} that the kernel needs to be equal")
    for spec, shape in zip(specs, shapes):
        for expected, actual in zip(spec, shape):
            if isinstance(expected, str) and not expected.isidentifier() and evaluate(expected, binding) != actual:
                raise ValueError(f"a dimension of {actual} where the kernel needs {expected} = "
                                 f"{evaluate(expected, binding)}")
    return binding


def shape(spec: Sequence[int | str], binding: Mapping[str, int]) -> tuple[int, ...]:
    """A spec's sizes for these symbol values."""
    return tuple(size if isinstance(size, int) else int(evaluate(size, binding)) for size in spec)


@functools.lru_cache(maxsize=4096)
def _compiled(text: str) -> Callable[[Mapping[str, int]], int | bool]:
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"{text!r} is not size text: {exc.msg}") from None
    return _node(tree.body, text)


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
           ast.Mod: operator.mod}
_COMPARISONS = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
                ast.Gt: operator.gt, ast.GtE: operator.ge}
_FUNCTIONS = {"max": max, "min": min}


def _node(node: ast.AST, text: str) -> Callable[[Mapping[str, int]], int | bool]:
    if isinstance(node, ast.Constant) and type(node.value) in (int, bool):
        value = node.value
        return lambda binding: value
    if isinstance(node, ast.Name) and node.id not in _FUNCTIONS:
        name = node.id
        return lambda binding: binding[name]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        op, left, right = _BINARY[type(node.op)], _node(node.left, text), _node(node.right, text)
        return lambda binding: op(left(binding), right(binding))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        exponent = node.right.value if isinstance(node.right, ast.Constant) else None
        if type(exponent) is not int or not 0 <= exponent <= MAX_EXPONENT:
            raise ValueError(f"{text!r}: only powers with a natural exponent up to {MAX_EXPONENT}")
        base = _node(node.left, text)
        return lambda binding: base(binding) ** exponent
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
        operand = _node(node.operand, text)
        if isinstance(node.op, ast.USub):
            return lambda binding: -operand(binding)
        return lambda binding: not operand(binding)
    if isinstance(node, ast.Compare) and all(type(op) in _COMPARISONS for op in node.ops):
        return _comparison(node, text)
    if isinstance(node, ast.BoolOp):
        values = [_node(v, text) for v in node.values]
        if isinstance(node.op, ast.And):
            return lambda binding: all(v(binding) for v in values)
        return lambda binding: any(v(binding) for v in values)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS
            and node.args and not node.keywords):
        function, arguments = _FUNCTIONS[node.func.id], [_node(a, text) for a in node.args]
        return lambda binding: function(a(binding) for a in arguments)
    raise ValueError(f"{text!r} is not size text ({type(node).__name__} is not part of it)")


def _comparison(node: ast.Compare, text: str) -> Callable[[Mapping[str, int]], bool]:
    operands = [_node(node.left, text), *(_node(c, text) for c in node.comparators)]
    ops = [_COMPARISONS[type(op)] for op in node.ops]

    def compare(binding: Mapping[str, int]) -> bool:
        values = [operand(binding) for operand in operands]
        return all(op(a, b) for op, a, b in zip(ops, values, values[1:]))
    return compare
