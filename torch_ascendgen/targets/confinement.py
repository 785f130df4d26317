"""Confinement: the kernel-enforced sandbox of the child process that runs candidate kernels.

A candidate is code a model wrote; the text screen and the check of its linked symbols can be
fooled, so the child that loads it confines itself first, with what the Linux kernel enforces:

- resource limits: address space and file size (``Policy.memory_bytes``), and the number of
  tasks (RLIMIT_NPROC; the kernel does not enforce it for root, where seccomp denies fork);
- ``PR_SET_NO_NEW_PRIVS``, and every capability dropped (bounding and ambient sets too): the child
  otherwise runs with the caller's, root's on many NPU servers;
- Landlock: file writes of every kind only beneath the writable directories (the child's scratch
  directory), no execution, no TCP bind or connect (ABI 4), no signals to or abstract-socket
  connections with processes outside the sandbox (ABI 6). Reads stay allowed;
- seccomp-bpf, checked against the architecture (x86_64, aarch64) and applied to every thread:
  no new programs or processes (execve, fork, clone without CLONE_THREAD; clone3 answers ENOSYS so
  that glibc's pthread_create falls back to clone), no sockets (the NPU profile keeps AF_UNIX), no
  signal, rlimit or priority change aimed at another process, no ptrace or process_vm_*, no
  setsid/setpgid (a daemon must not leave the process group the caller kills), no mounts,
  namespaces, bpf, perf, keyrings, io_uring, userfaultfd, module loading, reboot, clock setting.

The "build" profile confines the compiler that builds a candidate (``exec_confined``): Landlock
handles reads too, so the compiler reads only the toolchain, our headers and its staging directory,
and writes only there; seccomp lets it start its own programs (cc1plus, as, ld) but nothing else of
the list above. ``allowed_environment`` is the environment every confined process starts with:
the user's secrets (an API key) are not in it.

``confine`` applies what this kernel has and returns a ``Protections`` record of what is active;
it never raises for a missing interface. It must run while the process has one thread: Landlock
binds only the calling thread and the threads it creates later. The sandbox therefore loads this
file by its path, before the package (and torch) is imported, so it imports only the standard
library.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import platform
import resource
import stat
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

MODES = ("auto", "off")
PROFILES = ("cpu", "npu", "build")

# ---- Landlock (include/uapi/linux/landlock.h); the syscalls have one number on every architecture --------

_LANDLOCK_CREATE_RULESET, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT_SELF = 444, 445, 446
_LANDLOCK_CREATE_RULESET_VERSION = 1
_LANDLOCK_RULE_PATH_BENEATH = 1

FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_REMOVE_DIR, FS_REMOVE_FILE, FS_MAKE_CHAR, FS_MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
FS_MAKE_REG, FS_MAKE_SOCK, FS_MAKE_FIFO, FS_MAKE_BLOCK = 1 << 8, 1 << 9, 1 << 10, 1 << 11
FS_MAKE_SYM, FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 12, 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

# Rights Landlock handles (denies unless a rule grants them), by the ABI that introduced them: every kind of
# write, and execution. Reads are not handled yet.
_HANDLED_FS_BY_ABI = ((1, FS_EXECUTE | FS_WRITE_FILE | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_CHAR | FS_MAKE_DIR
                       | FS_MAKE_REG | FS_MAKE_SOCK | FS_MAKE_FIFO | FS_MAKE_BLOCK | FS_MAKE_SYM),
                      (2, FS_REFER), (3, FS_TRUNCATE), (5, FS_IOCTL_DEV))
# What a writable directory grants: files and directories. No symlinks, FIFOs, sockets or device nodes: the
# parent reads files from the scratch directory, and a FIFO or a link there would block or redirect it.
SCRATCH_RIGHTS = FS_WRITE_FILE | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_DIR | FS_MAKE_REG | FS_REFER | FS_TRUNCATE
_FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV  # the rights a file rule may hold
_DEVICE_RIGHTS = FS_WRITE_FILE | FS_TRUNCATE | FS_IOCTL_DEV  # the NPU profile's /dev: open devices, drive them
# The build profile handles reads as well: what a readable path grants, an executable one, and its staging directory.
READ_RIGHTS = FS_READ_FILE | FS_READ_DIR
_STAGING_RIGHTS = SCRATCH_RIGHTS | READ_RIGHTS
_NULL_DEVICE = "/dev/null"


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


# ---- seccomp (include/uapi/linux/seccomp.h, filter.h, audit.h) ---------------------------------------------

AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_X32_SYSCALL_BIT = 0x40000000
_SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_TSYNC = 1, 1
RET_KILL_PROCESS, RET_ERRNO, RET_ALLOW = 0x80000000, 0x00050000, 0x7FFF0000
_LD_W_ABS, _JEQ_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
_NR_OFFSET, _ARCH_OFFSET = 0, 4


def _arg_offset(index: int) -> int:
    """Where the low 32 bits of argument ``index`` sit in struct seccomp_data (both architectures are little-endian)."""
    return 16 + 8 * index


# Syscall numbers: x86_64's arch/x86/entry/syscalls/syscall_64.tbl, aarch64's asm-generic/unistd.h.
SYSCALLS = {
    "x86_64": dict(
        execve=59, execveat=322, fork=57, vfork=58, clone=56, clone3=435, socket=41, ptrace=101,
        process_vm_readv=310, process_vm_writev=311, kill=62, tkill=200, tgkill=234, rt_sigqueueinfo=129,
        rt_tgsigqueueinfo=297, pidfd_send_signal=424, pidfd_getfd=438, process_madvise=440, process_mrelease=448,
        mount=165, umount2=166, pivot_root=155, chroot=161, unshare=272, setns=308, open_tree=428, move_mount=429,
        fsopen=430, fsconfig=431, fsmount=432, fspick=433, mount_setattr=442, bpf=321, perf_event_open=298,
        keyctl=250, add_key=248, request_key=249, io_uring_setup=425, io_uring_enter=426, io_uring_register=427,
        userfaultfd=323, open_by_handle_at=304, name_to_handle_at=303, kexec_load=246, kexec_file_load=320,
        init_module=175, finit_module=313, delete_module=176, reboot=169, swapon=167, swapoff=168,
        settimeofday=164, clock_settime=227, adjtimex=159, clock_adjtime=305, setsid=112, setpgid=109,
        personality=135, uselib=134, prlimit64=302, setpriority=141, fcntl=72, ioctl=16, seccomp=317),
    "aarch64": dict(
        execve=221, execveat=281, clone=220, clone3=435, socket=198, ptrace=117,
        process_vm_readv=270, process_vm_writev=271, kill=129, tkill=130, tgkill=131, rt_sigqueueinfo=138,
        rt_tgsigqueueinfo=240, pidfd_send_signal=424, pidfd_getfd=438, process_madvise=440, process_mrelease=448,
        mount=40, umount2=39, pivot_root=41, chroot=51, unshare=97, setns=268, open_tree=428, move_mount=429,
        fsopen=430, fsconfig=431, fsmount=432, fspick=433, mount_setattr=442, bpf=280, perf_event_open=241,
        keyctl=219, add_key=217, request_key=218, io_uring_setup=425, io_uring_enter=426, io_uring_register=427,
        userfaultfd=282, open_by_handle_at=265, name_to_handle_at=264, kexec_load=104, kexec_file_load=294,
        init_module=105, finit_module=273, delete_module=106, reboot=142, swapon=224, swapoff=225,
        settimeofday=170, clock_settime=112, adjtimex=171, clock_adjtime=266, setsid=157, setpgid=154,
        personality=92, prlimit64=261, setpriority=140, fcntl=25, ioctl=29, seccomp=277),
}

# Denied outright (EPERM); a name the architecture lacks (fork on aarch64) is skipped.
DENIED_SYSCALLS = (
    "execve", "execveat", "fork", "vfork", "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_send_signal",
    "pidfd_getfd", "process_madvise", "process_mrelease", "mount", "umount2", "pivot_root", "chroot", "unshare",
    "setns", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", "bpf",
    "perf_event_open", "keyctl", "add_key", "request_key", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "userfaultfd", "open_by_handle_at", "name_to_handle_at", "kexec_load", "kexec_file_load", "init_module",
    "finit_module", "delete_module", "reboot", "swapon", "swapoff", "settimeofday", "clock_settime", "adjtimex",
    "clock_adjtime", "setsid", "setpgid", "personality", "uselib")
# The build profile's compiler driver starts its own programs (cc1plus, as, collect2, ld); Landlock decides which.
BUILD_ALLOWED = ("execve", "execveat", "fork", "vfork")

CLONE_THREAD = 0x00010000
CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x80
AF_UNIX = 1
PRIO_PROCESS = 0
F_SETOWN, F_SETSIG, F_SETOWN_EX = 8, 10, 15  # a file's SIGIO could be aimed at another process
FIOSETOWN, SIOCSPGRP, TIOCSTI = 0x8901, 0x8902, 0x5412

# ---- prctl, capabilities ---------------------------------------------------------------------------------

_PR_SET_NO_NEW_PRIVS, _PR_CAPBSET_DROP, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 38, 24, 47, 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


@dataclass(frozen=True)
class Policy:
    """What the child may do: where it writes, which profile of syscalls, its memory."""

    mode: str = "auto"             # "auto": every protection this kernel has; "off": resource limits only
    profile: str = "cpu"           # "npu": device files and AF_UNIX sockets too
    writable: tuple[str, ...] = ()  # directories the child may write beneath (its scratch directory first)
    memory_bytes: int = 0          # RLIMIT_AS and RLIMIT_FSIZE; 0: none
    readable: tuple[str, ...] = ()    # build profile: what it may read besides ``writable`` (nothing else)
    executable: tuple[str, ...] = ()  # build profile: what it may read and execute (the toolchain)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Policy:
        values = json.loads(text)
        return cls(values["mode"], values["profile"], tuple(values["writable"]), int(values["memory_bytes"]),
                   tuple(values.get("readable", ())), tuple(values.get("executable", ())))


@dataclass(frozen=True)
class Protections:
    """Which protections are active in a confined process, and why any is not."""

    no_new_privs: bool = False
    capabilities_dropped: bool = False
    landlock_abi: int = 0              # 0: no Landlock
    landlock_filesystem: bool = False  # writes only beneath the writable directories, no execution
    landlock_network: bool = False     # TCP bind and connect denied (ABI 4)
    landlock_scopes: bool = False      # signals and abstract unix sockets stay inside the sandbox (ABI 6)
    seccomp: bool = False
    notes: tuple[str, ...] = field(default=())  # why something is off
    landlock_reads: bool = False       # build profile: reads only the toolchain, our headers, its staging directory
    profile: str = "cpu"

    @property
    def complete(self) -> bool:
        """Every protection the sandbox wants is active."""
        return not self.missing()

    def missing(self) -> list[str]:
        wanted = {"no_new_privs": "no_new_privs", "capabilities_dropped": "capabilities dropped",
                  "landlock_filesystem": "Landlock filesystem rules", "landlock_network": "Landlock network rules",
                  "landlock_scopes": "Landlock signal and socket scopes", "seccomp": "seccomp filter"}
        return [label for name, label in wanted.items() if not getattr(self, name)]

    def describe(self) -> str:
        parts = ["no_new_privs"] * self.no_new_privs + ["no capabilities"] * self.capabilities_dropped
        if self.landlock_filesystem:
            rules = (["reads only the toolchain, our headers and its staging directory"] * self.landlock_reads
                     + ["writes only to its " + ("staging" if self.profile == "build" else "scratch") + " directory"]
                     + ["no TCP"] * self.landlock_network
                     + ["signals and abstract sockets scoped"] * self.landlock_scopes)
            parts.append(f"Landlock ABI {self.landlock_abi} ({', '.join(rules)})")
        if self.seccomp:
            denied = "sockets, ptrace, mounts" if self.profile == "build" else "exec, fork, sockets"
            parts.append(f"seccomp (no {denied}, signals to other processes)")
        return ", ".join(parts) or "none"


_ACTIVE: Protections | None = None


def active() -> Protections | None:
    """What ``confine`` applied in this process (None: it was not called)."""
    return _ACTIVE


def confine(policy: Policy) -> Protections:
    """Limit this process's resources and confine it as ``policy`` says; what is active (never raises for a
    protection the kernel lacks: the record says why it is off). Call it while the process has one thread."""
    global _ACTIVE
    notes: list[str] = []
    _limit_resources(policy.memory_bytes, notes)
    if policy.mode == "off":
        _ACTIVE = Protections(notes=("the sandbox is off (TORCH_ASCENDGEN_SANDBOX=off)", *notes))
        return _ACTIVE
    if sys.platform != "linux":
        _ACTIVE = Protections(notes=(f"no kernel sandbox on {sys.platform}", *notes))
        return _ACTIVE
    threads = _thread_count()
    if threads > 1:
        notes.append(f"{threads} threads were running: Landlock binds only the calling thread and its later threads")
    libc = ctypes.CDLL(None, use_errno=True)
    no_new_privs = _call(libc.prctl, "prctl(PR_SET_NO_NEW_PRIVS)", notes, _PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    landlock = _landlock(libc, policy, notes) if no_new_privs else (0, False, False, False)
    dropped = _drop_capabilities(libc, notes)
    filtered = _seccomp(libc, policy.profile, notes) if no_new_privs else False
    reads = landlock[1] and policy.profile == "build"
    _ACTIVE = Protections(no_new_privs, dropped, *landlock, filtered, tuple(notes), reads, policy.profile)
    return _ACTIVE


def _call(function, what: str, notes: list[str], *args) -> bool:
    if function(*[ctypes.c_ulong(a) if isinstance(a, int) else a for a in args]) == -1:
        notes.append(f"{what} failed: {os.strerror(ctypes.get_errno())}")
        return False
    return True


def _thread_count() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


# ---- resource limits -----------------------------------------------------------------------------------

THREAD_ALLOWANCE = 512  # tasks the child may add to its user's count (RLIMIT_NPROC counts every task of the user)


def _limit_resources(memory_bytes: int, notes: list[str]) -> None:
    limits = []
    if memory_bytes > 0:
        limits += [(resource.RLIMIT_AS, memory_bytes), (resource.RLIMIT_FSIZE, memory_bytes)]
    if hasattr(os, "getuid") and os.getuid() != 0:  # the kernel exempts root from RLIMIT_NPROC
        limits.append((resource.RLIMIT_NPROC, _tasks_of_user(os.getuid()) + THREAD_ALLOWANCE))
    for which, value in limits:
        try:
            _, hard = resource.getrlimit(which)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(which, (value, value))
        except (OSError, ValueError) as exc:
            notes.append(f"resource limit {which} not set: {exc}")


def _tasks_of_user(uid: int) -> int:
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry.name}/task"))
            except OSError:
                continue  # it ended while we looked
    return count


# ---- capabilities --------------------------------------------------------------------------------------

def _drop_capabilities(libc, notes: list[str]) -> bool:
    """Empty the bounding (when permitted), ambient, effective, permitted and inheritable sets."""
    last = _last_capability()
    for cap in range(last + 1):
        if libc.prctl(ctypes.c_ulong(_PR_CAPBSET_DROP), ctypes.c_ulong(cap), 0, 0, 0) == -1:
            if ctypes.get_errno() == errno.EPERM:
                notes.append("the capability bounding set is kept (no CAP_SETPCAP); no_new_privs stops exec from "
                             "raising capabilities")
            break  # EINVAL: past the kernel's last capability
    libc.prctl(ctypes.c_ulong(_PR_CAP_AMBIENT), ctypes.c_ulong(_PR_CAP_AMBIENT_CLEAR_ALL), 0, 0, 0)
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    if libc.capset(ctypes.byref(header), data) != 0:
        notes.append(f"capset failed: {os.strerror(ctypes.get_errno())}")
        return False
    after = (_CapData * 2)()
    libc.capget(ctypes.byref(header), after)
    return not any(d.effective or d.permitted or d.inheritable for d in after)


def _last_capability() -> int:
    try:
        return int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    except (OSError, ValueError):
        return 63


# ---- Landlock ------------------------------------------------------------------------------------------

def _syscall(libc, number: int, *args) -> int:
    result = libc.syscall(ctypes.c_long(number), *args)
    return -ctypes.get_errno() if result == -1 else result


def landlock_abi(libc=None) -> int:
    """The kernel's Landlock ABI version; 0 when it has none (too old, or not enabled at boot)."""
    libc = libc or ctypes.CDLL(None, use_errno=True)
    version = _syscall(libc, _LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                       ctypes.c_uint32(_LANDLOCK_CREATE_RULESET_VERSION))
    return max(version, 0)


