"""The build of model-written code (issue 12, item 1): the compiler runs in the build sandbox
(confinement.py's "build" profile, toolchain.run_untrusted), so a candidate's source cannot make it
read, embed or quote a file outside the toolchain, our headers and its staging directory, nor write
outside staging; a failed build sends back only the diagnostics about kernel.cpp; and the processes
the package starts (the compiler, the candidate's child) hold none of the user's secrets.

Each attack is a kernel the simulator builds (build_sim_kernel, as the search does): the build fails
or succeeds, and the secret's bytes are in neither the library, the build log nor the exception. The
controls, with TORCH_ASCENDGEN_SANDBOX=off, show that the attacks are real: there the secret is baked
into the library, and the compiler quotes it (the diagnostics filter alone then keeps it back).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import uuid
from pathlib import Path

import pytest
import torch

from torch_ascendgen import config
from torch_ascendgen._paths import sim_include_dir
from torch_ascendgen.cli import doctor
from torch_ascendgen.errors import KernelBuildError
from torch_ascendgen.targets import confinement, sandbox, toolchain
from torch_ascendgen.targets.sim import simulator
from torch_ascendgen.targets.sim.build import KERNEL_FILE, build_sim_kernel

KERNEL = (Path(__file__).resolve().parents[1] / "kernels" / "add_custom.cpp").read_text()
ENTRY = "add_custom"
RUN = f"{uuid.uuid4().hex[:12]}"  # makes this session's sources new: every build below really runs the compiler

needs_landlock = pytest.mark.skipif(confinement.landlock_abi() == 0 or confinement.machine() is None,
                                    reason="this kernel has no Landlock (or no seccomp filter for this machine)")


@pytest.fixture(scope="module")
def secret(tmp_path_factory) -> Path:
    """A file outside every staging directory; its text is an identifier, so a compiler that reads it quotes it."""
    path = tmp_path_factory.mktemp("secrets") / "secret.txt"
    path.write_text(f"ascendgen_secret_{RUN} leaked;\n")
    return path


@pytest.fixture(scope="module")
def markers(tmp_path_factory) -> Path:
    """An empty directory outside every staging directory: anything that appears in it escaped."""
    return tmp_path_factory.mktemp("markers")


def token(secret: Path) -> bytes:
    return f"ascendgen_secret_{RUN}".encode()


def attempt(extra: str, tag: str) -> tuple[bytes, str]:
    """Build the ordinary kernel with ``extra`` appended; (the library and build log when it built, the
    exception's text and fields when it did not)."""
    source = f"{KERNEL}\n// {tag} {RUN}\n{extra}\n"
    try:
        built = build_sim_kernel(source, ENTRY)
    except KernelBuildError as exc:
        return b"", f"{exc}\n{exc.log}\n{exc.command}"
    return built.library.read_bytes() + (built.directory / "build.log").read_bytes(), ""


# ---- an ordinary kernel -----------------------------------------------------------------------------------

@needs_landlock
def test_an_ordinary_kernel_builds_confined_and_runs():
    kernel = simulator.compile_kernel(f"{KERNEL}\n// ordinary {RUN}\n")
    assert not kernel.build.cached and kernel.build.seconds > 0
    x, y = torch.randn(8 * 2048), torch.randn(8 * 2048)
    z = torch.empty_like(x)
    kernel.launch(8, x, y, z)
    assert torch.equal(z, x + y)


# ---- reading, embedding, quoting a file outside ---------------------------------------------------------

ATTACKS = {
    "incbin at top level": 'asm(".incbin \\"{secret}\\"");',
    "incbin in a data section": 'asm(".section .rodata\\n.globl leaked\\nleaked:\\n.incbin \\"{secret}\\"\\n'
                                '.previous");',
    "incbin in a function": 'extern "C" void leak() {{ asm volatile(".pushsection .rodata\\n.incbin \\"{secret}\\"\\n'
                            '.popsection"); }}',
    "incbin of a stringified macro": '#define ASCENDGEN_STR(x) #x\n#define ASCENDGEN_PATH(x) ASCENDGEN_STR(x)\n'
                                     'asm(".incbin " ASCENDGEN_PATH({secret}));',
    "incbin climbing out of staging": 'asm(".incbin \\"{climb}\\"");',
    "assembler include": 'asm(".include \\"{secret}\\"");',
    "include by absolute path": '#include "{secret}"',
    "include climbing out of staging": '#include "{climb}"',
    "include inside an initializer": 'const char leaked[] = {{\n#include "{secret}"\n}};',
    "pragma dependency": '#pragma GCC dependency "{secret}"',
    "line directive naming the file": '#line 1 "{secret}"\nint ascendgen_broken = ;',
    "has_include probe": '#if __has_include("{secret}")\n#error ascendgen found it\n#endif',
    "embed": '#embed "{secret}"',
    "include the process environment": '#include "/proc/self/environ"',
    "incbin the process environment": 'asm(".incbin \\"/proc/self/environ\\"");',
}


def _climb(secret: Path) -> str:
    return "../" * 40 + str(secret).lstrip("/")


@needs_landlock
@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_the_source_cannot_read_embed_or_quote_a_file_outside(name, secret, markers, monkeypatch):
    monkeypatch.setenv(config.LLM_API_KEY_ENV, f"sk-ascendgen-{RUN}")
    library, error = attempt(ATTACKS[name].format(secret=secret, climb=_climb(secret)), name)
    assert library or error
    for found in (library, error.encode()):
        assert token(secret) not in found, name
        assert f"sk-ascendgen-{RUN}".encode() not in found
    assert list(markers.iterdir()) == []


@needs_landlock
def test_a_device_that_never_ends_is_refused_at_once(monkeypatch):
    monkeypatch.setenv(config.BUILD_TIMEOUT_ENV, "60")
    library, error = attempt('#include "/dev/zero"', "zero")
    assert not library and "longer than" not in error  # denied when opened, not read until the time limit


@needs_landlock
def test_a_failed_build_names_the_candidates_own_errors(secret):
    _, error = attempt(f'int ascendgen_broken = ;\n#line 1 "{secret}"\nint ascendgen_other = ;', "own error")
    assert "kernel.cpp:" in error and "expected primary-expression" in error
    assert "about other files omitted" in error


# ---- the profile itself, with ordinary programs --------------------------------------------------------------

def _confined(command: str, staging: Path) -> subprocess.CompletedProcess:
    """``sh -c command`` in the build sandbox, with the toolchain of the C++ compiler."""
    program = shutil.which(config.cxx())
    policy = confinement.Policy("auto", "build", (str(staging),), 0, (), toolchain.toolchain_paths(program))
    env = confinement.allowed_environment(os.environ, "build", str(staging))
    return subprocess.run(confinement.launcher_command(policy, [shutil.which("sh"), "-c", command]), cwd=staging,
                          env=env, capture_output=True, text=True, timeout=60, start_new_session=True)


@needs_landlock
def test_the_build_profile_reads_the_toolchain_and_writes_only_staging(tmp_path, secret, markers, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", f"sk-ascendgen-{RUN}")
    staging = tmp_path / "staging"
    staging.mkdir()
    done = _confined(f"head -c 64 /usr/include/stdio.h > inside.txt && cat '{secret}'; touch '{markers}/marker'; "
                     f"ls '{Path.home()}'; env", staging)
    assert (staging / "inside.txt").read_text().strip(), done.stderr
    assert token(secret).decode() not in done.stdout + done.stderr
    assert "Permission denied" in done.stderr and list(markers.iterdir()) == []
    assert f"sk-ascendgen-{RUN}" not in done.stdout and "OPENAI_API_KEY" not in done.stdout
    assert f"TMPDIR={staging}" in done.stdout and "LC_ALL=C" in done.stdout


@needs_landlock
def test_the_build_profile_has_no_network_and_no_signals_outside(tmp_path):
    staging = tmp_path / "staging"
    staging.mkdir()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.settimeout(0.5)
        port = listener.getsockname()[1]
        bash = shutil.which("bash")
        done = _confined(f"{bash} -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' && echo connected; "
                         f"kill -0 {os.getpid()} && echo signalled", staging)
        with pytest.raises(socket.timeout):
            listener.accept()
    assert "connected" not in done.stdout and "signalled" not in done.stdout, done.stdout + done.stderr


# ---- the NPU build: bisheng in the same sandbox (a stand-in compiler that tries what a kernel could make it do) -

FAKE_BISHENG = """#!/bin/sh
case "$1" in --version) echo "fake bisheng 2.0"; exit 0;; -dumpmachine) echo x86_64-linux-gnu; exit 0;;
    -print*) exit 1;; esac
cat '{secret}'
touch '{marker}'
out=""; previous=""
for arg in "$@"; do [ "$previous" = "-o" ] && out="$arg"; previous="$arg"; done
if grep -q BROKEN kernel.cpp; then echo "./kernel.cpp:3:5: error: use of undeclared identifier 'BROKEN'"; exit 1; fi
echo library > "$out"
"""


def _npu_build(tmp_path: Path, secret: Path, source: str):
    from torch_ascendgen.targets.npu.build import compile_npu_kernel
    from torch_ascendgen.targets.npu.cann import CannToolkit

    home = tmp_path / "cann"
    for sub in ("include", "lib64", "bin"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    bisheng = home / "bin" / "bisheng"
    bisheng.write_text(FAKE_BISHENG.format(secret=secret, marker=tmp_path / "marker"))
    bisheng.chmod(0o755)
    toolkit = CannToolkit(home, "8.5.0", bisheng, (home / "include",), (home / "lib64",), "test")
    return compile_npu_kernel(source, 4, "Ascend910B2", toolkit)


@needs_landlock
def test_bisheng_runs_in_the_build_sandbox(tmp_path, secret, monkeypatch):
    monkeypatch.setenv(config.CACHE_DIR_ENV, str(tmp_path / "cache"))
    built = _npu_build(tmp_path, secret, f"// kernel {RUN}\n")
    log = built.log.read_text()
    assert built.library.read_text() == "library\n" and "Permission denied" in log
    assert token(secret).decode() not in log and not (tmp_path / "marker").exists()
    with pytest.raises(KernelBuildError) as caught:
        _npu_build(tmp_path, secret, f"// kernel {RUN}\nBROKEN\n")
    assert caught.value.log.startswith("./kernel.cpp:3:5: error: use of undeclared identifier 'BROKEN'")
    assert token(secret).decode() not in str(caught.value) and not (tmp_path / "marker").exists()


def test_without_the_sandbox_bisheng_reads_and_writes_anywhere(tmp_path, secret, monkeypatch):
    monkeypatch.setenv(config.CACHE_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(config.SANDBOX_ENV, "off")
    built = _npu_build(tmp_path, secret, f"// control kernel {RUN}\n")
    assert token(secret).decode() in built.log.read_text() and (tmp_path / "marker").exists()


# ---- the controls: without the sandbox the attacks are real ------------------------------------------------

def test_without_the_sandbox_incbin_bakes_the_secret_in(secret, monkeypatch):
    monkeypatch.setenv(config.SANDBOX_ENV, "off")
    library, error = attempt(ATTACKS["incbin at top level"].format(secret=secret), "control incbin")
    assert token(secret) in library, error


def test_without_the_sandbox_the_compiler_quotes_the_secret_and_the_filter_keeps_it_back(tmp_path, secret,
                                                                                          monkeypatch):
    monkeypatch.setenv(config.SANDBOX_ENV, "off")
    source = f"{KERNEL}\n// control include {RUN}\n#include \"{secret}\"\n"
    _, error = attempt(f'#include "{secret}"', "control include")
    (tmp_path / KERNEL_FILE).write_text(source)
    code, raw = toolchain.run_untrusted([config.cxx(), "-fsyntax-only", f"-I{sim_include_dir()}", KERNEL_FILE],
                                        tmp_path)
    assert code != 0 and token(secret).decode() in raw  # the compiler read and quoted it
    assert error and token(secret).decode() not in error and "about other files omitted" in error


def test_without_the_sandbox_the_build_environment_still_holds_no_secret(tmp_path, monkeypatch):
    monkeypatch.setenv(config.SANDBOX_ENV, "off")
    monkeypatch.setenv(config.LLM_API_KEY_ENV, f"sk-ascendgen-{RUN}")
    code, output = toolchain.run_untrusted([shutil.which("sh"), "-c", "env"], tmp_path)
    assert code == 0 and "PATH=" in output and "LC_ALL=C" in output
    assert f"sk-ascendgen-{RUN}" not in output and "LLM_API_KEY" not in output


# ---- what a failed build sends back ------------------------------------------------------------------------

def test_diagnostics_keep_the_candidates_file_and_our_headers_messages(tmp_path):
    headers = tmp_path / "headers"
    (headers / "sim").mkdir(parents=True)
    (headers / "sim" / "vector_ops.h").write_text("")
    log = "\n".join([
        "In file included from export.cpp:1:",
        "kernel.cpp: In function 'void f()':",
        "kernel.cpp:5:3: error: 'x' was not declared in this scope",
        "    5 |   x = 1;",
        "      |   ^",
        f"{headers}/sim/vector_ops.h:675:20: note: candidate: 'template<class T> void AscendC::Add()'",
        "  675 |     secret_of_our_header();",
        "      |     ^~~~",
        "In file included from kernel.cpp:2:",
        "/etc/passwd:1:5: error: 'root' does not name a type",
        "    1 | root:x:0:0:root:/root:/bin/bash",
        "      |     ^",
        "kernel.cpp:9:10: fatal error: /home/user/.ssh/id_rsa: Permission denied",
        "    9 | #include \"/home/user/.ssh/id_rsa\"",
        f"{tmp_path}/ccAbc123.s: Assembler messages:",
        f"{tmp_path}/ccAbc123.s:4: Error: file not found: /home/user/token",
        f"{headers}/sim/not_ours.h:1:1: error: a name under our headers that is no file of ours",
        "password: hunter2",
        "/usr/bin/ld: cannot find -lfoo: No such file or directory",
        "collect2: error: ld returned 1 exit status",
        f"{headers}/../../secret.h:1:1: note: climbing out of our headers",
        "compilation terminated.",
    ])
    shown = toolchain.candidate_diagnostics(log, KERNEL_FILE, tmp_path, (headers,))
    assert shown.splitlines() == [
        "kernel.cpp:5:3: error: 'x' was not declared in this scope",
        "    5 |   x = 1;",
        "      |   ^",
        "sim/vector_ops.h:675:20: note: candidate: 'template<class T> void AscendC::Add()'",
        "ccAbc123.s: Assembler messages:",
        "ld: cannot find -lfoo: No such file or directory",
        "collect2: error: ld returned 1 exit status",
        "compilation terminated.",
        "(11 lines about other files omitted)",
    ]


def test_diagnostics_accept_clangs_names_and_refuse_look_alikes(tmp_path):
    log = "\n".join([
        "./kernel.cpp:3:5: error: use of undeclared identifier 'BROKEN'",
        "    BROKEN;",
        "    ^",
        "/elsewhere/kernel.cpp:1:1: error: unknown type name 'hunter2'",
        "hunter2",
        "../kernel.cpp:1:1: error: unknown type name 'hunter3'",
        "1 error generated.",
    ])
    shown = toolchain.candidate_diagnostics(log, KERNEL_FILE, tmp_path / "staging")
    assert "hunter" not in shown and shown.startswith("./kernel.cpp:3:5: error:") and "    BROKEN;" in shown
    assert shown.endswith("1 error generated.\n(3 lines about other files omitted)")


def test_the_repair_prompt_never_carries_what_the_compiler_quoted(tmp_path, secret, monkeypatch):
    """The held-out run's leak, end to end: a reply whose build makes the compiler quote a file (here without the
    sandbox, so the compiler really reads it, and past the screen, which would refuse the directive); the repair
    message the model server receives names the candidate's own error and nothing of the file."""
    from fake_openai import FakeOpenAIServer, reply
    from model_kernels import model_kernel, scale_add
    from torch_ascendgen import ascend_kernel
    from torch_ascendgen.generators.llm import loop as llm_generator

    for name, value in {"SAMPLES": "1", "ROUNDS": "1", "OPT_ROUNDS": "0", "TIMEOUT": "5", "RETRIES": "0"}.items():
        monkeypatch.setenv(f"TORCH_ASCENDGEN_LLM_{name}", value)
    monkeypatch.setenv(config.SANDBOX_ENV, "off")
    monkeypatch.setattr(llm_generator, "screen_reply", lambda parsed: None)
    good = model_kernel(scale_add)
    leaky = f'{good}\n// {RUN}\nint ascendgen_broken = ;\n#line 1 "{secret}"\nint ascendgen_other = ;\n'
    with FakeOpenAIServer([reply(f"```cpp\n{leaky}```"), reply(f"```cpp\n{good}```")]) as server:
        fast = ascend_kernel(scale_add, generator="llm", llm_url=server.url, variants=1, cache_dir=tmp_path,
                             progress=False)
        x, y = torch.randn(8, 1000), torch.randn(8, 1000)
        torch.testing.assert_close(fast(x, y), scale_add(x, y))
    assert len(server.requests) == 2
    feedback = server.requests[1]["messages"][-1]["content"]
    assert all(token(secret).decode() not in str(request) for request in server.requests)
    assert "does not compile" in feedback and "kernel.cpp:" in feedback and "about other files omitted" in feedback


# ---- the environment of the processes the sandbox starts ----------------------------------------------------

def test_the_allowed_environment_keeps_what_a_child_needs_and_no_secret():
    environ = {"PATH": "/usr/bin", "PYTHONPATH": "/src", "LD_LIBRARY_PATH": "/opt/lib", "OMP_NUM_THREADS": "4",
               "HOME": "/home/user", "TORCH_ASCENDGEN_SOC": "Ascend910B2", "ASCEND_HOME_PATH": "/opt/cann",
               "TORCH_ASCENDGEN_LLM_API_KEY": "sk-1", "TORCH_ASCENDGEN_LLM_URL": "https://u:p@host", "OPENAI_API_KEY":
               "sk-2", "AWS_SECRET_ACCESS_KEY": "s", "GITHUB_TOKEN": "t", "SSH_AUTH_SOCK": "/tmp/agent", "USER": "me"}
    child = confinement.allowed_environment(environ, "cpu", "/scratch", {"TORCH_ASCENDGEN_CACHE_DIR": "/cache"})
    assert child == {"PATH": "/usr/bin", "PYTHONPATH": "/src", "LD_LIBRARY_PATH": "/opt/lib", "OMP_NUM_THREADS": "4",
                     "TORCH_ASCENDGEN_SOC": "Ascend910B2", "ASCEND_HOME_PATH": "/opt/cann",
                     "TORCH_ASCENDGEN_CACHE_DIR": "/cache", "HOME": "/scratch", "TMPDIR": "/scratch"}
    build = confinement.allowed_environment(environ, "build", "/staging")
    assert build == {"PATH": "/usr/bin", "LD_LIBRARY_PATH": "/opt/lib", "ASCEND_HOME_PATH": "/opt/cann",
                     "HOME": "/staging", "TMPDIR": "/staging", "LANG": "C", "LC_ALL": "C"}


NAMES = (config.LLM_API_KEY_ENV, "OPENAI_API_KEY", "ASCENDGEN_TEST_PRIVATE", "HOME", config.CACHE_DIR_ENV)


def test_a_sandbox_child_and_worker_lack_a_planted_api_key(monkeypatch):
    for name in NAMES[:3]:
        monkeypatch.setenv(name, f"sk-ascendgen-{RUN}")
    assert sandbox.run_in_child(os.getenv, config.LLM_API_KEY_ENV, timeout=120) is None
    with sandbox.Worker(os.getpid, 120, what="the environment probe") as worker:
        found = [worker.call(os.getenv, name, timeout=120) for name in NAMES]
    assert found[:3] == [None, None, None]
    assert found[3] != os.environ["HOME"] and "ascendgen-worker-" in found[3]  # its scratch directory
    assert found[4] == str(config.cache_dir())


# ---- the doctor --------------------------------------------------------------------------------------------

@needs_landlock
def test_the_doctor_reports_the_build_sandbox(monkeypatch):
    check = doctor.check_build_sandbox()
    assert check.status == doctor.OK and "reads only the toolchain" in check.detail, check
    monkeypatch.setenv(config.SANDBOX_ENV, "off")
    assert doctor.check_build_sandbox().status == doctor.WARN
    leaky = toolchain.BuildSandboxProbe(builds=True, read_outside=True, log="")
    monkeypatch.setenv(config.SANDBOX_ENV, "auto")
    assert doctor.check_build_sandbox(leaky).status == doctor.WARN
    broken = toolchain.BuildSandboxProbe(builds=False, read_outside=False, log="cc1plus: Permission denied")
    assert doctor.check_build_sandbox(broken).status == doctor.FAIL
