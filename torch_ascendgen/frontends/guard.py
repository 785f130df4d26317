"""The guard between torch_ascendgen and the caller: what a failure of ours becomes.

In default mode nothing from our code reaches the caller as an exception: the decorator and the torch.compile
backend run the original function (or the region's ATen ops) instead, with one warning made here. In strict
mode the failure is raised as a typed error. Exceptions of the user's own function are never ours: the fallback
runs it, and what it raises reaches the caller as it would without us.
"""

from __future__ import annotations

import traceback
from pathlib import Path

from torch_ascendgen.errors import AscendGenError, InternalError

_PACKAGE = str(Path(__file__).resolve().parents[1])
REPORT_HINT = ("this is a bug in torch_ascendgen: please report it (an issue on the project's tracker) with this "
               "message and the output of `python -m torch_ascendgen doctor`; TORCH_ASCENDGEN_STRICT=1 raises it "
               "with its traceback")


def reason(exc: BaseException) -> str:
    """One sentence for the warning: our refusals as they are; anything else as a bug, with where it happened."""
    if isinstance(exc, AscendGenError) and not isinstance(exc, InternalError):
        return str(exc)
    return f"torch_ascendgen failed ({type(exc).__name__}: {_short(exc)}{where(exc)}); {REPORT_HINT}"


def typed(exc: Exception) -> AscendGenError:
    """What strict mode raises for ``exc`` (raise it ``from exc``): our own errors as they are, anything else as an
    InternalError carrying the reason."""
    return exc if isinstance(exc, AscendGenError) else InternalError(reason(exc))


def where(exc: BaseException) -> str:
    """`` at file:line in function`` of the innermost frame in this package, or ""."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith(_PACKAGE)]
    if not frames:
        return ""
    frame = frames[-1]
    return f" at {Path(frame.filename).relative_to(_PACKAGE)}:{frame.lineno} in {frame.name}"


def _short(exc: BaseException, limit: int = 500) -> str:
    text = str(exc) or repr(exc)
    return text if len(text) <= limit else text[:limit] + " ..."
