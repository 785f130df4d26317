"""torch_ascendgen: on-demand AscendC kernels for PyTorch functions.

The C++ sources in csrc/ (the AscendC simulator headers, the runtime module, the generator's
templates) are compiled at run time, so they ship inside the package as data (torch_ascendgen/csrc
in a wheel), as do the seed kernels of cache/ (torch_ascendgen/seeds).
"""

import shutil
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent


class BuildPyWithCsrc(build_py):
    def run(self):
        super().run()
        package = Path(self.build_lib) / "torch_ascendgen"
        for source, name in ((ROOT / "csrc", "csrc"), (ROOT / "cache", "seeds")):  # seeds: see cache.seeds_dir()
            shutil.rmtree(package / name, ignore_errors=True)
            shutil.copytree(source, package / name,
                            ignore=shutil.ignore_patterns("*.o", "*.so", "__pycache__", "*.lock", "*.tmp", "*.corrupt-*"))


setup(
    name="torch_ascendgen",
    version="0.1.0",
    description="On-demand AscendC kernels for PyTorch functions, with a CPU simulator of the AscendC API",
    long_description=(ROOT / "README.md").read_text() if (ROOT / "README.md").exists() else "",
    long_description_content_type="text/markdown",
    packages=find_packages(include=["torch_ascendgen", "torch_ascendgen.*"]),
    python_requires=">=3.10",
    # torch is pinned where it is installed (see README): a loose requirement would pull CUDA wheels.
    install_requires=["torch>=2.1", "pybind11>=2.11", "filelock>=3.12", "platformdirs>=3.0", "tqdm>=4.60",
                      "openai>=1.30"],
    extras_require={
        "test": ["pytest>=7", "hypothesis>=6.0"],
        "npu": ["torch_npu"],
        "llm": ["vllm"],  # optional: to serve a model on this machine (`vllm serve MODEL`)
    },
    # torch.compile(model, backend="ascendgen"): dynamo finds backends through this entry point group
    entry_points={"torch_dynamo_backends": ["ascendgen = torch_ascendgen.backend:ascendgen_backend"]},
    cmdclass={"build_py": BuildPyWithCsrc},
)
