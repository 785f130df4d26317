"""``@ascend_kernel``: the decorator, its call path and its fallbacks.

The first call with a new signature (shapes, dtypes, devices, constants) captures the function,
gets a verified kernel for it (cache, seed or search) and remembers what to do for that
signature; every later call with it is a few attribute checks (a dictionary lookup when it is
not the most recent kernel signature) and one custom-op call. Whatever cannot run as a kernel
runs as the original function, with one warning saying why (or raises, in strict mode). A
result is never wrong: a kernel runs on a shape only after passing verification at that shape.
"""

from __future__ import annotations

import functools
import sys
import types
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import torch
import torch.utils._pytree as pytree
from torch.nn.utils.stateless import _reparametrize_module

from torch_ascendgen.errors import AscendGenError, AscendGenWarning, NothingToCompute, UnsupportedFunction
from torch_ascendgen.frontends import guard
from torch_ascendgen.frontends.dispatch import Kernels
from torch_ascendgen.pipeline import CompiledKernel, Options
from torch_ascendgen.targets.target import resolve_target


def ascend_kernel(function: Callable | None = None, *, variants: int | None = None, target: str | None = None,
                  generator: str | None = None, rtol: float | None = None, atol: float | None = None,
                  strict: bool | None = None, cache_dir: str | Path | None = None, soc: str | None = None,
                  progress: bool | None = None, llm_url: str | None = None, llm_model: str | None = None):
    """Run ``function`` as generated AscendC kernels.

    Usable bare (``@ascend_kernel``) or with options (``@ascend_kernel(variants=2, strict=True)``),
    on functions and on ``nn.Module.forward``. ``generator``: "auto", "builtin" or "llm" (a local
    OpenAI-compatible model at ``llm_url``, serving ``llm_model``). Options left unset come from the
    environment (see torch_ascendgen/config.py).
    """
    options = Options.from_arguments(variants=variants, target=target, generator=generator, rtol=rtol, atol=atol,
                                     strict=strict, cache_dir=cache_dir, soc=soc, progress=progress,
                                     llm_url=llm_url, llm_model=llm_model)
    if function is None:
        return lambda f: KernelFunction(f, options)
    return KernelFunction(function, options)


class _Route(NamedTuple):
    """What calls with one signature run; for kernels on plain tensors, also the fast path's record of it."""

    handler: Callable[[tuple], Any]
    recent: tuple | None = None  # (classes, shapes, dtypes, handler): see KernelFunction.__call__
    warning: str = ""  # why this signature runs the original function (said once, after its first call)


_NO_RECENT = ((), (), (), None)