def handled_fs_rights(abi: int) -> int:
    rights = 0
    for since, bits in _HANDLED_FS_BY_ABI:
        if abi >= since:
            rights |= bits
    return rights


def _landlock(libc, policy: Policy, notes: list[str]) -> tuple[int, bool, bool, bool]:
    """(ABI, filesystem rules, network rules, scopes) as applied."""
    abi = landlock_abi(libc)
    if abi == 0:
        notes.append("the kernel has no Landlock (Linux 5.13 or newer, with landlock in the lsm= boot parameter)")
        return 0, False, False, False
    handled = handled_fs_rights(abi) | (READ_RIGHTS if policy.profile == "build" else 0)
    attr = _RulesetAttr(handled, NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0,
                        SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8  # an older kernel rejects fields it does not know
    ruleset = _syscall(libc, _LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        notes.append(f"landlock_create_ruleset failed: {os.strerror(-ruleset)}")
        return abi, False, False, False
    try:
        for path, rights in _path_rules(policy):
            _allow(libc, ruleset, path, rights & handled, notes)
        result = _syscall(libc, _LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)
    if result < 0:
        notes.append(f"landlock_restrict_self failed: {os.strerror(-result)}")
        return abi, False, False, False
    if abi < 4:
        notes.append(f"Landlock ABI {abi} has no network rules (ABI 4, Linux 6.7)")
    if abi < 6:
        notes.append(f"Landlock ABI {abi} cannot scope signals and abstract unix sockets (ABI 6, Linux 6.12)")
    return abi, True, abi >= 4, abi >= 6


def _path_rules(policy: Policy) -> list[tuple[str, int]]:
    if policy.profile == "build":  # reads are handled: every path it needs is named
        return ([(path, _STAGING_RIGHTS) for path in policy.writable]
                + [(path, READ_RIGHTS) for path in policy.readable]
                + [(path, READ_RIGHTS | FS_EXECUTE) for path in policy.executable]
                + [(_NULL_DEVICE, FS_READ_FILE | FS_WRITE_FILE | FS_TRUNCATE)])
    rules = [(path, SCRATCH_RIGHTS) for path in policy.writable]
    if policy.profile == "npu":  # device files (opened, driven by ioctl), and the driver's shared memory
        rules += [("/dev", _DEVICE_RIGHTS), ("/dev/shm", SCRATCH_RIGHTS)]
    return rules


def _allow(libc, ruleset: int, path: str, rights: int, notes: list[str]) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError as exc:
        notes.append(f"no rule for {path}: {exc.strerror}")
        return
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            rights &= _FILE_RIGHTS
        rule = _PathBeneathAttr(rights, fd)
        result = _syscall(libc, _LANDLOCK_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_LANDLOCK_RULE_PATH_BENEATH),
                          ctypes.byref(rule), ctypes.c_uint32(0))
        if result < 0:
            notes.append(f"no rule for {path}: landlock_add_rule failed: {os.strerror(-result)}")
    finally:
        os.close(fd)


# ---- seccomp -------------------------------------------------------------------------------------------

def machine() -> str | None:
    """This process's syscall architecture as SYSCALLS names it; None for one the filter does not know."""
    name = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(), platform.machine().lower())
    return name if name in SYSCALLS and ctypes.sizeof(ctypes.c_void_p) == 8 else None


