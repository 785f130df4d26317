"""`python -m torch_ascendgen doctor`: each check's findings and fixes, the exit status, torch_npu probed safely."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import textwrap

import pytest

from fake_openai import FakeOpenAIServer, reply
from torch_ascendgen import config, doctor

pytest.importorskip("openai")


@pytest.fixture(autouse=True)
def _no_model(monkeypatch):
    for name in (config.LLM_URL_ENV, config.LLM_MODEL_ENV, config.GENERATOR_ENV):
        monkeypatch.delenv(name, raising=False)


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


def test_torch_npu_with_devices(tmp_path, monkeypatch):
    _fake_torch_npu(tmp_path, monkeypatch, """
        import types, torch
        print("[torch_npu] a banner on stdout")
        __version__ = "2.13.0.post1"
        torch.npu = types.SimpleNamespace(is_available=lambda: True, device_count=lambda: 8)
    """)
    check = doctor.check_torch_npu()
    assert check.status == doctor.OK and "2.13.0.post1" in check.detail and "8 NPU" in check.detail


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


def test_cann_not_found_is_fine(monkeypatch, tmp_path):
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    monkeypatch.delenv("ASCEND_TOOLKIT_HOME", raising=False)
    monkeypatch.setattr(doctor, "CANN_DEFAULT", tmp_path / "absent")
    assert doctor.check_cann().status == doctor.OFF
    (tmp_path / "cann").mkdir()
    (tmp_path / "cann" / "version.cfg").write_text("version=8.0.RC3\n")
    monkeypatch.setenv("ASCEND_HOME_PATH", str(tmp_path / "cann"))
    check = doctor.check_cann()
    assert check.status == doctor.OK and "8.0.RC3" in check.detail


def test_command_line(monkeypatch):
    monkeypatch.delenv("PYTHONPATH", raising=False)
    done = subprocess.run([sys.executable, "-m", "torch_ascendgen", "doctor"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    for name in ("torch", "torch_npu", "CANN", "compiler", "cache", "model"):
        assert f"  {name} " in done.stdout
