"""torch_ascendgen: on-demand AscendC kernels for PyTorch functions.

The C++ sources in csrc/ (the AscendC simulator headers, the runtime module, the generator's
templates) are compiled at run time, so they ship inside the package as data (torch_ascendgen/csrc
in a wheel), as do the seed kernels of cache/ (torch_ascendgen/seeds). This file only adds that copy to
build_py; the project itself is described in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent


class BuildPyWithCsrc(build_py):
    def run(self):
        package = Path(self.build_lib) / "torch_ascendgen"
        shutil.rmtree(package, ignore_errors=True)  # build/lib would keep modules that were moved or deleted since
        super().run()
        for source, name in ((ROOT / "csrc", "csrc"), (ROOT / "cache", "seeds")):  # seeds: see cache.seeds_dir()
            shutil.rmtree(package / name, ignore_errors=True)
            shutil.copytree(source, package / name,
                            ignore=shutil.ignore_patterns("*.o", "*.so", "__pycache__", "*.lock", "*.tmp",
                                                          "*.corrupt-*"))


# Everything else (metadata, dependencies, packages, the dynamo entry point) is in pyproject.toml.
setup(cmdclass={"build_py": BuildPyWithCsrc})
