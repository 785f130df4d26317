"""`python -m torch_ascendgen doctor`: each check's findings and fixes, the exit status, torch_npu probed safely."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import textwrap

import pytest

from cann_layouts import make_toolkit, new_layout, old_layout
from fake_openai import FakeOpenAIServer, reply
from torch_ascendgen import config
from torch_ascendgen.cli import doctor
from torch_ascendgen.targets.npu import cann

pytest.importorskip("openai")


@pytest.fixture(autouse=True)
def _no_model(monkeypatch, tmp_path):
    """No model server, and no CANN from the machine (the variables unset, install roots in tmp_path)."""
    for name in (config.LLM_URL_ENV, config.LLM_MODEL_ENV, config.GENERATOR_ENV, config.ASCEND_HOME_PATH_ENV,
                 config.ASCEND_TOOLKIT_HOME_ENV, config.BISHENG_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(config.ASCEND_ROOTS_ENV, str(tmp_path / "no-roots"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _fake_torch_npu(tmp_path, monkeypatch, body: str) -> None:
    package = tmp_path / "torch_npu"
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent(body))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))


# ---- the model ---------------------------------------------------------------------------------

def test_no_model_configured_is_off_and_ready(capsys):
    check = doctor.check_model()
    assert check.status == doctor.OFF and "no model configured" in check.detail
    assert config.LLM_URL_ENV in check.fix and "vllm serve" in check.fix
    assert doctor.main() == 0
    out = capsys.readouterr().out
    assert "model" in out and "Ready" in out


def test_model_through_the_fake_server(monkeypatch):
    with FakeOpenAIServer([reply("OK")], model="qwen-coder") as server:
        monkeypatch.setenv(config.LLM_URL_ENV, server.url)
        check = doctor.check_model()
    assert check.status == doctor.OK, check
    assert "qwen-coder" in check.detail and server.url in check.detail and "round trip" in check.detail
    assert server.models_requests == 1
    assert len(server.requests) == 1 and server.requests[0]["max_tokens"] == 1


def test_configured_model_that_the_server_does_not_serve(monkeypatch):
    with FakeOpenAIServer([reply("OK")], model="served") as server:
        monkeypatch.setenv(config.LLM_URL_ENV, server.url)
        monkeypatch.setenv(config.LLM_MODEL_ENV, "missing")
        check = doctor.check_model()
    assert check.status == doctor.WARN and "404" in check.detail and config.LLM_MODEL_ENV in check.detail


def test_server_error_is_reported_without_retries(monkeypatch):
    with FakeOpenAIServer([{"status": 500, "error": "engine died"}, reply("OK")]) as server:
        monkeypatch.setenv(config.LLM_URL_ENV, server.url)
        check = doctor.check_model()
        assert len(server.requests) == 1  # the doctor does not retry
    assert check.status == doctor.WARN and "500" in check.detail


def test_unreachable_url(monkeypatch):
    url = f"http://127.0.0.1:{_free_port()}/v1"
    monkeypatch.setenv(config.LLM_URL_ENV, url)
    check = doctor.check_model()
    assert check.status == doctor.WARN and url in check.detail and config.LLM_URL_ENV in check.detail
    assert doctor.exit_status([check]) == 0  # the simulator does not need the model ...
    monkeypatch.setenv(config.GENERATOR_ENV, "llm")
    check = doctor.check_model()
    assert check.status == doctor.FAIL and doctor.exit_status([check]) == 1  # ... generator=llm does


def test_slow_model_times_out(monkeypatch):
    with FakeOpenAIServer([reply("OK", delay=5.0)]) as server:
        monkeypatch.setenv(config.LLM_URL_ENV, server.url)
        check = doctor.check_model(timeout_s=0.5)
    assert check.status == doctor.WARN and "0.5 s" in check.detail


# ---- torch_npu, probed in a child ----------------------------------------------------------------

@pytest.mark.skipif(importlib.util.find_spec("torch_npu") is not None, reason="torch_npu is installed here")
def test_torch_npu_absent():
    check = doctor.check_torch_npu()
    assert check.status == doctor.OFF and "not installed" in check.detail
    assert "pip install torch_npu" in check.fix and "CANN" in check.fix


def test_torch_npu_that_fails_to_import(tmp_path, monkeypatch):
    _fake_torch_npu(tmp_path, monkeypatch, 'raise ImportError("libhccl.so: cannot open shared object file")')
    check = doctor.check_torch_npu()
    assert check.status == doctor.WARN and "broken" in check.detail and "libhccl.so" in check.detail


def test_torch_npu_that_crashes_the_process(tmp_path, monkeypatch):
    _fake_torch_npu(tmp_path, monkeypatch, "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n")
    check = doctor.check_torch_npu()
    assert check.status == doctor.WARN and "SIGSEGV" in check.detail


_WITH_DEVICES = """
    import types, torch
    print("[torch_npu] a banner on stdout")
    __version__ = "2.13.0.post1"
    torch.npu = types.SimpleNamespace(is_available=lambda: True, device_count=lambda: 8,
                                      get_device_name=lambda index=None: {soc!r})
