"""The ATen ops the built-in generator reduces along dimensions, and which dims a reduction node reduces.

One table for the generator's planning, the looped plan's folds and the torch.compile backend's partitioner.
"""

from __future__ import annotations

import torch.fx

# Primitive reductions, each with the fold that accumulates it in the looped plan.
FOLDS = {"aten.sum.dim_IntList": "sum", "aten.sum.default": "sum", "aten.mean.dim": "mean",
         "aten.mean.default": "mean", "aten.amax.default": "max", "aten.amin.default": "min",
         "aten.max.default": "max", "aten.min.default": "min"}

# Reductions made of primitive ones (the looped plan writes them out), normalisations among them.
COMPOSITE_REDUCTIONS = frozenset({
    "aten.max.dim", "aten.min.dim", "aten.prod.dim_int", "aten.var.correction", "aten.linalg_vector_norm.default",
    "aten._softmax.default", "aten._log_softmax.default", "aten.native_layer_norm.default"})

# Scans and flips: not reductions, but row ops like them (one row read whole, along the given dim).
ROW_SCANS = frozenset({"aten.cumsum.default", "aten.cumprod.default", "aten.flip.default"})

REDUCTIONS = frozenset(FOLDS) | COMPOSITE_REDUCTIONS | ROW_SCANS

# Ops that name one dim as their second argument.
_ONE_DIM = frozenset({"aten._softmax.default", "aten._log_softmax.default", "aten.max.dim", "aten.min.dim",
                      "aten.prod.dim_int", "aten.cumsum.default", "aten.cumprod.default"})


def reduced_dims(node: torch.fx.Node, rank: int) -> tuple[int, ...]:
    """The dims (sorted, non-negative) that the reduction ``node`` (a REDUCTIONS op) reduces over its first
    argument, of rank ``rank``. No dims given means all of them; a 0-dim input has none."""
    if not rank:
        return ()
    target = str(node.target)
    if target == "aten.native_layer_norm.default":
        dims = range(rank - len(node.args[1]), rank)
    elif target in _ONE_DIM:
        dims = [node.args[1] % rank]
    elif target == "aten.flip.default":
        dims = [d % rank for d in node.args[1]]
    else:
        position = 2 if target == "aten.linalg_vector_norm.default" else 1
        given = node.args[position] if len(node.args) > position else node.kwargs.get("dim")
        dims = [d % rank for d in given] if given else range(rank)
    return tuple(sorted(set(dims)))
