"""The library audit and the text screen against kernels that try to reach the OS, and against every kernel we ship.

Each payload is screened (the model's feedback) and, bypassing the screen, built with compile_kernel and
audited: the audit must refuse every payload that compiles, whatever its spelling. Every built-in template
variant, seed and tests/kernels kernel must pass both.
"""

import os
import pickle
import platform
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch

from shipped import shipped_kernels
from torch_ascendgen.capture import capture
from torch_ascendgen.errors import LibraryRefused, ScreenRejected
from torch_ascendgen.generators.llm.screen import screen
from torch_ascendgen.records import ENTRY, Candidate
from torch_ascendgen.targets.sim.library_audit import audit_library, baseline_entries, load_time_entries, read_elf
from torch_ascendgen.targets.sim.simulator import compile_kernel, find_entry
from torch_ascendgen.targets.target import sim_target

BASE = """#include "kernel_operator.h"
{top}
struct TilingData {{ uint32_t n; }};
extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks,
                                     const int64_t* dims, TilingData* tiling, uint64_t* workspaceBytes) {{
    tiling->n = static_cast<uint32_t>(dims[0]);
    return 1;
}}
extern "C" __global__ __aicore__ void ascendgen_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {{
    GET_TILING_DATA(t, tiling);
    if (t.n == 12345) {{
        {body}
    }}
}}
"""

if platform.machine() in ("aarch64", "arm64"):
    RAW_CALL = '__as\\\nm__ volatile("s\\\nvc #0" : "+r"(x0) : "r"(x8) : "memory");'
    RAW_FUNCTION = ("static long raw_call(long n) { register long x8 __asm__(\"x8\") = n; "
                    "register long x0 __asm__(\"x0\") = 0;\n    " + RAW_CALL + "\n    return x0; }")
else:
    RAW_FUNCTION = ('static long raw_call(long n) {\n    long r;\n    __as\\\nm__ volatile("sys\\\ncall" : "=a"(r) : '
                    '"a"(n) : "rcx", "r11", "memory");\n    return r;\n}')

OS_FUNCTIONS = ("dlsym", "dlopen", "getenv", "secure_getenv", "syscall", "mprotect", "mmap", "sigaction", "signal",
                "fork", "vfork", "setsid", "daemon", "open", "openat", "fopen", "read", "write", "prctl", "ptrace",
                "clone", "unshare", "execvp", "getrlimit", "clock_gettime", "gettimeofday", "sched_getaffinity",
                "readlink", "sysconf")

# name: (top of file, kernel body, what the screen says (None: it cannot tell, the source is plain C++), the audit's
# check, the name the audit reports (alternatives split by |))
PAYLOADS = {
    "posix_spawnp_at_load": (
        'extern "C" int posix_spawnp(int*, const char*, const void*, const void*, char* const*, char* const*);\n'
        'static int spawned = [] { char* argv[] = {nullptr}; int pid = 0;\n'
        '    return posix_spawnp(&pid, "sh", nullptr, nullptr, argv, argv); }();',
        "(void)spawned;", 'extern "C" posix_spawnp', "imports", "posix_spawnp"),
    "execve": ('extern "C" int execve(const char*, char* const*, char* const*);',
               'execve("/bin/sh", nullptr, nullptr);', 'extern "C" execve', "imports", "execve"),
    "system": ("", 'system("id");', "calls `system`", "imports", "system"),
    "open64_write": ('extern "C" int open64(const char*, int, ...);\n'
                     'extern "C" long write(int, const void*, unsigned long);',
                     'write(open64("/tmp/pwned", 0101), "x", 1);', 'extern "C" open64', "imports", "open64"),
    "creat64": ('extern "C" int creat64(const char*, unsigned);', 'creat64("/tmp/pwned", 0644);',
                'extern "C" creat64', "imports", "creat64"),
    "socket": ('extern "C" int socket(int, int, int);', "socket(2, 1, 0);", 'extern "C" socket', "imports",
               "socket"),
    "dlsym_split_strings": ('extern "C" void* dlsym(void*, const char*);',
                            "char name[] = {'s', 'y', 's', 't', 'e', 'm', 0};\n"
                            "        auto f = (int (*)(const char*))dlsym(nullptr, name); f(\"id\");",
                            'extern "C" dlsym', "imports", "dlsym"),
    "static_constructor": ("__attribute__((constructor)) static void at_load() { volatile int v = 1; (void)v; }",
                           "", "attribute `constructor`", "load_time_code", "at_load"),
    "dynamic_initialiser": ("static double seen = std::sqrt(static_cast<double>(reinterpret_cast<uintptr_t>(&seen)));",
                            "(void)seen;", None, "load_time_code", "_GLOBAL__sub_I"),
    "dynamic_initialiser_calling_system": ('static int ran = system("id");', "(void)ran;", "calls `system`",
                                           "imports", "system"),
    "spliced_asm_syscall": (RAW_FUNCTION, "raw_call(39);", "`__asm__` is not allowed", "system_call",
                            "raw_call|ascendgen_kernel"),  # where the compiler put it (inlined or not)
    "weak_declaration": ('extern "C" int kill(int, int) __attribute__((weak));', "if (kill) kill(0, 9);",
                         "attribute `weak`", "imports", "kill"),
    "function_pointer_from_integer": (
        "", "auto f = reinterpret_cast<int (*)(const char*)>(reinterpret_cast<uintptr_t>(&memcpy) + 0x1234);\n"
        '        f("id");', "function pointers are not allowed", "address_taken", "memcpy"),
    "include_through_macro": ("#define HEADER <cstdlib>\n#include HEADER", 'system("id");', "through a macro",
                              "imports", "system"),
    "macro_indirection": ("#define CALL(f) f", 'CALL(sys\\\ntem)("id");', "uses `system`", "imports", "system"),
    "os_services": (  # what the screen's bypasses (issue 12) would link to, each referenced once (asm labels:
        # the C library's headers, which the simulator's include, declare most of them with other types)
        'extern "C" {\n' + "".join(f'long os_{name}(...) __asm__("{name}");\n' for name in OS_FUNCTIONS)
        + 'extern char** os_environ1 __asm__("__environ");\nextern char** os_environ2 __asm__("environ");\n}',
        "long r = 0;\n" + "".join(f"        r += os_{name}();\n" for name in OS_FUNCTIONS)
        + "        r += (long)os_environ1 + (long)os_environ2;\n        tiling[0] = (uint8_t)r;",
        '`__asm__` is not allowed', "imports", "dlsym"),
}


