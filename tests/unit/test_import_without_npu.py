"""`import torch_ascendgen` on machines where torch_npu is absent, broken, or installed without CANN.

Each case runs in a fresh interpreter with a fake `torch_npu` package first on PYTHONPATH: the
package must import, decorate functions, find no CANN, and turn torch_npu's failure into an
NpuUnavailable naming the cause and the fix. No kernel is built (that path is the simulator's and is
tested elsewhere); the point here is that nothing on the way imports torch_npu.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

from torch_ascendgen import config

CHILD = textwrap.dedent("""
    import sys
    import torch, torch_ascendgen
    from torch_ascendgen.targets.npu import cann
    from torch_ascendgen.errors import NpuUnavailable

    @torch_ascendgen.ascend_kernel
    def f(x):
        return torch.relu(x)

    print("IMPORTED_TORCH_NPU", "torch_npu" in sys.modules)
    print("CANN", cann.find_cann())
    for attempt in range(2):
        try:
            cann.torch_npu_module()
        except NpuUnavailable as exc:
            print("UNAVAILABLE", " ".join(str(exc).split()))
        else:
            print("LOADED", True)
""")


def _run(tmp_path, fake_body: str | None, *, entry_point: bool = False, env: dict | None = None):
    """CHILD in a fresh interpreter; the fake torch_npu (if any) is first on PYTHONPATH."""
    site = tmp_path / "site"
    site.mkdir()
    if fake_body is not None:
        (site / "torch_npu").mkdir()
        (site / "torch_npu" / "__init__.py").write_text(textwrap.dedent(fake_body))
    if entry_point:  # what torch_npu's setup.py declares: torch imports it on `import torch`
        info = site / "torch_npu-2.13.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: torch_npu\nVersion: 2.13.0\n")
        (info / "entry_points.txt").write_text("[torch.backends]\ntorch_npu = torch_npu:_autoload\n")
    dropped = (config.ASCEND_HOME_PATH_ENV, config.ASCEND_TOOLKIT_HOME_ENV, "TORCH_DEVICE_BACKEND_AUTOLOAD")
    child_env = {k: v for k, v in os.environ.items() if k not in dropped}
    child_env.update({"PYTHONPATH": str(site), config.ASCEND_ROOTS_ENV: str(tmp_path / "no-cann"),
                      config.CACHE_DIR_ENV: str(tmp_path / "cache")}, **(env or {}))
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, env=child_env)
    return done, dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)


def _ok(done, said):
    assert done.returncode == 0, done.stderr
    assert said["IMPORTED_TORCH_NPU"] == "False"  # decorating did not import it either
    assert said["CANN"] == "None"
    assert "UNAVAILABLE" in said and "LOADED" not in said
    return said["UNAVAILABLE"]


@pytest.mark.skipif(importlib.util.find_spec("torch_npu") is not None, reason="torch_npu is installed here")
def test_torch_npu_absent(tmp_path):
    message = _ok(*_run(tmp_path, None))
    assert "torch_npu is not installed" in message and "pip install torch_npu" in message
    assert "set_env.sh" in message


def test_torch_npu_that_raises_import_error(tmp_path):
    message = _ok(*_run(tmp_path, 'raise ImportError("cannot import name \'_C\' from partially initialized module")'))
    assert message.startswith("importing torch_npu failed: ImportError: cannot import name '_C'")
    assert "torch_npu built for torch" in message and "pip uninstall torch_npu" in message


def test_torch_npu_present_without_cann(tmp_path):
    """What a user sees who pip-installed torch_npu on a machine without CANN."""
    done, said = _run(tmp_path, 'raise OSError("libhccl.so: cannot open shared object file: No such file or '
                                'directory")')
    message = _ok(done, said)
    assert "cannot load CANN's libraries: OSError: libhccl.so: cannot open shared object file" in message
    assert "source /usr/local/Ascend/ascend-toolkit/set_env.sh" in message and "pip uninstall torch_npu" in message
    assert "TORCH_DEVICE_BACKEND_AUTOLOAD" not in message  # this fake does not register for autoload


def test_a_working_torch_npu_is_not_imported_by_the_package(tmp_path):
    done, said = _run(tmp_path, """
        import types
        __version__ = "2.13.0"
        npu = types.SimpleNamespace(device_count=lambda: 0)
    """)
    assert done.returncode == 0, done.stderr
    assert said["IMPORTED_TORCH_NPU"] == "False" and "LOADED" in said  # imported only when asked for


def test_an_autoloaded_torch_npu_without_cann(tmp_path):
    """torch_npu registers a `torch.backends` entry point, so `import torch` itself imports it (torch's
    device-backend autoload, torch/__init__.py). Broken, it breaks `import torch` and with it every
    package using torch; torch's error names TORCH_DEVICE_BACKEND_AUTOLOAD=0, and with that set the
    package imports and says what is wrong, the autoload included."""
    broken = 'raise OSError("libascendcl.so: cannot open shared object file: No such file or directory")'
    done, _ = _run(tmp_path, broken, entry_point=True)
    assert done.returncode != 0
    assert "Failed to load the backend extension: torch_npu" in done.stderr
    assert "TORCH_DEVICE_BACKEND_AUTOLOAD=0" in done.stderr and "libascendcl.so" in done.stderr

    (tmp_path / "again").mkdir()
    done, said = _run(tmp_path / "again", broken, entry_point=True, env={"TORCH_DEVICE_BACKEND_AUTOLOAD": "0"})
    message = _ok(done, said)
    assert "cannot load CANN's libraries: OSError: libascendcl.so" in message
    assert "registers itself with torch's device-backend autoload" in message
    assert "TORCH_DEVICE_BACKEND_AUTOLOAD=0" in message
