"""Candidate kernels that try to leave the sandbox of the child that runs them (confinement.py): run
new programs, write files outside the scratch directory, connect, fork, flood threads, kill or limit
the caller, leave the process group, from the kernel or while the library loads. Each time the
caller survives, the attempt fails inside the run, and a marker file outside the scratch directory
proves that nothing escaped. Control tests run the same payloads with TORCH_ASCENDGEN_SANDBOX=off and
see the markers appear: the tests can fail.

The kernels are tests/diag_kernels/escape.cpp (one mode per attempt) and escape_at_load.cpp (load-time
constructors). Most attempts share one worker child; each fresh child costs an interpreter start.
The library audit (library_audit.py) would refuse these kernels before any run: it is bypassed here,
since this layer must hold when every check of the text and the symbols is fooled.
"""

from __future__ import annotations

import errno
import functools
import operator
import os
import pickle
import re
import signal
import socket
import struct
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from torch_ascendgen import config
from torch_ascendgen.capture import capture
from torch_ascendgen.cli import doctor
from torch_ascendgen.errors import KernelCrashError, KernelTimeoutError
from torch_ascendgen.evaluate.search import search
from torch_ascendgen.evaluate.verify import make_input_sets
from torch_ascendgen.generators.builtin.generator import generate_builtin
from torch_ascendgen.records import Candidate
from torch_ascendgen.targets import confinement, sandbox
from torch_ascendgen.targets.runtime import build_runtime_module
from torch_ascendgen.targets.sim import simulator
from torch_ascendgen.targets.target import sim_target

KERNELS = Path(__file__).resolve().parents[1] / "diag_kernels"
ESCAPE = KERNELS / "escape.cpp"
AT_LOAD = KERNELS / "escape_at_load.cpp"
MODES = {m.group(1): int(m.group(2)) for m in re.finditer(
    r"(\w+) = (\d+)", re.search(r"enum Mode : uint32_t \{(.*?)\};", ESCAPE.read_text(), re.S).group(1))}
GENEROUS = 120.0
# read by the load-time constructors; the child keeps only allowed variables (TORCH_ASCENDGEN_* among them)
MARKER_DIR_ENV = "TORCH_ASCENDGEN_ESCAPE_DIR"

PROTECTIONS, _ = doctor.probe_sandbox()


def needs(*names: str):
    """Skip when this machine's kernel lacks a protection the test relies on (named in the reason)."""
    missing = [name for name in names if not getattr(PROTECTIONS, name)]
    return pytest.mark.skipif(bool(missing), reason=f"this kernel lacks {', '.join(missing)}: {PROTECTIONS.notes}")


@pytest.fixture(scope="module", autouse=True)
def _library_audit_bypassed():
    """For this file's tests only: the audit refuses every kernel here before it could run."""
    try:
        from torch_ascendgen.targets.sim import library_audit
    except ImportError:
        yield
        return
    original = library_audit.audit_library
    with pytest.MonkeyPatch.context() as patch:
        for module in [m for name, m in sys.modules.items() if name.startswith("torch_ascendgen")]:
            if getattr(module, "audit_library", None) is original:
                patch.setattr(module, "audit_library", lambda path: None)
        yield


@functools.cache
def escape_kernel() -> simulator.SimKernel:
    return simulator.compile_kernel(ESCAPE.read_text(), filename="escape.cpp")


@functools.cache
def at_load_kernel() -> simulator.SimKernel:
    return simulator.compile_kernel(AT_LOAD.read_text(), filename="escape_at_load.cpp")


@pytest.fixture(scope="module")
def worker():
    with sim_target().candidate_worker() as running:
        yield running


def escape_args(mode: str, marker: Path, port: int = 0) -> list:
    path = torch.tensor([*str(marker).encode(), 0], dtype=torch.uint8)
    return [path, torch.zeros(4, dtype=torch.int64), struct.pack("<2I", MODES[mode], port)]


def attempt(worker: sandbox.Worker, mode: str, marker: Path, port: int = 0, timeout: float = GENEROUS) -> list[int]:
    """Run one mode in the worker's child, as launch_isolated does; [value, errno, value, errno]."""
    kernel = escape_kernel()
    _, after = worker.call(simulator._launch_in_child, kernel.build, kernel.source, kernel.filename, 1,
                           escape_args(mode, marker, port), None, str(build_runtime_module()), timeout=timeout,
                           what=f"escape {mode}")
    return after[1].tolist()


# ---- the sandbox on this machine ------------------------------------------------------------------------