def _ld(offset: int) -> tuple:
    return (_LD_W_ABS, 0, 0, offset)


def _ret(action: int) -> tuple:
    return (_RET_K, 0, 0, action)


def _eperm() -> tuple:
    return _ret(RET_ERRNO | errno.EPERM)


def _arg_in(index: int, values: tuple[int, ...]) -> list[tuple]:
    """Allow when the argument's low 32 bits are one of ``values``; EPERM otherwise (ends in a return)."""
    block = [_ld(_arg_offset(index))]
    for position, value in enumerate(values):
        block.append((_JEQ_K, len(values) - position, 0, value & 0xFFFFFFFF))  # to the ALLOW after the EPERM
    return block + [_eperm(), _ret(RET_ALLOW)]


def _arg_not_in(index: int, values: tuple[int, ...]) -> list[tuple]:
    """EPERM when the argument's low 32 bits are one of ``values``; allow otherwise."""
    block = [_ld(_arg_offset(index))]
    for position, value in enumerate(values):
        block.append((_JEQ_K, len(values) - position, 0, value & 0xFFFFFFFF))  # to the EPERM after the ALLOW
    return block + [_ret(RET_ALLOW), _eperm()]


def _clone_rule(processes: bool) -> list[tuple]:
    """A thread (CLONE_THREAD, no new namespace) is allowed; a process only when ``processes``."""
    if processes:
        return [_ld(_arg_offset(0)), (_JSET_K, 0, 1, CLONE_NAMESPACES), _eperm(), _ret(RET_ALLOW)]
    return [_ld(_arg_offset(0)), (_JSET_K, 2, 0, CLONE_NAMESPACES), (_JSET_K, 0, 1, CLONE_THREAD),
            _ret(RET_ALLOW), _eperm()]


