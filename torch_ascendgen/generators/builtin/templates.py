"""The built-in generator's C++ templates: real files under csrc/templates, with regions filled in."""

from __future__ import annotations

from torch_ascendgen._paths import csrc_dir


def fill_template(name: str, regions: dict[str, str]) -> str:
    """``csrc/templates/<name>.cpp`` with the text between ``// <<region`` and ``// >>region`` replaced."""
    lines = (csrc_dir() / "templates" / f"{name}.cpp").read_text().splitlines()
    out: list[str] = []
    skipping = None
    for line in lines:
        marker = line.strip()
        if marker.startswith("// <<"):
            skipping = marker[5:]
            out.append(line)
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(indent + text if text else text for text in regions[skipping].splitlines())
        elif marker.startswith("// >>"):
            skipping = None
            out.append(line)
        elif skipping is None:
            out.append(line)
    return "\n".join(out) + "\n"
