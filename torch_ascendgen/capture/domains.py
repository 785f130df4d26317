"""Integer inputs' values: which sizes they index into, so that verification draws indices the function accepts
at every shape (task.ValueDomain holds them with the values the captured call's tensor held)."""

from __future__ import annotations

from collections.abc import Callable

import torch.fx

# Ops that index a tensor with an integer one -> (the index's argument position, the indexed tensor's position, the
# dim indexed: a number, "arg1" (the argument holding it), or "list" (the index is in a list, at its dim), and
# whether negative indices count from the end).
_INDEXING = {
    "aten.embedding.default": (1, 0, 0, False),
    "aten.index_select.default": (2, 0, "arg1", False), "aten.gather.default": (2, 0, "arg1", False),
    "aten.scatter.src": (2, 0, "arg1", False), "aten.scatter.value": (2, 0, "arg1", False),
    "aten.scatter.reduce": (2, 0, "arg1", False), "aten.scatter.value_reduce": (2, 0, "arg1", False),
    "aten.scatter_add.default": (2, 0, "arg1", False), "aten.scatter_reduce.two": (2, 0, "arg1", False),
    "aten.index_copy.default": (2, 0, "arg1", False), "aten.index_add.default": (2, 0, "arg1", False),
    "aten.index_fill.int_Scalar": (2, 0, "arg1", False),
    "aten.index.Tensor": (1, 0, "list", True), "aten.index_put.default": (1, 0, "list", True),
}
# Ops through which an integer tensor's values reach an index unchanged (some of them, for where: a mask's fill)
_SAME_VALUES = {"aten.unsqueeze.default", "aten.squeeze.dim", "aten.squeeze.dims", "aten.view.default",
                "aten._unsafe_view.default", "aten.reshape.default", "aten.expand.default", "aten.clone.default",
                "aten._to_copy.default", "aten.where.self", "aten.permute.default", "aten.t.default",
                "aten.transpose.int", "aten.alias.default", "aten.slice.Tensor", "aten.select.int"}


def index_bounds(node: torch.fx.Node, size: Callable) -> tuple[tuple[int | str, bool], ...]:
    """The sizes ``node``'s (an integer input's) values index into, followed through ops that pass its values on,
    each written by ``size`` (a SymInt -> size text), with whether negative values count from the end there."""
    bounds, seen, todo = set(), set(), [node]
    while todo:
        value = todo.pop()
        for user in value.users:
            name = str(user.target)
            if name in _SAME_VALUES and user not in seen:
                seen.add(user)
                todo.append(user)
            if name in _INDEXING:
                bounds.update(_bounds_at(user, value, size))
    return tuple(sorted(bounds, key=str))


def _bounds_at(user: torch.fx.Node, value: torch.fx.Node, size: Callable) -> list[tuple[int | str, bool]]:
    position, table, dim, negative = _INDEXING[str(user.target)]
    indexed = user.args[table] if table < len(user.args) else None
    if not isinstance(indexed, torch.fx.Node) or position >= len(user.args):
        return []
    shape = indexed.meta["val"].shape
    if dim == "list":
        dims = [k for k, entry in enumerate(user.args[position]) if entry is value]
    elif user.args[position] is not value:
        return []
    else:
        dims = [user.args[1] if dim == "arg1" else dim]
    return [(size(shape[d % len(shape)]), negative) for d in dims if isinstance(d, int) and len(shape)]
