"""Where a vendored kernel's files are, and which local headers it includes.

A public kernel is vendored byte for byte at its repository path, under ``kernels/<owner>/<repo>/``, so that its
``#include "..."`` lines resolve as they do upstream: first beside the including file, then under the repository's
include roots (a build's ``-I`` directories, named per case). Headers found nowhere are the toolkit's (CANN's,
which the simulator provides or not) and are not vendored.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Callable, Sequence
from pathlib import Path

KERNELS_DIR = Path(__file__).resolve().parent / "kernels"
PROVENANCE_FILE = "PROVENANCE"

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)


def repo_dir(repo: str) -> Path:
    """The vendored copy of GitHub repository ``owner/name``; for ``owner/name@<commit>``, that repository's files
    at another commit, kept apart under ``@<commit>/`` (a case that needs a path at other contents than the rest)."""
    repo, _, snapshot = repo.partition("@")
    owner, name = repo.split("/")
    root = KERNELS_DIR / owner / name
    return root / f"@{snapshot}" if snapshot else root


def local_includes(read: Callable[[str], str | None], kernel: str, roots: Sequence[str] = ()) -> dict[str, str]:
    """{the name the compiler is handed for a header (relative to the kernel's directory): repository path} of
    every repository header ``kernel`` reaches. ``read(path)`` is a file's text, None when there is none."""
    kernel_dir = posixpath.dirname(kernel)
    found: dict[str, str] = {}
    pending = [kernel]
    seen = {kernel}
    while pending:
        including = pending.pop()
        for name in _INCLUDE.findall(read(including) or ""):
            beside = posixpath.normpath(posixpath.join(posixpath.dirname(including), name))
            if read(beside) is not None:
                path, key = beside, posixpath.relpath(beside, kernel_dir or ".")
            else:
                path = next((p for p in (posixpath.normpath(posixpath.join(r, name)) for r in roots)
                             if read(p) is not None), None)
                key = name
            if path is None:
                continue  # a toolkit header
            found.setdefault(key, path)
            if path not in seen:
                seen.add(path)
                pending.append(path)
    return found


def vendored_reader(repo: str) -> Callable[[str], str | None]:
    root = repo_dir(repo)

    def read(path: str) -> str | None:
        if path.startswith("../") or path.startswith("/"):
            return None
        file = root / path
        return file.read_text(encoding="utf-8", errors="surrogateescape") if file.is_file() else None

    return read


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def provenance(repo: str) -> dict[str, tuple[str, str]]:
    """{repository path: (commit, sha256)} of every vendored file of ``repo``, from its PROVENANCE file."""
    entries = {}
    for line in (repo_dir(repo) / PROVENANCE_FILE).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            commit, digest, path = line.split(maxsplit=2)
            entries[path] = (commit, digest)
    return entries


def project_paths(read: Callable[[str], str | None], kernel: str, roots: Sequence[str] = ()) -> list[str]:
    """The op_host half of an operator project whose kernel is ``<root>/op_kernel/<op>.cpp``: its
    ``<root>/op_host/<op>.cpp`` and ``<op>_tiling.h`` and the repository headers those include."""
    root, name = posixpath.dirname(posixpath.dirname(kernel)), posixpath.splitext(posixpath.basename(kernel))[0]
    host = posixpath.join(root, "op_host", f"{name}.cpp")
    tiling = posixpath.join(root, "op_host", f"{name}_tiling.h")
    return list(dict.fromkeys([host, tiling, *local_includes(read, host, roots).values()]))
