"""Error types. Each carries structured fields and says what to do about it."""

from __future__ import annotations


class AscendGenError(RuntimeError):
    """Base of every torch_ascendgen error."""


class AscendGenWarning(UserWarning):
    """A decorated function runs as the original, or without the model it asked for (the message says why)."""


class KernelBuildError(AscendGenError):
    """The C++ compiler rejected a kernel source. ``log`` holds the trimmed compiler output."""

    def __init__(self, message: str, log: str = "", command: str = ""):
        super().__init__(message)
        self.log = log
        self.command = command

    def __reduce__(self):
        return (type(self), (self.args[0], self.log, self.command))


class SimulatorError(AscendGenError):
    """A kernel broke a hardware rule while running on the simulator.

    ``kind`` names the rule (for example ``"gm_out_of_bounds"``), ``file``/``line`` the kernel
    source line that broke it and ``block`` the logical core it ran on.
    """

    def __init__(self, kind: str, message: str, file: str = "", line: int = 0, block: int = -1, source_line: str = ""):
        self.kind = kind
        self.message = message
        self.file = file
        self.line = line
        self.block = block
        self.source_line = source_line
        super().__init__(self._render())

    def _render(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else "kernel"
        text = f"[{self.kind}] {where} (block {self.block}): {self.message}"
        if self.source_line:
            text += f"\n    {self.line} | {self.source_line.rstrip()}"
        return text

    def __reduce__(self):
        return (type(self), (self.kind, self.message, self.file, self.line, self.block, self.source_line))


class KernelArgumentError(AscendGenError, ValueError):
    """The arguments given to a kernel launch do not match the kernel's parameters."""


class KernelCrashError(AscendGenError):
    """An isolated kernel run killed its child process (a signal or an unexpected exit)."""


class KernelTimeoutError(AscendGenError):
    """An isolated kernel run did not finish within its time limit (a hang or an endless loop)."""


class UnsupportedFunction(AscendGenError):
    """A function cannot become a kernel (yet); the reason says why. It runs as the original."""


class NothingToCompute(UnsupportedFunction):
    """A call that needs no kernel: its outputs are all empty, or all views of its inputs (which eager makes
    without copying). The original runs, quietly."""


class ReturnsViews(UnsupportedFunction):
    """Some of a function's outputs are views of its inputs, the others computed: a kernel takes the computed ones
    and ``views`` (a GraphModule over the call's tensors and the function's constants) makes the others, as eager
    does. ``computed``/``viewed``: their positions among the flat outputs; ``output_tree``: how they nest."""

    def __init__(self, views, computed: tuple[int, ...], viewed: tuple[int, ...], constants: tuple, output_tree):
        super().__init__("it returns some of its inputs (or views of them) along with computed tensors")
        self.views, self.computed, self.viewed = views, computed, viewed
        self.constants, self.output_tree = constants, output_tree


class ModelUnavailable(AscendGenError):
    """The model server could not be reached or refused the request; the message names the URL and the fix."""


class ScreenRejected(AscendGenError):
    """A model's reply was rejected before any build; ``reason`` goes back to the model."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason

    def __reduce__(self):
        return (type(self), (self.reason,))


class LibraryRefused(AscendGenError):
    """A built kernel library was refused before anything loaded it (library_audit.py).

    ``check`` names the rule ("imports", "address_taken", "system_call", "load_time_code",
    "unreadable"), ``found`` what broke it (symbol names, or function names holding system-call
    instructions), ``reason`` why that is refused, ``fix`` what the kernel should do instead, and
    ``library`` the file's path (kept out of the message: the message goes back to the model).
    """

    def __init__(self, check: str, found: tuple[str, ...], reason: str, fix: str, library: str = ""):
        self.check = check
        self.found = tuple(found)
        self.reason = reason
        self.fix = fix
        self.library = library
        shown = ", ".join(f"`{name}`" for name in self.found[:8])
        more = f" (and {len(self.found) - 8} more)" if len(self.found) > 8 else ""
        super().__init__(f"the built kernel was refused: {reason}: {shown}{more}. {fix}")

    def __reduce__(self):
        return (type(self), (self.check, self.found, self.reason, self.fix, self.library))


class NpuUnavailable(AscendGenError):
    """The NPU target cannot be used here: CANN, bisheng, torch_npu or a device is missing or broken.
    The message names what is missing and the fix."""


class InternalError(AscendGenError):
    """torch_ascendgen itself failed: a bug, not the function's or a kernel's fault. Raised in strict mode (the
    original exception is its ``__cause__``); in default mode the call runs the original function instead.
    ``child_traceback``: the traceback text when the bug struck in a child process."""

    def __init__(self, message: str, child_traceback: str = ""):
        super().__init__(message)
        self.child_traceback = child_traceback

    def __reduce__(self):
        return (type(self), (self.args[0], self.child_traceback))


class ShapeDeclined(AscendGenError, ValueError):
    """A kernel cannot take these shapes: its tiling function returned 0 blocks for them. Those calls run as the
    original function. ``shapes`` are the input shapes it declined (a ValueError too, for older callers)."""

    def __init__(self, message: str, shapes: tuple[tuple[int, ...], ...] = ()):
        super().__init__(message)
        self.shapes = tuple(tuple(shape) for shape in shapes)

    def __reduce__(self):
        return (type(self), (self.args[0], self.shapes))


class ReferenceFailed(AscendGenError):
    """The reference function itself raised or returned something that is not tensors: no candidate can be judged
    on that input set (pass a value_fn for inputs it accepts)."""


class ChildTraceback(Exception):
    """The traceback, as text, of an exception raised in a child process: the ``__cause__`` of its copy in the
    parent (the child's frames cannot cross a process boundary). Never raised."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return f"\n\"\"\"\n{self.text}\"\"\""

    def __reduce__(self):
        return (type(self), (self.text,))


class OpProjectError(AscendGenError, ValueError):
    """An operator project (op_host + op_kernel sources) cannot run as called: an undeclared dtype combination, a
    missing attribute, a TilingFunc that failed or set no blocks, ...; the message names the problem and the fix."""


class NotExpressible(ValueError):
    """A trace's size or guard uses something a task's size text cannot write (a float, a function it does not
    have, a symbol no input gives): the task is then specialised to the traced shapes. Never reaches a caller."""
