"""Vendor the suite's kernels from local git mirrors of their repositories, byte for byte.

    python benchmarks/fidelity/vendor.py --mirrors /work/.mirror

``<mirrors>/<owner>+<name>/repo`` is a bare git directory of GitHub repository ``owner/name``. For every case in
suite.py this copies the kernel file and every repository header it includes (at the case's commit) to
``kernels/<owner>/<name>/<path>``, the repository's LICENSE and NOTICE files once, and writes ``PROVENANCE``:
one line per file, ``<commit> <sha256> <path>``. A file two cases need at different commits must be identical,
unless one of them is a snapshot case: its files go to ``kernels/<owner>/<name>/@<commit>/`` with their own
PROVENANCE (the repository's licence, at its root, covers them).
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

from sources import PROVENANCE_FILE, local_includes, project_paths, repo_dir, sha256  # noqa: E402
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


def vendor(mirrors: Path) -> None:
    files: dict[str, dict[str, tuple[str, bytes]]] = defaultdict(dict)  # vendored -> path -> (commit, bytes)
    for case in CASES:
        git_dir = mirrors / case.repo.replace("/", "+") / "repo"
        read, read_bytes = git_reader(git_dir, case.commit)
        paths = [case.path, *local_includes(read, case.path, case.include_roots).values()]
        if case.op and case.op.tiling_header:
            paths.append(case.op.tiling_header)
        if case.fmt == "operator project":  # its op_host half, where the repository has one
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
        lines = [f"# {vendored}: files copied unmodified from https://github.com/{repo}", "# <commit> <sha256> <path>"]
        for path, (commit, data) in sorted(entries.items()):
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(data)
            lines.append(f"{commit} {sha256(data)} {path}")
        (root / PROVENANCE_FILE).write_text("\n".join(lines) + "\n")
        print(f"{vendored}: {len(entries)} files")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    vendor(parser.parse_args().mirrors)


if __name__ == "__main__":
    main()
