"""The options ``torch.compile(model, backend="ascendgen", options={...})`` takes: the decorator's, read the way
the decorator reads its keyword arguments, plus the backend's own two."""

from __future__ import annotations

from dataclasses import dataclass, field

from torch_ascendgen import config
from torch_ascendgen.pipeline import Options

DECORATOR_OPTIONS = ("variants", "target", "generator", "rtol", "atol", "strict", "cache_dir", "soc", "progress",
                     "llm_url", "llm_model")
BACKEND_OPTIONS = ("min_region_ops", "report")


@dataclass(frozen=True)
class BackendSettings:
    """What torch.compile's ``options`` asked for: the pipeline's Options and the backend's own."""

    options: Options = field(default_factory=Options)
    min_region_ops: int = field(default_factory=config.min_region_ops)
    report: bool = field(default_factory=config.compile_report)


def parse_options(options: dict | None) -> BackendSettings:
    """``options`` as the decorator reads its keyword arguments (unset ones from the environment, config.py).
    Raises ValueError naming any unknown option and the known ones."""
    given = dict(options or {})
    unknown = sorted(set(given) - set(DECORATOR_OPTIONS) - set(BACKEND_OPTIONS))
    if unknown:
        raise ValueError(f"torch_ascendgen backend: unknown option(s) {', '.join(map(repr, unknown))}; it takes "
                         f"{', '.join(DECORATOR_OPTIONS + BACKEND_OPTIONS)}")
    try:
        pipeline = Options.from_arguments(**{name: given[name] for name in DECORATOR_OPTIONS if name in given})
    except ValueError as exc:
        raise ValueError(f"torch_ascendgen backend: {exc}") from None
    minimum = int(given["min_region_ops"]) if given.get("min_region_ops") is not None else config.min_region_ops()
    if minimum < 1:
        raise ValueError(f"torch_ascendgen backend: min_region_ops must be at least 1, not {minimum}")
    report = bool(given["report"]) if given.get("report") is not None else config.compile_report()
    return BackendSettings(pipeline, minimum, report)