class KernelFunction:
    """A decorated function: a per-signature dispatch table in front of the original.

    The fast path serves repeated calls on plain tensors: it checks the arguments field by field against the last
    such call that ran a kernel. It passes only if ``_signature`` would give the same key (same tensor classes,
    shapes and dtypes; on the CPU, contiguous, needing no grad, as every kernel call is), so it runs the same
    handler; everything else (and a miss) goes through ``_signature`` and the dispatch table.
    """

    __slots__ = ("_recent", "__dict__", "__weakref__")  # a slot is the quickest attribute to read on every call

    def __init__(self, function: Callable, options: Options):
        functools.update_wrapper(self, function)
        self._function = function
        self._options = options
        self._dispatch: dict[Any, _Route] = {}
        self._recent = _NO_RECENT
        self._kernels = Kernels(getattr(function, "__qualname__", "function"), options)
        self._warned: set[str] = set()

    def __get__(self, instance, owner=None):
        return self if instance is None else types.MethodType(self, instance)

    def __call__(self, *args, **kwargs):
        classes, shapes, dtypes, handler = self._recent
        if handler is not None and len(args) == len(classes) and not kwargs:
            grad, index = _grad_enabled(), 0
            for arg in args:  # an index and plain attribute reads: zip or a key tuple cost microseconds here
                if (type(arg) is not classes[index] or arg.dtype is not dtypes[index] or arg.shape != shapes[index]
                        or not arg.is_cpu or not _is_contiguous(arg) or grad and arg.requires_grad):
                    break
                index += 1
            else:
                try:
                    return handler(args)
                except Exception as exc:  # noqa: BLE001 - a kernel's failure: the original runs (guard.py)
                    return self._kernel_failed(args, exc)
        return self._dispatch_call(args, kwargs)

    def kernels(self) -> list[CompiledKernel]:
        """The kernels this function has used so far (for inspection)."""
        return self._kernels.compiled()

    def route(self, *args) -> tuple[str, str]:
        """What calls with these arguments' signature run, once one has been made: ("kernel", ""), ("original",
        why: "" when it runs quietly, e.g. nothing to compute), or ("unseen", "") before the first such call. The
        warning says a reason once; this says it for every signature (for reports and tests)."""
        try:
            route = self._dispatch.get(_signature(args))
        except Exception:  # noqa: BLE001 - a signature that cannot be keyed has no route
            return "unseen", ""
        if route is None:
            return "unseen", ""
        if route.handler == self._call_original:
            return "original", route.warning
        return "kernel", ""

    def _dispatch_call(self, args: tuple, kwargs: dict):
        if kwargs:
            return self._function(*args, **kwargs) if not self._options.strict else self._refuse(
                "keyword arguments are not supported yet; pass arguments positionally")
        try:
            key = _signature(args)
            hash(key)
        except TypeError as exc:  # an unhashable constant: nothing to remember the call by
            return self._fallback(args, UnsupportedFunction(
                f"an argument cannot be told apart from call to call ({exc}); pass arrays as tensors and other "
                "constants as numbers, strings or tuples"))
        except Exception as exc:  # noqa: BLE001 - default mode: the original function, never our exception
            return self._fallback(args, exc)
        route = self._dispatch.get(key)
        if route is None:
            route = self._dispatch[key] = self._prepare(args)
            if route.warning:  # said only once the original has run: its own exceptions are the caller's
                result = route.handler(args)
                self._warn(route.warning)
                return result
        if route.recent is not None:
            self._recent = route.recent
        if route.handler == self._call_original:
            return route.handler(args)
        try:
            return route.handler(args)
        except Exception as exc:  # noqa: BLE001 - a kernel's failure: the original runs (guard.py)
            return self._kernel_failed(args, exc)

    # -- the slow path: once per signature
    def _prepare(self, args: tuple) -> _Route:
        """The route for this signature: a kernel, or (whatever fails, in default mode) the original function. A
        call that needs no kernel (NothingToCompute: every output empty, or a view of an input), or has an empty
        tensor and gets none, runs the original quietly, in strict mode too."""
        try:
            return self._kernel_route(args)
        except Exception as exc:  # noqa: BLE001 - default mode: the original function, never our exception
            if isinstance(exc, NothingToCompute) or _has_empty_tensor(args):
                return _Route(self._call_original)
            if self._options.strict:
                raise guard.typed(exc) from exc
            return _Route(self._call_original, warning=guard.reason(exc))

    def _fallback(self, args: tuple, exc: Exception):
        """The original's result for a call we could not even classify (strict: the typed error)."""
        if self._options.strict:
            raise guard.typed(exc) from exc
        result = self._function(*args)
        self._warn(guard.reason(exc))
        return result

    def _kernel_failed(self, args: tuple, exc: Exception):
        """A kernel raised at run time: this signature runs the original from now on, with one warning."""
        if self._options.strict:
            raise guard.typed(exc) from exc
        self._recent = _NO_RECENT
        try:
            self._dispatch[_signature(args)] = _Route(self._call_original)
        except Exception:  # noqa: BLE001 - unkeyable: the next call classifies it again
            pass
        return self._fallback(args, exc)

    def _kernel_route(self, args: tuple) -> _Route:
        module = args[0] if args and isinstance(args[0], torch.nn.Module) else None
        leaves, spec = pytree.tree_flatten(args[1:] if module is not None else args)
        positions = [i for i, leaf in enumerate(leaves) if isinstance(leaf, torch.Tensor)]
        state = _module_state(module)
        tensors = [leaves[i] for i in positions] + [t for _, t in state]
        _check_eligible(tensors, module)
        target = resolve_target(self._options.target, self._options.soc, {t.device for t in tensors})
        names = [name for name, _ in state]
        count = len(positions)

        def flat_function(*flat):
            values = list(leaves)
            for i, tensor in zip(positions, flat[:count]):
                values[i] = tensor
            call_args = pytree.tree_unflatten(values, spec)
            if module is None:
                return self._function(*call_args)
            with _reparametrize_module(module, dict(zip(names, flat[count:]))):
                return self._function(module, *call_args)

        strided = not all(t.is_contiguous() for t in tensors)
        if strided:
            _require_stride_free(flat_function, tensors)
            tensors = [t.contiguous() for t in tensors]
        kernel = self._kernels.prepare(flat_function, tensors, target, _signature(args, sizes=False), stages=True)
        flat = spec == pytree.tree_flatten(tuple(range(len(leaves))))[1]
        op = _contiguous_first(kernel.op) if strided else kernel.op
        handler = _call_path(op, kernel.output_tree, positions, len(leaves), module, flat)
        if module is None and flat and len(positions) == len(leaves) and target.on_host and not strided:  # fast path
            recent = (tuple(map(type, args)), tuple(t.shape for t in args), tuple(t.dtype for t in args), handler)
            return _Route(handler, recent)
        return _Route(handler)

    def _call_original(self, args: tuple):
        return self._function(*args)

    def _warn(self, reason: str) -> None:
        if reason not in self._warned:
            self._warned.add(reason)
            name = getattr(self._function, "__qualname__", "function")
            warnings.warn(f"torch_ascendgen: {name} runs as the original function: {reason}", AscendGenWarning,
                          stacklevel=_caller_level())

    def _refuse(self, reason: str):
        raise AscendGenError(reason)