def test_the_worker_reports_its_protections(worker):
    worker.call(os.getpid, timeout=GENEROUS)
    assert worker.protections == PROTECTIONS, worker.protections.notes


@needs("seccomp")
@pytest.mark.parametrize("mode", ["EXECVE", "POSIX_SPAWNP", "SYSTEM"])
def test_no_new_program(worker, tmp_path, mode):
    marker = tmp_path / "marker"
    value, error, *_ = attempt(worker, mode, marker)
    if mode == "SYSTEM":
        assert value != 0  # the shell never ran: system() answers as if it exited 127
    else:
        assert (value, error) == ((-1, errno.EPERM) if mode == "EXECVE" else (errno.EPERM, errno.EPERM))
    time.sleep(0.2)
    assert not marker.exists()


@needs("landlock_filesystem")
@pytest.mark.parametrize("mode", ["OPEN", "OPEN64", "CREAT64"])
def test_no_write_outside_the_scratch_directory(worker, tmp_path, mode):
    marker = tmp_path / "marker"
    assert attempt(worker, mode, marker)[:2] == [-1, errno.EACCES]
    assert not marker.exists()


@needs("landlock_filesystem")
def test_the_cache_stays_read_only(worker):
    """The caller loads libraries from the cache: the child must not be able to plant one there."""
    marker = build_runtime_module().parent / "escape-marker"
    assert attempt(worker, "OPEN", marker)[:2] == [-1, errno.EACCES]
    assert not marker.exists()


