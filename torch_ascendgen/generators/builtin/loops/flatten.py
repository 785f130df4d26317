"""A program variant whose pointwise passes walk their last two ranges as one: rows of a short last dimension
(a head of 64 or 128, a handful of experts) fill a tile together instead of one short tile per row.

An index that moves along the merged range as it did along the rows (a * row + b * column with a = b * columns)
becomes b * index; any other (a per-row value, a per-column weight) becomes a floor division or a modulus of it,
which the vector gather (gather.py) loads with one span copy and one Gather.
"""

from __future__ import annotations

import dataclasses

import sympy

from torch_ascendgen.generators.builtin.loops.cexpr import slope
from torch_ascendgen.generators.builtin.loops.ir import Node, Pass, Program, Region, index_vars

_INDEXED = ("load", "store", "store_add", "index_expr")


def merged_rows(program: Program) -> Program | None:
    """The program with every pointwise pass of two or more ranges merged; None when no pass has them."""
    passes = [_merged(item) for item in program.passes]
    if all(new is old for new, old in zip(passes, program.passes)):
        return None
    return dataclasses.replace(program, passes=passes)


def _merged(item: Pass) -> Pass:
    """The pass with its last two ranges merged, where every index either moves along them alike or along one of
    them only (a per-row value, a per-column weight: a small span); else the pass itself."""
    if item.kind != "pointwise" or len(item.ranges) < 2 or item.regions or any(
            node.op == "indirect" for node in item.nodes):
        return item
    rows, columns = item.index_vars[-2], item.index_vars[-1]
    width = item.ranges[-1]
    merged = index_vars(len(item.ranges) - 1)[-1]
    ranges = (*item.ranges[:-2], item.ranges[-2] * width)

    def rewrite(expr):
        if not hasattr(expr, "free_symbols") or not expr.free_symbols & {rows, columns}:
            return expr
        along_rows, along_columns = slope(expr, rows), slope(expr, columns)
        if along_rows is None or along_columns is None:
            raise _NotMerged()
        if sympy.simplify(along_rows - along_columns * width) == 0:
            rest = sympy.expand(expr - along_rows * rows - along_columns * columns)
            return along_columns * merged + rest
        if along_rows != 0 and along_columns != 0:
            raise _NotMerged()
        from torch.utils._sympy.functions import FloorDiv, ModularIndexing

        return expr.xreplace({rows: FloorDiv(merged, width), columns: ModularIndexing(merged, 1, width)})

    new_item = Pass(item.name, item.kind, ranges, item.reduction_ranges)
    mapping: dict[Node, Node] = {}
    try:
        for node in item.nodes:
            args = tuple(mapping.get(a, a) if isinstance(a, Node) else a for a in node.args)
            if node.op in _INDEXED:
                position = 0 if node.op == "index_expr" else 1
                args = (*args[:position], rewrite(args[position]), *args[position + 1:])
            mapping[node] = Node(node.id, node.op, args, node.dtype, node.region)
            new_item.nodes.append(mapping[node])
    except _NotMerged:
        return item
    new_item.regions = {n: Region(r.number, mapping[r.mask], r.parent) for n, r in item.regions.items()}
    return new_item


class _NotMerged(Exception):
    """An index that moves along both ranges otherwise than together: merging would gather it lane by lane."""