def _require_stride_free(function: Callable, tensors: list[torch.Tensor]) -> None:
    """Kernels take contiguous tensors: a call with views, transposes or channels_last tensors runs its kernel on
    contiguous copies, which gives the original's values wherever the function's values do not depend on its
    inputs' strides. Traced once with the real strides (fake tensors): where the original would raise (a .view()
    those strides do not allow) the trace raises, and as_strided of an input (values read through the storage
    layout) is refused, as is an input whose elements share memory (an expand: its copy could be far larger than
    anything the call holds)."""
    from torch.fx.experimental.proxy_tensor import make_fx

    if any(t.numel() > _span(t) for t in tensors):
        raise UnsupportedFunction("it was given a tensor whose elements share memory (an expand or broadcast view), "
                                  "which a kernel would need copied out in full; pass .contiguous() tensors to use a "
                                  "kernel")

    try:
        graph = make_fx(function, tracing_mode="fake")(*tensors).graph
    except Exception as exc:
        raise UnsupportedFunction(f"it could not be traced with its inputs' strides ({type(exc).__name__}: {exc}); "
                                  "pass .contiguous() tensors to use a kernel") from exc
    for node in graph.nodes:
        if (node.op == "call_function" and "as_strided" in str(node.target) and node.args
                and getattr(node.args[0], "op", None) == "placeholder"):
            raise UnsupportedFunction("it reads a non-contiguous input through as_strided, whose values depend on "
                                      "the input's memory layout; pass .contiguous() tensors to use a kernel")


def _span(tensor: torch.Tensor) -> int:
    """How many elements of its storage a tensor reaches (fewer than its numel when elements share memory)."""
    if tensor.numel() == 0:
        return 0
    return sum((size - 1) * abs(stride) for size, stride in zip(tensor.shape, tensor.stride())) + 1