def payload_source(name: str) -> str:
    top, body, *_ = PAYLOADS[name]
    return BASE.format(top=top, body=body)


@pytest.fixture(scope="session")
def payload_builds() -> dict:
    """name -> the built library's path, or the build error; built once, in parallel."""
    def build(name):
        try:
            return name, compile_kernel(payload_source(name), ENTRY, contract=True).build.library
        except Exception as exc:  # noqa: BLE001 - a payload that does not compile is reported by its test
            return name, exc
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return dict(pool.map(build, PAYLOADS))


@pytest.mark.parametrize("name", PAYLOADS)
def test_the_screens_verdict_on_every_payload(name):
    expected = PAYLOADS[name][2]
    if expected is None:
        screen(payload_source(name))  # a global's initialiser is ordinary C++: only the built library shows it
        return
    with pytest.raises(ScreenRejected) as caught:
        screen(payload_source(name))
    assert expected in caught.value.reason


@pytest.mark.parametrize("name", PAYLOADS)
def test_the_audit_refuses_every_payload_built_past_the_screen(name, payload_builds):
    library = payload_builds[name]
    assert isinstance(library, Path), f"the payload did not compile: {library}"
    _, _, _, check, found = PAYLOADS[name]
    with pytest.raises(LibraryRefused) as caught:
        audit_library(library)
    assert caught.value.check == check
    assert any(one in symbol for one in found.split("|") for symbol in caught.value.found), caught.value.found
    assert caught.value.fix in str(caught.value)


def test_the_audit_names_every_os_service_a_kernel_links_to(payload_builds):
    with pytest.raises(LibraryRefused) as caught:
        audit_library(payload_builds["os_services"])
    assert set(OS_FUNCTIONS) | {"__environ", "environ"} <= set(caught.value.found), caught.value.found


def test_the_refusal_survives_pickling(payload_builds):
    with pytest.raises(LibraryRefused) as caught:
        audit_library(payload_builds["execve"])
    copy = pickle.loads(pickle.dumps(caught.value))
    assert (copy.check, copy.found, str(copy)) == (caught.value.check, caught.value.found, str(caught.value))


def test_the_search_counts_a_refused_library_as_the_candidates_failure():
    from torch_ascendgen.evaluate.search import _build

    task = capture(lambda x: x + 1, [torch.randn(8)], name="f")
    built, _ = _build(Candidate(payload_source("execve"), "model"), task, sim_target())
    assert isinstance(built, LibraryRefused) and "execve" in str(built)


# ---- no false positives ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def our_builds() -> dict[str, Path]:
    """Every built-in template variant, seed and tests/kernels kernel (shipped.shipped_kernels), built once."""
    def build(item):
        name, (source, contract) = item
        entry = ENTRY if contract else find_entry(source)
        return name, compile_kernel(source, entry, contract=contract).build.library
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return dict(pool.map(build, shipped_kernels().items()))


def test_every_kernel_we_write_or_ship_passes_the_audit(our_builds):
    refused = {}
    for name, library in our_builds.items():
        try:
            audit_library(library)
        except LibraryRefused as exc:
            refused[name] = str(exc)
    assert not refused


def test_the_simulator_headers_make_no_load_time_code_in_the_kernels_file():
    """The constructor check compares with a minimal kernel: it is exact only while our headers give the
    kernel's translation unit (export.cpp) no dynamic initialisation of their own."""
    entries = baseline_entries()
    assert entries and not [name for _, name in entries if "_GLOBAL__sub_I" in name]


def test_a_minimal_kernel_has_no_system_call_and_only_the_runtimes_imports():
    from torch_ascendgen.targets.sim.build import build_sim_kernel
    from torch_ascendgen.targets.sim.library_audit import MINIMAL_KERNEL
    from torch_ascendgen.targets.sim.simulator import CONTRACT_EXPORT

    library = build_sim_kernel(MINIMAL_KERNEL + CONTRACT_EXPORT, ENTRY).library
    audit_library(library)
    assert load_time_entries(read_elf(library)) == baseline_entries()


def test_a_kernel_on_the_sort_apis_passes_the_audit():
    """Sort32's model sorts with std::stable_sort, whose buffer comes from operator new(std::nothrow): the tag
    object std::nothrow is an import the audit takes (DrivingSDK's unique_v2 through an operator project)."""
    body = """AscendC::TPipe pipe;
        AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 4096);
        AscendC::LocalTensor<float> all = buf.Get<float>();
        AscendC::Sort32<float>(all[256], all, all[64].ReinterpretCast<uint32_t>(), 1);"""
    source = BASE.format(top="", body=body)
    library = compile_kernel(source, find_entry(source), contract=True).build.library
    assert "_ZSt7nothrow" in read_elf(library).imports
    audit_library(library)
