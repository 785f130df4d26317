"""The built-in generator's C++ templates: real files under csrc/templates, with regions filled in."""

from __future__ import annotations

import textwrap

from torch_ascendgen._paths import csrc_dir


def fill_template(name: str, regions: dict[str, str]) -> str:
    """``csrc/templates/<name>.cpp`` with the text between ``// <<region`` and ``// >>region`` replaced. A region
    named ``part <template> <part>`` takes the lines another template marks ``// ==<part>`` ... ``// ==/<part>``
    (code two templates share, kept once)."""
    out: list[str] = []
    skipping = None
    for line in _lines(name):
        marker = line.strip()
        if marker.startswith("// <<"):
            skipping = marker[5:]
            out.append(line)
            indent = line[: len(line) - len(line.lstrip())]
            text = _part(*skipping.split()[1:]) if skipping.startswith("part ") else regions[skipping]
            out.extend(indent + text if text else text for text in text.splitlines())
        elif marker.startswith("// >>"):
            skipping = None
            out.append(line)
        elif skipping is None:
            out.append(line)
    return "\n".join(out) + "\n"


def _lines(name: str) -> tuple[str, ...]:
    return tuple((csrc_dir() / "templates" / f"{name}.cpp").read_text().splitlines())


def _part(template: str, part: str) -> str:
    lines = _lines(template)
    starts = [i for i, line in enumerate(lines) if line.strip().split(":")[0] == f"// =={part}"]
    ends = [i for i, line in enumerate(lines) if line.strip() == f"// ==/{part}"]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise ValueError(f"csrc/templates/{template}.cpp marks part {part!r} {len(starts)} time(s), not once")
    return textwrap.dedent("\n".join(lines[starts[0] + 1:ends[0]]))