def _argument_rules(profile: str, pid: int) -> dict[str, list[tuple]]:
    # kill: itself, or its own process group (it cannot leave the group); a build, whose launcher leads its own
    # process group, may name the group by -pid too
    group = (pid, 0, -pid) if profile == "build" else (pid, 0)
    rules = {
        "clone": _clone_rule(profile == "build"),
        "clone3": [_ret(RET_ERRNO | errno.ENOSYS)],  # its flags sit in memory, out of the filter's reach
        "socket": _arg_in(0, (AF_UNIX,)) if profile == "npu" else [_eperm()],
        "kill": _arg_in(0, group),
        "prlimit64": _arg_in(0, (0, pid)),
        "fcntl": _arg_not_in(1, (F_SETOWN, F_SETSIG, F_SETOWN_EX)),
        "ioctl": _arg_not_in(1, (FIOSETOWN, SIOCSPGRP, TIOCSTI)),
    }
    for name in ("tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
        rules[name] = _arg_in(0, (pid,))
    who = _arg_in(1, (0, pid))  # of PRIO_PROCESS only: PRIO_USER 0 would renice every process of the user
    rules["setpriority"] = [_ld(_arg_offset(0)), (_JEQ_K, 0, len(who) - 2, PRIO_PROCESS), *who]
    return rules


def seccomp_program(arch: str, profile: str, pid: int) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jt, jf, k) instructions: the architecture checked, then a rule per syscall."""
    numbers = SYSCALLS[arch]
    program = [_ld(_ARCH_OFFSET), (_JEQ_K, 1, 0, AUDIT_ARCH[arch]), _ret(RET_KILL_PROCESS), _ld(_NR_OFFSET)]
    if arch == "x86_64":  # the x32 ABI: the same arch value, numbers with bit 30 set
        program += [(_JGE_K, 0, 1, _X32_SYSCALL_BIT), _eperm()]
    allowed = BUILD_ALLOWED if profile == "build" else ()
    for name in DENIED_SYSCALLS:
        if name in numbers and name not in allowed:
            program += [(_JEQ_K, 0, 1, numbers[name]), _eperm()]
    for name, block in _argument_rules(profile, pid).items():
        program += [(_JEQ_K, 0, len(block), numbers[name]), *block]
    program.append(_ret(RET_ALLOW))
    assert all(jt < 256 and jf < 256 for _, jt, jf, _ in program) and len(program) < 4096
    return program


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _seccomp(libc, profile: str, notes: list[str]) -> bool:
    arch = machine()
    if arch is None:
        notes.append(f"no seccomp filter for the {platform.machine()} architecture (x86_64 and aarch64 have one)")
        return False
    program = seccomp_program(arch, profile, os.getpid())
    filters = (_SockFilter * len(program))(*[_SockFilter(*instruction) for instruction in program])
    fprog = _SockFprog(len(program), filters)
    number = SYSCALLS[arch]["seccomp"]
    result = _syscall(libc, number, ctypes.c_uint(_SECCOMP_SET_MODE_FILTER), ctypes.c_uint(_SECCOMP_FILTER_FLAG_TSYNC),
                      ctypes.byref(fprog))
    if result != 0:
        notes.append(f"seccomp filter not installed: {os.strerror(-result) if result < 0 else f'thread {result}'}")
        return False
    return True


# ---- the environment of a confined process ----------------------------------------------------------------

# What a confined process keeps of its caller's environment, by name: what the interpreter, torch, torch_npu and the
# toolchain need to start. Everything else (an API key, a cloud token, a proxy with credentials) stays behind.
_KEPT_NAMES = frozenset({
    "PATH", "LD_LIBRARY_PATH", "PYTHONPATH", "PYTHONHOME", "PYTHONNOUSERSITE", "PYTHONDONTWRITEBYTECODE",
    "PYTHONHASHSEED", "PYTHONUTF8", "PYTHONFAULTHANDLER", "VIRTUAL_ENV", "CONDA_PREFIX", "LANG", "LANGUAGE", "TZ",
    "TORCH_DEVICE_BACKEND_AUTOLOAD", "PYTORCH_NPU_ALLOC_CONF", "TOOLCHAIN_HOME"})
_KEPT_PREFIXES = ("LC_", "OMP_", "MKL_", "OPENBLAS_", "KMP_", "GOMP_", "ASCEND_", "TORCH_ASCENDGEN_")
# The build keeps only what finds the toolchain (bisheng needs the toolkit's libraries and settings).
_BUILD_NAMES = frozenset({"PATH", "LD_LIBRARY_PATH", "TOOLCHAIN_HOME"})
_BUILD_PREFIXES = ("ASCEND_",)
# Dropped even when the name is kept: the model server's settings (a confined process never talks to it) and
# anything named like a credential.
_DROPPED_PREFIXES = ("TORCH_ASCENDGEN_LLM_",)
_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSW", "CREDENTIAL", "AUTH", "COOKIE", "SESSION")


def allowed_environment(environ, profile: str, home: str, settings: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a confined process of ``profile`` starts with: the names it needs from ``environ`` (the
    caller's), no secrets, ``settings`` (values the caller resolved, such as its cache directory, which HOME no
    longer finds), and HOME and TMPDIR pointed at ``home`` (its scratch or staging directory). A build runs in the
    C locale, so that diagnostics read the same everywhere."""
    names, prefixes = (_BUILD_NAMES, _BUILD_PREFIXES) if profile == "build" else (_KEPT_NAMES, _KEPT_PREFIXES)
    kept = {name: value for name, value in environ.items()
            if (name in names or name.startswith(prefixes)) and not _secret(name)}
    kept.update(settings or {})
    kept.update(HOME=home, TMPDIR=home)
    if profile == "build":
        kept.update(LANG="C", LC_ALL="C")
    return kept


