"""An installed wheel must carry the C++ sources: kernels are compiled at run time."""

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_ships_the_simulator_and_runtime_sources(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp_path), str(ROOT)], check=True, capture_output=True)
    wheel = next(tmp_path.glob("torch_ascendgen-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {name.removeprefix("torch_ascendgen/") for name in names if name.startswith("torch_ascendgen/csrc/")}
    expected = {f"csrc/{path.relative_to(ROOT / 'csrc')}" for path in (ROOT / "csrc").rglob("*") if path.is_file()}
    assert expected and expected <= shipped
