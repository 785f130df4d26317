"""Fetch the suite's kernels: copy them, byte for byte, from local git mirrors of their repositories.

    python benchmarks/fidelity/vendor.py --mirrors /work/.mirror           # the files PROVENANCE lists, checked
    python benchmarks/fidelity/vendor.py --mirrors /work/.mirror --update  # a maintainer adding a case
    python benchmarks/fidelity/vendor.py --only matmul                      # the cases whose id contains "matmul"

The repository ships no third-party code: only each repository's ``PROVENANCE`` (``kernels/<owner>/<name>/``, one
line per file, ``<commit> <sha256> <path>``). ``<mirrors>/<owner>+<name>/repo`` is a bare git directory of GitHub
repository ``owner/name`` (a clone, or what the workplace's ``fetch github:<owner>/<name>`` brings). For every case
in suite.py this copies the kernel file and every repository header it includes (at the case's commit), an
operator project's op_host half, and the repository's LICENSE and NOTICE files to ``kernels/<owner>/<name>/<path>``
(git ignores them), and checks each against the sha256 PROVENANCE records; ``--update`` writes PROVENANCE instead.
A file two cases need at different commits must be identical, unless one of them is a snapshot case: its files go
to ``kernels/<owner>/<name>/@<commit>/`` with their own PROVENANCE (the repository's licence, at its root, covers
them). ``--only TEXT`` takes the cases whose id contains TEXT (their mirrors alone are needed); with ``--update`` it
keeps the PROVENANCE lines of the other cases' files.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from sources import PROVENANCE_FILE, local_includes, project_paths, provenance, repo_dir, sha256  # noqa: E402
from suite import CASES  # noqa: E402

LICENCE_NAMES = ("LICENSE", "LICENSE.txt", "LICENSE.md", "LICENCE", "COPYING", "NOTICE", "NOTICE.txt")


def git_reader(git_dir: Path, commit: str):
    cache: dict[str, bytes | None] = {}

    def read_bytes(path: str) -> bytes | None:
        if path not in cache:
            done = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"], capture_output=True)
            cache[path] = done.stdout if done.returncode == 0 and not path.startswith("../") else None
        return cache[path]

    def read(path: str) -> str | None:
        data = read_bytes(path)
        return None if data is None else data.decode("utf-8", "surrogateescape")

    return read, read_bytes


def vendor(mirrors: Path, update: bool = False, only: str = "") -> None:
    files: dict[str, dict[str, tuple[str, bytes]]] = defaultdict(dict)  # vendored -> path -> (commit, bytes)
    for case in (c for c in CASES if only in c.id):
        git_dir = mirrors / case.repo.replace("/", "+") / "repo"
        read, read_bytes = git_reader(git_dir, case.commit)
        paths = [case.path, *local_includes(read, case.path, case.include_roots).values()]
        if case.op and case.op.tiling_header:
            paths.append(case.op.tiling_header)
        if case.fmt == "operator project" and case.op is None:  # its op_host half, where the repository has one
            paths += [p for p in project_paths(read, case.path, case.include_roots) if read_bytes(p) is not None]
        if not case.snapshot:
            paths += [name for name in LICENCE_NAMES if read_bytes(name) is not None]
        for path in paths:
            data = read_bytes(path)
            if data is None:
                raise SystemExit(f"{case.id}: {path} is not in {case.repo} at {case.commit}")
            before = files[case.vendored].get(path)
            if before is not None and before[1] != data:
                raise SystemExit(f"{case.id}: {path} differs between commits {before[0]} and {case.commit}")
            files[case.vendored].setdefault(path, (case.commit, data))
    for vendored, entries in files.items():
        root, repo = repo_dir(vendored), vendored.partition("@")[0]
        if not update:
            _check(vendored, entries)
        lines = [f"# {vendored}: files copied unmodified from https://github.com/{repo}", "# <commit> <sha256> <path>"]
        recorded = {path: f"{commit} {digest}" for path, (commit, digest) in _recorded(vendored, only).items()}
        for path, (commit, data) in entries.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(data)
            recorded[path] = f"{commit} {sha256(data)}"
        lines += [f"{entry} {path}" for path, entry in sorted(recorded.items())]
        if update:
            (root / PROVENANCE_FILE).write_text("\n".join(lines) + "\n")
        print(f"{vendored}: {len(entries)} files")


def _recorded(vendored: str, only: str) -> dict[str, tuple[str, str]]:
    """The PROVENANCE entries a partial run (``--only``) keeps: all of them; a full run rewrites them."""
    if not only or not (repo_dir(vendored) / PROVENANCE_FILE).is_file():
        return {}
    return provenance(vendored)


def _check(vendored: str, entries: dict[str, tuple[str, bytes]]) -> None:
    """Stops unless every file is the one PROVENANCE records (same commit, same sha256)."""
    recorded = provenance(vendored)
    for path, (commit, data) in entries.items():
        if recorded.get(path) != (commit, sha256(data)):
            raise SystemExit(f"{vendored}: {path} at {commit} is not the file PROVENANCE records "
                             f"({recorded.get(path)}); a new or changed case needs --update")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--update", action="store_true", help="write PROVENANCE rather than check against it")
    parser.add_argument("--only", default="", help="fetch the cases whose id contains this text")
    args = parser.parse_args()
    vendor(args.mirrors, args.update, args.only)


if __name__ == "__main__":
    main()
