"""``addmm`` split into ``mm`` and a bias add before partitioning, so that the bias joins the elementwise work
after a Linear; the splits whose add ends up in no kernel are joined again afterwards."""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.fx

from torch_ascendgen.frontends.dynamo.partition import fusible


@dataclass(frozen=True)
class Split:
    """An addmm split by split_addmm: the product, the bias add, and the view between them (or None)."""

    product: torch.fx.Node
    added: torch.fx.Node
    view: torch.fx.Node | None
    args: tuple  # addmm's (bias, x, w)


def split_addmm(graph: torch.fx.GraphModule) -> list[Split]:
    """``addmm(bias, x, w)`` (beta = alpha = 1) as ``mm(x, w) + bias``, so that the bias joins the elementwise
    work that follows a Linear; when the product is viewed to another shape with the same last dim (a Linear on
    3-D input), the bias is added after the view, where the next elementwise op reads it. rejoin_addmm undoes
    the splits whose add ends up in no kernel."""
    aten = torch.ops.aten
    splits = []
    for node in list(graph.graph.nodes):
        if node.op != "call_function" or node.target is not aten.addmm.default or node.kwargs:
            continue
        bias, x, w = node.args[:3]
        val = node.meta.get("val")
        if len(node.args) > 3 or not isinstance(val, torch.Tensor) or not _fusible_user(node):
            continue
        users = list(node.users)
        view = users[0] if len(users) == 1 and users[0].target is aten.view.default else None
        bias_val = bias.meta.get("val") if isinstance(bias, torch.fx.Node) else None
        one_row = isinstance(bias_val, torch.Tensor) and (bias_val.dim() == 1 or bias_val.shape[0] == 1)
        if view is not None and not (one_row and _keeps_last_dim(view, val)):
            view = None  # a bias of several rows broadcasts against the product's rows, not the view's
        with graph.graph.inserting_before(node):
            product = graph.graph.call_function(aten.mm.default, (x, w))
            product.meta["val"] = val
        anchor = view if view is not None else node
        with graph.graph.inserting_after(anchor):
            added = graph.graph.call_function(aten.add.Tensor, (anchor if view is not None else product, bias))
            added.meta["val"] = anchor.meta.get("val")
        if view is not None:
            view.replace_all_uses_with(added, delete_user_cb=lambda user: user is not added)  # noqa: B023 - called here
            view.args = (product, *view.args[1:])
        else:
            node.replace_all_uses_with(added)
        graph.graph.erase_node(node)
        splits.append(Split(product, added, view, (bias, x, w)))
    graph.graph.lint()
    graph.recompile()
    return splits


def rejoin_addmm(graph: torch.fx.GraphModule, splits: list[Split], in_kernels: set[torch.fx.Node]) -> None:
    """The splits whose bias add is in no kernel made addmm again (one matmul with its bias, as before)."""
    aten = torch.ops.aten
    for split in splits:
        if split.added in in_kernels:
            continue
        with graph.graph.inserting_before(split.product):
            joined = graph.graph.call_function(aten.addmm.default, split.args)
            joined.meta["val"] = split.product.meta.get("val")
        if split.view is not None:
            split.view.args = (joined, *split.view.args[1:])
            split.added.replace_all_uses_with(split.view)
        else:
            split.added.replace_all_uses_with(joined)
        graph.graph.erase_node(split.added)
        graph.graph.erase_node(split.product)
    graph.graph.lint()
    graph.recompile()


def _fusible_user(node: torch.fx.Node) -> bool:
    for user in node.users:
        if user.target is torch.ops.aten.view.default:
            return any(fusible(u) for u in user.users)
        if fusible(user):
            return True
    return False


def _keeps_last_dim(view: torch.fx.Node, val: torch.Tensor) -> bool:
    viewed = view.meta.get("val")
    return isinstance(viewed, torch.Tensor) and viewed.dim() >= 1 and str(viewed.shape[-1]) == str(val.shape[-1])