@needs("seccomp", "landlock_network")
def test_no_connection(worker, tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.setblocking(False)
        value, error, *_ = attempt(worker, "CONNECT", tmp_path / "unused", port=server.getsockname()[1])
        assert (value, error) == (-1, errno.EPERM)
        with pytest.raises(BlockingIOError):
            server.accept()


@needs("seccomp")
def test_fork_bomb_forks_nothing(worker, tmp_path):
    marker = tmp_path / "marker"
    value, error, started, _ = attempt(worker, "FORK", marker)
    assert (value, error, started) == (-1, errno.EPERM, 0)
    assert not marker.exists()


@needs("seccomp")
def test_no_daemon_outlives_the_run(worker, tmp_path):
    marker = tmp_path / "marker"
    _, setsid_error, child, fork_error = attempt(worker, "DAEMON", marker)
    assert setsid_error == errno.EPERM and (child, fork_error) == (-1, errno.EPERM)
    time.sleep(2)  # the daemon would write its marker after one second
    assert not marker.exists()


def test_runaway_threads_cost_only_their_run(worker, tmp_path):
    started = time.perf_counter()
    with pytest.raises(KernelTimeoutError):
        attempt(worker, "THREADS", tmp_path / "unused", timeout=8.0)
    assert time.perf_counter() - started < 60
    assert worker.call(os.getpid, timeout=GENEROUS) != os.getpid()  # a fresh child serves the next call


@needs("seccomp", "landlock_filesystem")
def test_load_time_constructors_escape_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv(MARKER_DIR_ENV, str(tmp_path))
    result = torch.zeros(8, dtype=torch.int64)
    at_load_kernel().launch_isolated(1, result, timeout=GENEROUS)
    open64, spawn, system, creat64 = result.view(4, 2).tolist()
    assert open64 == [-1, errno.EACCES] and spawn == [errno.EPERM] * 2
    assert system[0] != 0 and creat64 == [-1, errno.EACCES]
    time.sleep(0.2)
    assert list(tmp_path.iterdir()) == []


# A contract kernel (the built-in SwiGLU) with the attempts added, as a model would write it: a load-time
# constructor and code in the kernel body. The search runs it in its worker like any candidate.
_PAYLOAD = textwrap.dedent("""
    extern "C" {
    int open64(const char *path, int flags, ...);
    long write(int fd, const void *data, unsigned long size);
    int fork(void);
    void _exit(int status);
    int execve(const char *path, char *const argv[], char *const envp[]);
    char *getenv(const char *name);
    int snprintf(char *buffer, unsigned long size, const char *format, ...);
    }
    static void Mark(const char *name)
    {
        const char *dir = getenv("TORCH_ASCENDGEN_ESCAPE_DIR");
        char path[600], command[700];
        if (!dir) return;
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        int fd = open64(path, 01 | 0100, 0644);
        if (fd >= 0) write(fd, "escaped\\n", 8);
        if (fork() == 0) {
            snprintf(command, sizeof(command), "touch '%s.exec'", path);
            char sh[] = "/bin/sh", dash_c[] = "-c";
            char *argv[] = {sh, dash_c, command, nullptr};
            execve(sh, argv, nullptr);
            _exit(0);
        }
    }
    __attribute__((constructor)) static void AtLoad() { Mark("candidate-at-load"); }
    static int g_marked = 0;
""")


@functools.cache
def _escaping_candidate():
    def swiglu(gate, up):
        return F.gelu(gate, approximate="tanh") * up

    task = capture(swiglu, [torch.randn(8, 64), torch.randn(8, 64)])
    good = generate_builtin(task, 1)[0]
    source = good.source.replace('#include "kernel_operator.h"', '#include "kernel_operator.h"\n' + _PAYLOAD, 1)
    source = source.replace("GET_TILING_DATA(t, tiling);",
                            'GET_TILING_DATA(t, tiling); if (!g_marked++) Mark("candidate-in-kernel");', 1)
    assert source != good.source and "Mark(" in source
    return task, swiglu, Candidate(source, "test", {"escaping": 1})


def _search_escaping(worker):
    task, swiglu, candidate = _escaping_candidate()
    sets = make_input_sets(task.inputs, task.traced_shapes)
    return search(task, swiglu, [candidate], sets, None, sim_target(), worker=worker).records[0]


@needs("seccomp", "landlock_filesystem")
def test_a_searched_candidate_escapes_nothing(worker, tmp_path, monkeypatch):
    monkeypatch.setenv(MARKER_DIR_ENV, str(tmp_path))
    worker.restart()  # the child must start with the variable set
    record = _search_escaping(worker)
    assert record.ok, record.failure  # it computes SwiGLU; its attempts failed inside the run
    time.sleep(0.2)
    assert list(tmp_path.iterdir()) == []


# Runs in a process of its own: an escape kills the test's caller, not pytest. It prints its own RLIMIT_CORE,
# the confined attempt's results and its RLIMIT_CORE after; then runs the attempt unconfined, which kills it.
KILL_THE_CALLER = textwrap.dedent('''
    import os, pickle, resource, struct, sys, torch
    kernel = pickle.loads(open(sys.argv[1], "rb").read())
    def attempt():
        result = torch.zeros(4, dtype=torch.int64)
        kernel.launch_isolated(1, torch.zeros(8, dtype=torch.uint8), result, struct.pack("<2I", 10, 0), timeout=120)
        return result.tolist()
    print("before", resource.getrlimit(resource.RLIMIT_CORE), flush=True)
    print("confined", attempt(), flush=True)
    print("after", resource.getrlimit(resource.RLIMIT_CORE), flush=True)
    os.environ["TORCH_ASCENDGEN_SANDBOX"] = "off"
    print("unconfined", attempt(), flush=True)
''')


@needs("seccomp")
def test_the_kernel_cannot_kill_or_limit_its_caller_and_without_the_sandbox_it_can(tmp_path):
    kernel_file = tmp_path / "kernel.pkl"
    kernel_file.write_bytes(pickle.dumps(escape_kernel()))
    done = subprocess.run([sys.executable, "-c", KILL_THE_CALLER, str(kernel_file)], capture_output=True, text=True,
                          timeout=300)
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
    assert lines.get("confined") == str([-1, errno.EPERM, -1, errno.EPERM]), done.stdout + done.stderr[-2000:]
    assert lines["before"] == lines["after"]
    assert done.returncode == -signal.SIGKILL and "unconfined" not in lines, (done.returncode, done.stdout)


# ---- the controls: the same payloads without the sandbox ---------------------------------------------------

def test_without_the_sandbox_the_payloads_escape(tmp_path, monkeypatch):
    """The proof that the tests above can fail: with TORCH_ASCENDGEN_SANDBOX=off every marker appears."""
    monkeypatch.setenv(config.SANDBOX_ENV, "off")
    for mode in ("OPEN", "FORK"):
        args = escape_args(mode, tmp_path / mode)
        escape_kernel().launch_isolated(1, *args, timeout=GENEROUS)
        assert (tmp_path / mode).exists(), (mode, args[1].tolist())
    monkeypatch.setenv(MARKER_DIR_ENV, str(tmp_path / "at-load"))
    (tmp_path / "at-load").mkdir()
    at_load_kernel().launch_isolated(1, torch.zeros(8, dtype=torch.int64), timeout=GENEROUS)
    _wait_for(tmp_path / "at-load", {"constructor-open64", "constructor-posix_spawnp", "global-system",
                                     "global-creat64"})


def test_without_the_sandbox_a_searched_candidate_escapes(tmp_path, monkeypatch):
    monkeypatch.setenv(config.SANDBOX_ENV, "off")
    monkeypatch.setenv(MARKER_DIR_ENV, str(tmp_path))
    with sim_target().candidate_worker() as unconfined:
        assert _search_escaping(unconfined).ok
        assert not unconfined.protections.seccomp
    _wait_for(tmp_path, {"candidate-at-load", "candidate-at-load.exec", "candidate-in-kernel",
                         "candidate-in-kernel.exec"})


def _wait_for(folder: Path, names: set[str]) -> None:
    deadline = time.monotonic() + 10
    while {p.name for p in folder.iterdir()} != names and time.monotonic() < deadline:
        time.sleep(0.1)
    assert {p.name for p in folder.iterdir()} == names


# ---- what comes back from the child is data, never code -------------------------------------------------

class _RunsACommand:
    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch '{self.marker}'",))


def test_a_result_naming_a_function_is_refused_and_runs_nothing(tmp_path):
    marker = tmp_path / "ran"
    result = tmp_path / "job-1.result"
    result.write_bytes(pickle.dumps(("ok", _RunsACommand(marker))))
    with pytest.raises(KernelCrashError, match="posix.system is not data|refuses to read"):
        sandbox._receive(result, tmp_path, "candidate x")
    assert not marker.exists()


def test_a_fifo_or_a_link_in_place_of_a_result_is_refused_at_once(tmp_path):
    os.mkfifo(tmp_path / "job-1.result")
    (tmp_path / "job-2.result").symlink_to("/etc/passwd")
    for name in ("job-1.result", "job-2.result"):
        with pytest.raises(KernelCrashError, match="refuses to read"):
            sandbox._receive(tmp_path / name, tmp_path, "candidate x")


class _Describes(pickle.Pickler):
    def __init__(self, handle, description: tuple):
        super().__init__(handle)
        self.description = description

    def persistent_id(self, obj):
        return self.description if obj == "the tensor" else None


@pytest.mark.parametrize("description", [
    ("tensor", "float32", (100,), (1,), 0, False, False, ("bytes", 16, bytes(16))),  # beyond its storage
    ("tensor", "float32", (2,), (1,), 0, False, False, ("file", 8, "../../etc/passwd")),  # a path, not an index
    ("tensor", "Tensor", (2,), (1,), 0, False, False, ("bytes", 8, bytes(8))),  # not a dtype
])
def test_a_tensor_description_that_does_not_hold_is_refused(tmp_path, description):
    result = tmp_path / "job-1.result"
    with open(result, "wb") as handle:
        _Describes(handle, description).dump(("ok", "the tensor"))
    with pytest.raises(KernelCrashError, match="refuses to read"):
        sandbox._receive(result, tmp_path, "candidate x")


def test_tensors_travel_through_files_and_come_back_as_copies(worker):
    big = torch.randn(1024, 1024)  # 4 MiB: a file each way
    views = [big[::2, 1:], big[3], torch.arange(10, dtype=torch.bfloat16), torch.ones(3, dtype=torch.bool),
             torch.empty(0, 5), torch.nn.Parameter(torch.randn(4))]
    back = worker.call(tuple, views, timeout=GENEROUS)
    for sent, received in zip(views, back):
        assert type(received) is type(sent) and received.dtype == sent.dtype and torch.equal(received, sent)
        assert received.stride() == sent.stride()
    assert back[0].untyped_storage().data_ptr() == back[1].untyped_storage().data_ptr()  # still one storage
    before = big.clone()
    assert torch.equal(worker.call(operator.iadd, big, 1, timeout=GENEROUS), before + 1)
    assert torch.equal(big, before)  # the child changed its own mapping, never the caller's tensor
    assert not list(worker._folder.glob("job-*"))


# ---- the filter itself, for both architectures --------------------------------------------------------------

def _decide(program, arch: str, number: int, *args: int) -> int:
    """What the kernel's BPF interpreter would answer for this syscall (classic BPF, the opcodes the filter uses)."""
    data = struct.pack("<iIQ6Q", number, confinement.AUDIT_ARCH[arch], 0, *(list(args) + [0] * 6)[:6])
    pc, accumulator = 0, 0
    while True:
        code, jt, jf, k = program[pc]
        if code == 0x06:
            return k
        if code == 0x20:
            accumulator, pc = struct.unpack_from("<I", data, k)[0], pc + 1
            continue
        taken = {0x15: accumulator == k, 0x35: accumulator >= k, 0x45: bool(accumulator & k)}[code]
        pc += 1 + (jt if taken else jf)


EPERM, ENOSYS = confinement.RET_ERRNO | errno.EPERM, confinement.RET_ERRNO | errno.ENOSYS
ALLOW = confinement.RET_ALLOW


@pytest.mark.parametrize("arch", sorted(confinement.SYSCALLS))
def test_the_filter_decides_each_rule(arch):
    own = 4242
    cpu = confinement.seccomp_program(arch, "cpu", own)
    npu = confinement.seccomp_program(arch, "npu", own)
    nr = confinement.SYSCALLS[arch]

    def decide(name, *args, program=cpu):
        return _decide(program, arch, nr[name], *args)

    for name in confinement.DENIED_SYSCALLS:
        if name in nr:
            assert decide(name) == EPERM, name
    pthread_flags, fork_flags = 0x3D0F00, 0x01200011  # glibc's pthread_create; fork (SIGCHLD | CLONE_CHILD_*)
    assert decide("clone", pthread_flags) == ALLOW and decide("clone", fork_flags) == EPERM
    assert decide("clone", pthread_flags | 0x10000000) == EPERM  # a thread in a new user namespace
    assert decide("clone3") == ENOSYS
    assert [decide("kill", pid, 9) for pid in (own, 0, 1, own + 1, 0xFFFFFFFF)] == [ALLOW, ALLOW] + [EPERM] * 3
    assert decide("tgkill", own, own + 3, 9) == ALLOW and decide("tgkill", 1, 1, 9) == EPERM
    assert decide("prlimit64", 0, 4) == ALLOW and decide("prlimit64", 1, 4) == EPERM
    assert decide("setpriority", 0, 0, 5) == ALLOW and decide("setpriority", 2, 0, 5) == EPERM  # PRIO_USER
    assert decide("fcntl", 3, confinement.F_SETOWN, 1) == EPERM and decide("fcntl", 3, 3) == ALLOW  # F_GETFL
    assert decide("socket", 2, 1) == EPERM and decide("socket", confinement.AF_UNIX, 1) == EPERM
    assert decide("socket", confinement.AF_UNIX, 1, program=npu) == ALLOW
    assert decide("socket", 2, 1, program=npu) == EPERM
    assert _decide(cpu, arch, 0) == ALLOW  # read (aarch64: io_setup) and everything else not named
    assert _decide(cpu, "aarch64" if arch == "x86_64" else "x86_64", 0) == confinement.RET_KILL_PROCESS
    if arch == "x86_64":
        assert _decide(cpu, arch, 0x40000000 | 59) == EPERM  # execve through the x32 ABI


_HEADERS = {"x86_64": Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h"),
            "aarch64": Path("/usr/include/asm-generic/unistd.h")}


@pytest.mark.parametrize("arch", sorted(_HEADERS))
def test_the_syscall_numbers_match_the_kernel_headers(arch):
    header = _HEADERS[arch]
    if not header.is_file():
        pytest.skip(f"{header} is not installed (linux-libc-dev)")
    defined = {m.group(1): int(m.group(2)) for m in re.finditer(r"#define __NR(?:3264)?_(\w+)\s+(\d+)",
                                                                 header.read_text())}
    assert {name: defined.get(name) for name in confinement.SYSCALLS[arch]} == confinement.SYSCALLS[arch]


# ---- the doctor ---------------------------------------------------------------------------------------------

@needs("no_new_privs", "capabilities_dropped", "landlock_filesystem", "landlock_network", "landlock_scopes",
       "seccomp")
def test_doctor_reports_the_whole_sandbox():
    check = doctor.check_sandbox()
    assert check.status == doctor.OK and "Landlock ABI" in check.detail and "seccomp" in check.detail


def test_doctor_warns_when_protections_are_missing_or_off(monkeypatch):
    monkeypatch.delenv(config.SANDBOX_ENV, raising=False)
    partial = (confinement.Protections(no_new_privs=True, seccomp=True, notes=("the kernel has no Landlock",)),
               {"fork": True, "write outside the scratch directory": False})
    check = doctor.check_sandbox(partial)
    assert check.status == doctor.WARN and check.fix == doctor.SANDBOX_FIX
    assert "Landlock filesystem rules" in check.detail and "not stopped: write outside" in check.detail
    assert doctor.exit_status([check]) == 0
    monkeypatch.setenv(config.SANDBOX_ENV, "off")
    assert doctor.check_sandbox().status == doctor.WARN
    monkeypatch.setenv(config.SANDBOX_ENV, "maybe")
    assert doctor.check_sandbox().status == doctor.FAIL