def _secret(name: str) -> bool:
    upper = name.upper()
    return upper.startswith(_DROPPED_PREFIXES) or any(word in upper for word in _SECRET_WORDS)


# ---- the confined build ------------------------------------------------------------------------------------

# A build's launcher: this file loaded by its path (isolated mode, no site: nothing of the user's is imported),
# confined by the policy, then replaced by the compiler.
_LAUNCHER = """\
import importlib.util, sys
spec = importlib.util.spec_from_file_location("ascendgen_confinement", sys.argv[1])
module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
module.exec_confined(module.Policy.from_json(sys.argv[2]), sys.argv[3:])
"""
EXEC_FAILED = 126  # the launcher's exit status when the program could not start


def launcher_command(policy: Policy, command: list[str]) -> list[str]:
    """The command that runs ``command`` (its program an absolute path) confined by ``policy``."""
    return [sys.executable, "-I", "-S", "-c", _LAUNCHER, str(Path(__file__).resolve()), policy.to_json(), *command]


def exec_confined(policy: Policy, command: list[str]) -> None:
    """Confine this process by ``policy``, then replace it by ``command`` (never returns)."""
    protections = confine(policy)
    if (policy.mode != "off" and policy.profile == "build" and protections.landlock_abi
            and not protections.landlock_reads):
        sys.stderr.write(f"the build sandbox could not be applied: {'; '.join(protections.notes)}\n")
        os._exit(EXEC_FAILED)  # Landlock is there but refused the rules: no build rather than an open one
    try:
        os.execv(command[0], command)
    except OSError as exc:
        sys.stderr.write(f"{command[0]} did not start in the build sandbox: {exc.strerror}\n")
        os._exit(EXEC_FAILED)


# ---- the doctor's probe ----------------------------------------------------------------------------------

def probe(scratch: str) -> dict:
    """Confine this process as a candidate child would be, then try what the sandbox must stop; what held.

    Run in a short-lived child (``python -c``, this file loaded by path): confinement cannot be undone."""
    protections = confine(Policy(writable=(scratch,)))
    outside = Path(scratch).parent / (Path(scratch).name + ".outside")
    attempts = {"write outside the scratch directory": lambda: outside.write_text("escaped"),
                "fork": _fork_and_reap,
                "TCP socket": lambda: __import__("socket").socket().close(),
                "signal to another process": lambda: os.kill(os.getppid(), 0)}
    stopped = {}
    for what, attempt in attempts.items():
        try:
            attempt()
            stopped[what] = False
        except OSError:
            stopped[what] = True
    Path(scratch, "inside").write_text("ok")  # the scratch directory stays writable
    return {"protections": asdict(protections), "stopped": stopped}


def _fork_and_reap() -> None:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
