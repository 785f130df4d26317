"""An installed wheel must carry the C++ sources: kernels are compiled at run time."""

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_ships_the_simulator_and_runtime_sources(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp_path), str(ROOT)], check=True, capture_output=True)
    wheel = next(tmp_path.glob("torch_ascendgen-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {name.removeprefix("torch_ascendgen/") for name in names if name.startswith("torch_ascendgen/csrc/")}
    expected = {f"csrc/{path.relative_to(ROOT / 'csrc')}" for path in (ROOT / "csrc").rglob("*") if path.is_file()}
    assert expected and expected <= shipped


def test_the_wheel_holds_the_package_as_it_is_now_and_its_dynamo_backend(tmp_path):
    """Exactly the source tree's modules (none left over in build/ from an earlier layout), and the entry point
    that makes torch.compile(backend="ascendgen") work."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp_path), str(ROOT)], check=True, capture_output=True)
    wheel = zipfile.ZipFile(next(tmp_path.glob("torch_ascendgen-*.whl")))
    data = ("torch_ascendgen/csrc/", "torch_ascendgen/seeds/")
    modules = {name for name in wheel.namelist()
               if name.endswith(".py") and name.startswith("torch_ascendgen/") and not name.startswith(data)}
    assert modules == {path.relative_to(ROOT).as_posix() for path in (ROOT / "torch_ascendgen").rglob("*.py")}
    entry_points = next(name for name in wheel.namelist() if name.endswith(".dist-info/entry_points.txt"))
    assert "ascendgen = torch_ascendgen.frontends.dynamo.backend:ascendgen_backend" in wheel.read(entry_points).decode()