def _contiguous_first(op: Callable[[list], Any]) -> Callable[[list], Any]:
    return lambda inputs: op([t.contiguous() for t in inputs])


def _caller_level() -> int:
    """warnings.warn's stacklevel that points at the first frame outside this module: the user's call."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename == __file__:
        frame, level = frame.f_back, level + 1
    return level


def _call_path(op: Callable, tree, positions: list[int], leaf_count: int, module: torch.nn.Module | None,
               flat: bool) -> Callable[[tuple], Any]:
    """The per-call function for one signature: gather the inputs, call the op, shape the result.

    The common case (plain positional tensors, no module) avoids pytree work on every call.
    """
    single = tree.is_leaf() if hasattr(tree, "is_leaf") else False
    if flat and module is None:
        gather = list if positions == list(range(leaf_count)) else lambda args: [args[i] for i in positions]
        if single:
            return lambda args: op(gather(args))[0]
        return lambda args: pytree.tree_unflatten(op(gather(args)), tree)

    def run(args: tuple):
        leaves = pytree.tree_leaves(args[1:] if module is not None else args)
        inputs = [leaves[i] for i in positions] + [t for _, t in _module_state(module)]
        return pytree.tree_unflatten(op(inputs), tree)
    return run


_grad_enabled = torch.is_grad_enabled
_is_contiguous = torch.Tensor.is_contiguous


def _signature(args: tuple, sizes: bool = True) -> tuple:
    """What decides the dispatch: every tensor's shape, dtype, device, layout and grad state (a module's parameters
    and buffers included), and the constants. Without ``sizes``, each tensor's rank instead of its shape: the
    family of signatures whose trace differs only in sizes (dispatch.Kernels reuses a task across them when its
    guards allow)."""
    grad = _grad_enabled()
    key = []
    for arg in args:
        if isinstance(arg, torch.Tensor):
            key.append(_tensor_entry(arg, grad, sizes))
        elif isinstance(arg, torch.nn.Module):
            state = tuple((name, *_tensor_entry(t, grad, sizes)) for name, t in _module_state(arg))
            key.append((id(arg), arg.training, state))
        elif isinstance(arg, (list, tuple, dict)):
            leaves, spec = pytree.tree_flatten(arg)
            key.append((spec, _signature(tuple(leaves), sizes)))
        else:
            key.append((type(arg), arg))
    return tuple(key)


def _tensor_entry(tensor: torch.Tensor, grad: bool, sizes: bool = True) -> tuple:
    shape = tensor.shape if sizes else tensor.dim()
    return shape, tensor.dtype, tensor.device, tensor.is_contiguous(), grad and tensor.requires_grad


def _has_empty_tensor(args: tuple) -> bool:
    module = args[0] if args and isinstance(args[0], torch.nn.Module) else None
    leaves = pytree.tree_leaves(args[1:] if module is not None else args) + [t for _, t in _module_state(module)]
    return any(isinstance(leaf, torch.Tensor) and leaf.numel() == 0 for leaf in leaves)


def _module_state(module: torch.nn.Module | None) -> list[tuple[str, torch.Tensor]]:
    if module is None:
        return []
    return [*module.named_parameters(), *module.named_buffers()]


def _check_eligible(tensors: list[torch.Tensor], module: torch.nn.Module | None) -> None:
    if not tensors:
        raise UnsupportedFunction("it takes no tensor inputs")
    if torch.is_grad_enabled() and any(t.requires_grad for t in tensors):
        raise UnsupportedFunction("its inputs require grad and kernels are inference-only for now; call it under "
                                  "torch.no_grad() or torch.inference_mode()")
    if module is not None and any(isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.training
                                  for m in module.modules()):
        raise UnsupportedFunction("it holds a BatchNorm in training mode, which updates its running statistics")
