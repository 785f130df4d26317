"""The one path from a new signature's tensors to a kernel op, shared by ``@ascend_kernel`` and the torch.compile
backend's regions.

A front end decides when a signature needs a kernel and what runs when it gets none (guard.py); this module gets
the kernel: the task for these tensors, the kernel compiled for it (once per task key and target: another signature
with the same canonical graph reuses it), verified at these tensors' shapes, and the custom op that runs it. The
same computation has the same task key, and so the same cache entry, whichever front end it arrives through.

The task: one captured before whose call pattern takes these tensors (same dtypes and ranks, sizes that satisfy its
guards, as torch.compile's guards decide), else a new capture on the target's host copies. The op takes the call's
tensors: it reshapes them to the task's (a task collapsed to fewer dimensions), appends the task's constants, and
shapes the outputs back. Calls with empty tensors are traced at their sizes: when every output is empty too, the
original makes them (nothing to compute), else the kernel is that trace's own (a sum over an empty dimension).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Hashable
from typing import Any, NamedTuple

import torch

from torch_ascendgen.capture import KernelTask, capture
from torch_ascendgen.capture.sized import empty_source, sized_op, tensor_values
from torch_ascendgen.capture.stages import Stages, needs_stages, sized_node, split_stages
from torch_ascendgen.capture.task import value_domains
from torch_ascendgen.errors import NothingToCompute, ReturnsViews, UnsupportedFunction
from torch_ascendgen.evaluate.verify import task_input_sets, verify
from torch_ascendgen.pipeline import CompiledKernel, Options, compile_task, verify_shape
from torch_ascendgen.targets.runtime import kernel_op
from torch_ascendgen.targets.target import Target


class Kernel(NamedTuple):
    """A kernel ready to run at the shapes it was prepared for (for a function cut into stages, its kernels in turn:
    ``compiled`` is the first stage's kernel)."""

    compiled: CompiledKernel
    op: Callable[[list[torch.Tensor]], list[torch.Tensor]]  # the call's flat tensors in, its flat outputs out
    output_tree: Any  # how the function's outputs nest (pytree spec)
    task_inputs: Callable[[list[torch.Tensor]], list[torch.Tensor]]  # the call's tensors as the kernel takes them


class Kernels:
    """The kernels one decorated function or one region has got, by (task key, target), and the tasks captured for
    it, by family (what besides the tensors' sizes decides its trace: the decorator's constants, say) and target."""

    def __init__(self, name: str, options: Options):
        self.name = name
        self.options = options
        self._compiled: dict[tuple[str, Target], CompiledKernel] = {}
        self._tasks: dict[tuple[Hashable, Target], list[KernelTask]] = {}
        self._constants: dict[tuple[str, torch.device], list[torch.Tensor]] = {}
        self._stages: dict[str, Stages] = {}

    def compiled(self) -> list[CompiledKernel]:
        """Every kernel got so far, oldest first."""
        return list(self._compiled.values())

    def prepare(self, function: Callable, tensors: list[torch.Tensor], target: Target,
                family: Hashable = None, stages: bool = False) -> Kernel:
        """The kernel for ``function`` on ``tensors`` (its flat tensor inputs), verified at their shapes. Raises
        what capture, compile_task or verify_shape raise (UnsupportedFunction when there is no kernel to have).
        With ``stages``, a function that sorts around other work gets a kernel per stage (capture/stages.py)."""
        try:
            if any(t.numel() == 0 for t in tensors):
                task, binding = self._empty_task(function, tensors, target)
                if not task.data_dependent and not any(math.prod(s) for s in task.call.output_shapes(binding)):
                    # the original makes them: eager's empty results are not always its meta shapes (pixel_unshuffle)
                    raise NothingToCompute("every output is empty")
            else:
                task, binding = self._task(function, tensors, target, family)
        except ReturnsViews as mixed:
            return self._with_views(function, tensors, target, family, stages, mixed)
        if task.data_dependent and not stages:
            raise UnsupportedFunction("one of its sizes depends on the values of its inputs (nonzero, bincount, "
                                      "boolean-mask indexing); @ascend_kernel runs such functions as stages")
        if stages and needs_stages(task.graph):
            return self._staged(function, task, binding, tensors, target)
        compiled = self._compiled_for(function, task, binding, tensors, target)
        try:
            return self._verified(compiled, function, task, binding, tensors)
        except UnsupportedFunction as refused:
            if task.specialized:
                raise
            return self._specialized(function, tensors, target, refused)

    def _compiled_for(self, function: Callable, task: KernelTask, binding: dict[str, int], tensors: list[torch.Tensor],
                      target: Target) -> CompiledKernel:
        """The task's kernel: got before, or compiled now (searched at this call's shapes)."""
        compiled = self._compiled.get((task.key, target))
        if compiled is None:
            reference = task.reference(function, [tuple(t.shape) for t in tensors])
            compiled = self._compiled[(task.key, target)] = compile_task(
                _at_call_shapes(task, binding, tensors), reference, self.options, target)
        return compiled

    def _verified(self, compiled: CompiledKernel, function: Callable, task: KernelTask, binding: dict[str, int],
                  tensors: list[torch.Tensor]) -> Kernel:
        """The kernel ready for this call, verified at its shapes (verify_shape raises where it declines or fails)."""
        constants = self._device_constants(task, tensors[0].device)
        shapes = task.call.task_shapes(binding) if task.call.collapsed else None
        task_inputs = _task_inputs(shapes, constants)
        reference = task.reference(function, [tuple(t.shape) for t in tensors])
        domains = value_domains(tensors, [d.bounds if d else () for d in task.domains])
        verify_shape(compiled, reference, task_inputs(tensors), self.options, domains + [None] * len(constants))
        outputs = task.call.output_shapes(binding) if shapes is not None else None
        return Kernel(compiled, _adapted(kernel_op(compiled), shapes, outputs, constants), task.output_tree,
                      task_inputs)

    def _specialized(self, function: Callable, tensors: list[torch.Tensor], target: Target,
                     refused: UnsupportedFunction) -> Kernel:
        """A kernel of its own for shapes that the kernel of the function's shape-generic task declines or fails
        at (a window wider than a dimension, say): the function traced for these shapes only."""
        task = capture(function, target.host_copies(tensors), name=self.name, specialize=True)
        binding = task.call.binding(tensors)
        if binding is None:
            raise refused
        try:
            compiled = self._compiled_for(function, task, binding, tensors, target)
        except UnsupportedFunction as exc:
            raise UnsupportedFunction(f"{refused}; and for these shapes alone: {exc}") from None
        return self._verified(compiled, function, task, binding, tensors)

    def _with_views(self, function: Callable, tensors: list[torch.Tensor], target: Target, family: Hashable,
                    stages: bool, mixed: ReturnsViews) -> Kernel:
        """A function returning views of its inputs along with computed tensors: the kernel of its computed outputs,
        and its own view ops for the others (they alias the call's tensors, as eager's do)."""
        computed, viewed, views, constants = mixed.computed, mixed.viewed, mixed.views, list(mixed.constants)

        def compute(*flat: torch.Tensor) -> tuple[torch.Tensor, ...]:
            leaves = torch.utils._pytree.tree_leaves(function(*flat))
            return tuple(leaves[i] for i in computed)

        kernel = self.prepare(compute, tensors, target, (family, "computed"), stages)
        made = kernel.op
        count = len(computed) + len(viewed)

        def op(call: list[torch.Tensor]) -> list[torch.Tensor]:
            results: list = [None] * count
            for position, value in zip(computed, made(call)):
                results[position] = value
            for position, value in zip(viewed, views(*call, *constants)):
                results[position] = value
            return results

        return Kernel(kernel.compiled, op, mixed.output_tree, kernel.task_inputs)

    def _staged(self, function: Callable, task: KernelTask, binding: dict[str, int], tensors: list[torch.Tensor],
                target: Target) -> Kernel:
        """The function's stages, each prepared as a function of its own on the tensors the stages before it give at
        this call (so each is verified on real intermediate values and shapes), then the whole checked against the
        original at this call's shapes: rounding in one stage must not move a later sort's result."""
        if task.key not in self._stages:
            self._stages[task.key] = split_stages(task.graph)
        split = self._stages[task.key]
        constants = self._device_constants(task, tensors[0].device)
        shapes = task.call.task_shapes(binding) if task.call.collapsed else None
        task_inputs = _task_inputs(shapes, constants)
        ready: dict[str, tuple[Callable, CompiledKernel | None]] = {}
        fixed = _constant_arguments(split.top, task.argument_count)

        def run_stage(name: str, args: tuple) -> Any:
            if name not in ready:
                module = _with_constants(split.module(name), fixed.get(name, {}), task.constants)
                free = _without(args, fixed.get(name, {}))
                if not free:  # computed from the constants alone: nothing of the call's to compute
                    ready[name] = ((lambda _: split.module(name)(*args)), None)
                else:
                    ready[name] = self._stage(module, free, target, (task.key, name))
            return ready[name][0](_without(args, fixed.get(name, {})))

        chain = _StageRunner(split.top, run_stage)
        inputs = task_inputs(tensors)
        chain.run(*inputs)
        domains = value_domains(tensors, [d.bounds if d else () for d in task.domains])
        sets = task_input_sets(task, [tuple(t.shape) for t in inputs], domains=domains + [None] * len(constants))
        verdict = verify(task.reference(function, [tuple(t.shape) for t in tensors]),
                         lambda *args: chain.run(*args), sets, self.options.tolerance)
        if not verdict.ok:
            raise UnsupportedFunction(f"its stages' kernels, each verified, together differ from it at shapes "
                                      f"{[list(t.shape) for t in tensors]}: {verdict.reason}")
        kernels = tuple(compiled for _, compiled in ready.values() if compiled is not None)
        if not kernels:
            raise NothingToCompute("none of its stages computes anything")

        def op(task_level: list[torch.Tensor]) -> list[torch.Tensor]:
            return list(torch.utils._pytree.tree_leaves(chain.run(*task_level)))

        outputs = task.call.output_shapes(binding) if shapes is not None else None
        return Kernel(kernels[0], _adapted(op, shapes, outputs, constants), task.output_tree, task_inputs)

    def _stage(self, module: torch.fx.GraphModule | Callable, tensors: list[torch.Tensor], target: Target,
               family: Hashable) -> tuple[Callable, CompiledKernel | None]:
        """One stage's runner (its arguments in, its result as the stage module gives it) and its kernel; a stage
        with nothing to compute (views, getitems) runs its own ops."""
        node = sized_node(module) if isinstance(module, torch.fx.GraphModule) else None
        if node is not None:
            return self._sized_stage(module, node, tensors, target, family)
        try:
            runner = _Reprepared(self, module, target, family, tensors)
        except NothingToCompute:
            return (lambda args: module(*args)), None
        return (lambda args: torch.utils._pytree.tree_unflatten(runner(args), runner.tree)), runner.compiled

    def _sized_stage(self, module: torch.fx.GraphModule, node: torch.fx.Node, tensors: list[torch.Tensor],
                     target: Target, family: Hashable) -> tuple[Callable, CompiledKernel | None]:
        """A data-dependent op's stage (capture/sized.py): its size kernel runs and the host reads the length, then
        its kernel given that length (a carrier tensor of that size) computes the result. Values torch refuses
        (a negative count) run torch's own op, which raises its error."""
        op = sized_op(node)
        kernels: dict[str, _Reprepared] = {}

        def kernel(name: str, function: Callable, args: list[torch.Tensor]) -> list[torch.Tensor]:
            if name not in kernels:
                kernels[name] = _Reprepared(self, function, target, (family, name), args)
                return kernels[name].last
            return kernels[name](args)

        def compute(call_args: tuple, call_kwargs: dict) -> Any:
            args = tensor_values(call_args, call_kwargs)
            if empty_source(op, args):
                length, lowest = op.empty_length, 0
            else:
                length, lowest = (int(v) for v in kernel("size", op.size, args)[0].tolist())
            if lowest < 0:
                return node.target(*call_args, **call_kwargs)
            carrier = torch.empty(length, dtype=torch.uint8, device=args[0].device)
            if length == 0:
                return op.given(*args, carrier)  # empty results: nothing to compute
            return torch.utils._pytree.tree_unflatten(kernel("given", op.given, [*args, carrier]),
                                                      kernels["given"].tree)

        def run(args: tuple) -> Any:
            return _Substituted(module, node, compute).run(*args)

        run(tuple(tensors))
        return run, next((k.compiled for k in kernels.values()), None)

    def _task(self, function: Callable, tensors: list[torch.Tensor], target: Target,
              family: Hashable) -> tuple[KernelTask, dict[str, int]]:
        """A task captured before whose call pattern takes ``tensors`` (no new trace), else a new capture."""
        known = self._tasks.setdefault((family, target), [])
        for task in known:
            binding = task.call.binding(tensors)
            if binding is not None:
                return task, binding
        task = capture(function, target.host_copies(tensors), name=self.name)
        binding = task.call.binding(tensors)
        if binding is None:
            raise UnsupportedFunction(f"its capture does not describe the call it was made from (shapes "
                                      f"{[list(t.shape) for t in tensors]}); please report it")
        known.append(task)
        return task, binding

    def _device_constants(self, task: KernelTask, device: torch.device) -> list[torch.Tensor]:
        """The task's constants on ``device`` (moved once)."""
        key = (task.key, device)
        if key not in self._constants:
            self._constants[key] = [c.to(device) for c in task.constants]
        return self._constants[key]

    def _empty_task(self, function: Callable, tensors: list[torch.Tensor],
                    target: Target) -> tuple[KernelTask, dict[str, int]]:
        """Empty tensors: the function traced for these shapes only (a size of 0 is never symbolic, and sizes left
        symbolic beside it give Inductor value ranges such as [0, -1] that it cannot lower)."""
        task = capture(function, target.host_copies(tensors), name=self.name, specialize=True)
        binding = task.call.binding(tensors)
        if binding is None:
            raise UnsupportedFunction("its capture at empty sizes does not describe the call")
        return task, binding



def _task_inputs(shapes: list | None, constants: list[torch.Tensor]) -> Callable[[list[torch.Tensor]], list]:
    """The call's tensors as the task takes them: reshaped to its shapes (a collapsed task), its constants appended."""
    def task_inputs(call: list[torch.Tensor]) -> list[torch.Tensor]:
        moved = [t.reshape(s) for t, s in zip(call, shapes)] if shapes is not None else list(call)
        return moved + constants
    return task_inputs


def _at_call_shapes(task: KernelTask, binding: dict[str, int], tensors: list[torch.Tensor]) -> KernelTask:
    """The task as traced at this call's shapes: a task reused from another call of its family is searched (and its
    candidates verified) at the shapes it is called with now, not at those of the call it was captured from, which
    its kernels may decline (a long row, say) where they take these."""
    shapes = task.call.task_shapes(binding) if task.call.collapsed else [tuple(t.shape) for t in tensors]
    traced = tuple(tuple(s) for s in shapes) + tuple(tuple(c.shape) for c in task.constants)
    return task if task.specialized or traced == task.traced_shapes else dataclasses.replace(task, traced_shapes=traced)


def _constant_arguments(top: torch.fx.GraphModule, argument_count: int) -> dict[str, dict[int, int]]:
    """Per stage, which of its arguments are the task's constants: {argument position: constant index}."""
    placeholders = [n for n in top.graph.nodes if n.op == "placeholder"]
    constant_of = {node: i - argument_count for i, node in enumerate(placeholders) if i >= argument_count}
    return {str(node.target): {i: constant_of[a] for i, a in enumerate(node.args) if a in constant_of}
            for node in top.graph.nodes if node.op == "call_module"}


def _without(args: tuple, fixed: dict[int, int]) -> list:
    return [a for i, a in enumerate(args) if i not in fixed]


def _with_constants(module: torch.fx.GraphModule, fixed: dict[int, int], constants: tuple[torch.Tensor, ...]):
    """The stage as a function of its other arguments, making the task's constants it takes itself from literals
    (as the function did), so that its capture lifts them as constants: verification keeps their values (a quantile
    of 0.99 drawn as a random value would index out of range)."""
    if not fixed:
        return module

    def stage(*args: torch.Tensor) -> Any:
        given = iter(args)
        full = [_literal(constants[fixed[i]], args) if i in fixed else next(given)
                for i in range(len(args) + len(fixed))]
        return module(*full)
    return stage


def _literal(constant: torch.Tensor, args: tuple) -> torch.Tensor:
    device = args[0].device if args else constant.device
    return torch.tensor(constant.tolist(), dtype=constant.dtype, device=device)


class _Reprepared:
    """A stage's kernel op, prepared again for argument shapes its kernels decline: a stage after a data-dependent
    op gets other sizes at every call (a size of 1 traced as such, a guard that fails), which a kernel prepared for
    the first call's shapes may not take. ``last`` holds the results of the run that prepared it."""

    def __init__(self, kernels: Kernels, function: Callable, target: Target, family: Hashable,
                 tensors: list[torch.Tensor]):
        self.kernels, self.function, self.target, self.family = kernels, function, target, family
        self.prepared: list[Kernel] = []
        self.last = self._prepare([t.contiguous() for t in tensors])  # an earlier stage may give views
        self.compiled = self.prepared[0].compiled
        self.tree = self.prepared[0].output_tree

    def _prepare(self, tensors: list[torch.Tensor]) -> list[torch.Tensor]:
        try:
            kernel = self.kernels.prepare(self.function, tensors, self.target, self.family)
        except NothingToCompute:
            if not self.prepared:
                raise
            return list(torch.utils._pytree.tree_leaves(self.function(*tensors)))  # empty results at these shapes
        self.prepared.append(kernel)
        return kernel.op(tensors)

    def __call__(self, args) -> list[torch.Tensor]:
        tensors = [t.contiguous() for t in args]
        for kernel in self.prepared:
            try:
                return kernel.op(tensors)
            except ValueError:  # declined (ShapeDeclined) or not made for these shapes
                continue
        return self._prepare(tensors)


class _Substituted(torch.fx.Interpreter):
    """A stage module run with its data-dependent op's value computed by ``compute`` (its tensor arguments in)."""

    def __init__(self, module: torch.fx.GraphModule, node: torch.fx.Node, compute: Callable):
        super().__init__(module)
        self.node, self.compute = node, compute

    def run_node(self, n: torch.fx.Node) -> Any:
        if n is not self.node:
            return super().run_node(n)
        return self.compute(*self.fetch_args_kwargs_from_env(n))


class _StageRunner:
    """The stages' top graph run with each stage's module call handed to ``run_stage`` (its kernel): placeholders,
    stage calls, getitems of their results and the output are all that graph holds."""

    def __init__(self, top: torch.fx.GraphModule, run_stage: Callable[[str, tuple], Any]):
        self.nodes = list(top.graph.nodes)
        self.run_stage = run_stage

    def run(self, *inputs: torch.Tensor) -> Any:
        values: dict[torch.fx.Node, Any] = {}
        given = iter(inputs)
        for node in self.nodes:
            args = torch.fx.node.map_arg(node.args, values.__getitem__)
            if node.op == "placeholder":
                values[node] = next(given)
            elif node.op == "call_module":
                values[node] = self.run_stage(node.target, args)
            elif node.op == "call_function":
                values[node] = node.target(*args)
            elif node.op == "output":
                return args[0]
        raise AssertionError("the stages' graph has no output")


def _adapted(op: Callable, shapes: list | None, outputs: list | None, constants: list[torch.Tensor]) -> Callable:
    """``op`` taking the call's tensors: reshaped to the task's (a collapsed task), with the constants appended,
    its outputs shaped back to the call's."""
    if shapes is None and not constants:
        return op
    if shapes is None:
        return lambda inputs: op([*inputs, *constants])

    def run(inputs: list[torch.Tensor]) -> list[torch.Tensor]:
        results = op([t.reshape(s) for t, s in zip(inputs, shapes)] + constants)
        return [r.reshape(s) for r, s in zip(results, outputs)]
    return run