"""


def test_torch_npu_with_devices(tmp_path, monkeypatch):
    _fake_torch_npu(tmp_path, monkeypatch, _WITH_DEVICES.format(soc="Ascend910B2"))
    probe = doctor.probe_torch_npu()
    check = doctor.check_torch_npu(probe=probe)
    assert check.status == doctor.OK and "2.13.0.post1" in check.detail and "8 NPU" in check.detail
    soc = doctor.check_soc(probe)
    assert soc.status == doctor.OK and soc.detail == "Ascend910B2 (bisheng --npu-arch=dav-2201)"


def test_torch_npu_autoloaded_and_broken_reports_the_root_cause(tmp_path, monkeypatch):
    """torch wraps an autoloaded backend's failure in "Failed to load the backend extension"; the doctor
    names the real error. (The doctor's own process runs only with TORCH_DEVICE_BACKEND_AUTOLOAD=0 then:
    torch_ascendgen imports torch.)"""
    _fake_torch_npu(tmp_path, monkeypatch, 'raise OSError("libhccl.so: cannot open shared object file")')
    info = tmp_path / "torch_npu-2.13.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: torch_npu\nVersion: 2.13.0\n")
    (info / "entry_points.txt").write_text("[torch.backends]\ntorch_npu = torch_npu:_autoload\n")
    check = doctor.check_torch_npu()
    assert check.status == doctor.WARN and check.detail == (
        "installed but broken: OSError: libhccl.so: cannot open shared object file")
    assert "set_env.sh" in check.fix and "pip uninstall torch_npu" in check.fix


@pytest.mark.parametrize("reported, status, detail", [
    ("Ascend910_9391", doctor.OK, "Ascend910_9391 (bisheng --npu-arch=dav-2201)"),
    ("Ascend310P3", doctor.OK, "Ascend310P3 (bisheng --npu-arch=dav-2002)"),
    ("ascend910b4", doctor.OK, "Ascend910B4 (bisheng --npu-arch=dav-2201), reported as 'ascend910b4'"),
    ("Ascend910B", doctor.WARN, "first-generation Ascend 910"),
    ("Ascend910B2C", doctor.WARN, "unknown SoC 'Ascend910B2C'"),
])
def test_soc_line(reported, status, detail):
    probe = doctor.parse_probe(0, f"VERSION 2.13.0 True 8\nSOC {reported}\n", "")
    check = doctor.check_soc(probe)
    assert check.status == status and detail in check.detail
    if status == doctor.WARN:
        assert "simulator target still works" in check.fix


def test_soc_line_without_an_npu_or_when_the_name_cannot_be_read():
    assert doctor.check_soc(doctor.parse_probe(0, "ABSENT\n", "")).status == doctor.OFF
    assert doctor.check_soc(doctor.parse_probe(0, "VERSION 2.13.0 False 0\n", "")).status == doctor.OFF
    check = doctor.check_soc(doctor.parse_probe(0, "VERSION 2.13.0 True 1\nSOCERROR RuntimeError: 507033\n", ""))
    assert check.status == doctor.WARN and "RuntimeError: 507033" in check.detail


# ---- the simulator's needs ----------------------------------------------------------------------

def test_missing_compiler_fails_with_the_fix(monkeypatch):
    monkeypatch.setenv(config.CXX_ENV, "/nonexistent/g++")
    check = doctor.check_compiler()
    assert check.status == doctor.FAIL and config.CXX_ENV in check.fix
    assert doctor.exit_status([check]) == 1
    assert "Not ready: compiler" in doctor.summary([check])


def test_unwritable_cache_fails(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(config.CACHE_DIR_ENV, str(blocker / "cache"))
    check = doctor.check_cache_dir()
    assert check.status == doctor.FAIL and config.CACHE_DIR_ENV in check.fix


# ---- CANN and bisheng, on fake toolkit trees -----------------------------------------------------

def test_cann_not_found_is_fine(tmp_path):
    check = doctor.check_cann()
    assert check.status == doctor.OFF and "not found" in check.detail and str(tmp_path / "no-roots") in check.detail
    assert "source /usr/local/Ascend/cann/set_env.sh" in check.fix
    assert doctor.check_bisheng().status == doctor.OFF
    assert doctor.exit_status([check]) == 0


def test_cann_through_set_env_sh(tmp_path, monkeypatch):
    home = make_toolkit(tmp_path / "cann-8.5.0", "8.5.0")
    monkeypatch.setenv(config.ASCEND_HOME_PATH_ENV, str(home))
    check = doctor.check_cann()
    assert check == doctor.Check("CANN", doctor.OK, f"8.5.0 at {home} (found by ASCEND_HOME_PATH)")
    bisheng = doctor.check_bisheng()
    assert bisheng.status == doctor.OK
    assert bisheng.detail == f"{home / 'compiler/ccec_compiler/bin/bisheng'} (bisheng version 8.5.0 (fake))"


def test_cann_installed_but_set_env_not_sourced(tmp_path, monkeypatch):
    monkeypatch.setenv(config.ASCEND_ROOTS_ENV, str(tmp_path / "Ascend"))
    latest = old_layout(tmp_path / "Ascend", "8.0.RC3")
    check = doctor.check_cann()
    assert check.status == doctor.WARN and f"8.0.RC3 at {latest} (found by {latest})" in check.detail
    assert "not sourced" in check.detail
    assert check.fix == f"run `source {tmp_path / 'Ascend' / 'ascend-toolkit' / 'set_env.sh'}` before starting Python"


def test_cann_variable_pointing_nowhere(tmp_path, monkeypatch):
    monkeypatch.setenv(config.ASCEND_HOME_PATH_ENV, str(tmp_path / "uninstalled"))
    check = doctor.check_cann()
    assert check.status == doctor.WARN and "uninstalled is not a directory" in check.detail


def test_cann_without_a_version_file(tmp_path, monkeypatch):
    monkeypatch.setenv(config.ASCEND_HOME_PATH_ENV, str(make_toolkit(tmp_path / "toolkit", version=None)))
    check = doctor.check_cann()
    assert check.status == doctor.WARN and "unknown" in check.detail and "ascend_toolkit_install.info" in check.detail


def test_bisheng_missing_or_broken(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    home = make_toolkit(tmp_path / "toolkit", bisheng=None)
    monkeypatch.setenv(config.ASCEND_HOME_PATH_ENV, str(home))
    check = doctor.check_bisheng()
    assert check.status == doctor.WARN and "no bisheng compiler" in check.detail and config.BISHENG_ENV in check.fix
    broken = tmp_path / "bisheng"
    broken.write_text("#!/bin/sh\necho 'error while loading shared libraries: libLLVM.so' >&2\nexit 127\n")
    broken.chmod(0o755)
    monkeypatch.setenv(config.BISHENG_ENV, str(broken))
    check = doctor.check_bisheng()
    assert check.status == doctor.WARN and "exit 127" in check.detail and "libLLVM.so" in check.detail


def test_the_whole_report_on_a_fake_npu_machine(tmp_path, monkeypatch, capsys):
    """torch_npu with eight 910B2s, CANN 8.5.0 through set_env.sh, bisheng: the NPU target is ready."""
    _fake_torch_npu(tmp_path, monkeypatch, _WITH_DEVICES.format(soc="Ascend910B2"))
    monkeypatch.setenv(config.ASCEND_HOME_PATH_ENV, str(new_layout(tmp_path / "Ascend", "8.5.0")))
    assert doctor.main() == 0
    out = capsys.readouterr().out
    for line in ("ok    torch_npu", "ok    SoC             Ascend910B2 (bisheng --npu-arch=dav-2201)",
                 "ok    CANN            8.5.0 at", "ok    bisheng"):
        assert line in out, out
    assert "built and verified on the NPU and the simulator" in out


def test_the_report_when_the_npu_is_an_old_910(tmp_path, monkeypatch, capsys):
    _fake_torch_npu(tmp_path, monkeypatch, _WITH_DEVICES.format(soc="Ascend910B"))
    monkeypatch.setenv(config.ASCEND_HOME_PATH_ENV, str(new_layout(tmp_path / "Ascend", "8.5.0")))
    assert doctor.main() == 0
    out = capsys.readouterr().out
    assert "warn  SoC" in out and "first-generation Ascend 910" in out
    assert "on the simulator." in out and "NPU and" not in out


def test_doctor_reads_no_environment_itself():
    source = (doctor.__file__, cann.__file__)
    for path in source:
        text = open(path).read()
        assert "os.environ" not in text and "getenv" not in text, path


def test_command_line(monkeypatch):
    monkeypatch.delenv("PYTHONPATH", raising=False)
    done = subprocess.run([sys.executable, "-m", "torch_ascendgen", "doctor"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    for name in ("torch", "torch_npu", "SoC", "CANN", "bisheng", "compiler", "cache", "model"):
        assert f"  {name} " in done.stdout
