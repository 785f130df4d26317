"""Index expressions: sympy -> C++ (int64_t arithmetic with Python's floor semantics), and how one moves with a
loop variable.

The functions Inductor puts in index expressions (FloorDiv, ModularIndexing, CleanDiv, PythonMod, Min, Max, ...) are
printed as calls of the helpers in csrc/templates/loops.cpp (FloorDivI, ModI, MinI, MaxI).
"""

from __future__ import annotations

import sympy

from torch_ascendgen.errors import UnsupportedFunction


def cexpr(expr) -> str:
    """``expr`` as a C++ expression of int64_t values (symbols print as their names)."""
    from torch.utils._sympy import functions as f

    if isinstance(expr, bool) or expr in (sympy.true, sympy.false):
        return "true" if bool(expr) else "false"
    if isinstance(expr, int):
        return _int(expr)
    if expr.is_Integer:
        return _int(int(expr))
    if expr.is_Float:
        return f"double({float(expr)!r})"
    if expr.is_Rational:
        return f"(double({expr.p}) / double({expr.q}))"
    if expr.is_Symbol:
        return expr.name
    if isinstance(expr, f.Identity):
        return cexpr(expr.args[0])
    if isinstance(expr, f.ToFloat):
        return f"static_cast<double>({cexpr(expr.args[0])})"
    if isinstance(expr, (f.FloatTrueDiv, f.IntTrueDiv)):
        return f"(static_cast<double>({cexpr(expr.args[0])}) / static_cast<double>({cexpr(expr.args[1])}))"
    if isinstance(expr, (f.FloorToInt, f.TruncToInt, f.CeilToInt, f.RoundToInt)):
        name = {f.FloorToInt: "FloorToIntD", f.TruncToInt: "TruncToIntD", f.CeilToInt: "CeilToIntD",
                f.RoundToInt: "RoundToIntD"}[type(expr)]
        return f"{name}({cexpr(expr.args[0])})"
    if isinstance(expr, f.CeilDiv):
        return f"CeilDivI({cexpr(expr.args[0])}, {cexpr(expr.args[1])})"
    if isinstance(expr, f.PowByNatural) and expr.args[1].is_Integer:
        return "(" + " * ".join([cexpr(expr.args[0])] * int(expr.args[1])) + ")"
    if isinstance(expr, sympy.Add):
        return "(" + " + ".join(cexpr(a) for a in expr.args) + ")"
    if isinstance(expr, sympy.Mul):
        return "(" + " * ".join(cexpr(a) for a in expr.args) + ")"
    if isinstance(expr, sympy.Pow) and expr.exp.is_Integer and int(expr.exp) > 0:
        return "(" + " * ".join([cexpr(expr.base)] * int(expr.exp)) + ")"
    if isinstance(expr, f.FloorDiv):
        return f"FloorDivI({cexpr(expr.args[0])}, {cexpr(expr.args[1])})"
    if isinstance(expr, f.ModularIndexing):
        base, divisor, modulus = expr.args
        return f"ModI(FloorDivI({cexpr(base)}, {cexpr(divisor)}), {cexpr(modulus)})"
    if isinstance(expr, (f.PythonMod, f.Mod, sympy.Mod)):
        return f"ModI({cexpr(expr.args[0])}, {cexpr(expr.args[1])})"
    if isinstance(expr, (f.Max, sympy.Max)):
        return _fold("MaxI", expr.args)
    if isinstance(expr, (f.Min, sympy.Min)):
        return _fold("MinI", expr.args)
    if isinstance(expr, sympy.Abs):
        return f"AbsI({cexpr(expr.args[0])})"
    if type(expr).__name__ == "Where":  # torch.utils._sympy.functions.Where(condition, a, b): reflection padding
        condition, a, b = expr.args
        return f"({cexpr(condition)} ? {cexpr(a)} : {cexpr(b)})"
    if isinstance(expr, sympy.Piecewise):
        text = cexpr(expr.args[-1][0])
        for value, condition in reversed(expr.args[:-1]):
            text = f"({cexpr(condition)} ? {cexpr(value)} : {text})"
        return text
    relations = {sympy.Eq: "==", sympy.Ne: "!=", sympy.Lt: "<", sympy.Le: "<=", sympy.Gt: ">", sympy.Ge: ">="}
    for kind, op in relations.items():
        if isinstance(expr, kind):
            return f"({cexpr(expr.lhs)} {op} {cexpr(expr.rhs)})"
    if isinstance(expr, sympy.And):
        return "(" + " && ".join(cexpr(a) for a in expr.args) + ")"
    if isinstance(expr, sympy.Or):
        return "(" + " || ".join(cexpr(a) for a in expr.args) + ")"
    if isinstance(expr, sympy.Not):
        return f"(!{cexpr(expr.args[0])})"
    raise UnsupportedFunction(f"the loop lowering has no C++ form for {type(expr).__name__} in an index expression "
                              f"({expr})")


def _int(value: int) -> str:
    return f"int64_t({value})" if -(1 << 31) <= value < (1 << 31) else f"int64_t({value}LL)"


def _fold(name: str, args) -> str:
    text = cexpr(args[0])
    for arg in args[1:]:
        text = f"{name}({text}, {cexpr(arg)})"
    return text


def slope(expr: sympy.Expr, var: sympy.Symbol) -> sympy.Expr | None:
    """The coefficient c when ``expr`` is c * var + (something without var), c free of var; None otherwise (var
    inside a floor division, a modulus, a min/max, an indirect load...)."""
    expr = sympy.expand(expr)
    if var not in expr.free_symbols:
        return sympy.Integer(0)
    coefficient = expr.coeff(var, 1)
    rest = sympy.expand(expr - coefficient * var)
    if var in coefficient.free_symbols or var in rest.free_symbols:
        return None
    return coefficient


def at(expr: sympy.Expr, var: sympy.Symbol, value) -> sympy.Expr:
    return expr.subs(var, value)
