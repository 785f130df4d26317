"""Library audit: a built simulator kernel library -> fit to load, or LibraryRefused.

The text screen (screen.py) reads what a model wrote, and spelling can fool it (splices, macros,
aliases). This reads what the compiler and linker made of it, before anything loads it:

- imports: every undefined dynamic symbol (what the library calls outside itself) must be on an
  allow-list: what the simulator headers and launch runtime need (measured over every built-in
  template variant, seed and test kernel: libm, the C++ runtime's allocation, exceptions and
  strings, memcpy and friends, the launch runtime's threads, locks and clock) plus the compiler's
  own arithmetic helpers. Processes, files, sockets, the environment, dynamic loading, memory
  mapping and raw system calls are not on it;
- address_taken: an imported function may be called (through its PLT slot), not have its address
  taken as data: that address is how a kernel would reach a function it does not import
  (``&memcpy + offset``). The C and C++ runtimes' own data references are allowed;
- system_call: no ``syscall``/``sysenter``/``int $0x80`` (x86_64) or ``svc`` (aarch64) instruction in
  the library's own code, and no data objects placed in its executable sections;
- load_time_code: nothing of the kernel's runs when the library is loaded or unloaded: its
  ``.init_array``/``.fini_array`` (``.ctors``/``.dtors`` are merged into them) hold exactly the
  entries of a minimal kernel built the same way (the C runtime's ``frame_dummy`` and
  ``__do_global_dtors_aux``; the simulator headers add none), and no IFUNC resolver (which the
  dynamic loader runs while relocating). A kernel with ``__attribute__((constructor))``, a global
  with a dynamic initialiser (its translation unit's ``_GLOBAL__sub_I_export.cpp``) or a
  function pointer placed in ``.init_array`` adds an entry and is refused with that entry's name.

Why binutils' readelf and objdump rather than an ELF library: they come with the linker that
every g++ or clang build on Linux uses, decode every ELF flavour (word size, byte order, RELA,
REL and packed RELR relocations, x86_64 and aarch64 code), cost ~5 ms each on a kernel library,
and add no dependency. The audit never loads the library.

What a static check cannot see: code that computes a libc address by pointer arithmetic from
its own GOT. The kernel-enforced sandbox of the child that runs candidates (confinement.py)
stops what that code could do; this audit keeps such a library out of the user's process.
"""

from __future__ import annotations

import collections
import functools
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from torch_ascendgen.errors import AscendGenError, LibraryRefused

_MATH = ("sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh exp exp2 exp10 expm1 log log2 log10 "
         "log1p logb ilogb pow sqrt cbrt hypot erf erfc tgamma lgamma ceil floor trunc round lround llround rint "
         "lrint llrint nearbyint fmod remainder remquo fabs fmin fmax fdim fma copysign nextafter nexttoward frexp "
         "ldexp scalbn scalbln modf nan sincos").split()

_IMPORTS = frozenset({
    *(name + suffix for name in _MATH for suffix in ("", "f", "l")),
    # the C library: memory, bounded formatting into buffers (the simulator's diagnostics), the runtime's pid check
    "memcpy", "memmove", "memset", "memcmp", "strlen", "snprintf", "vsnprintf", "malloc", "calloc", "realloc",
    "free", "aligned_alloc", "posix_memalign", "getpid", "abort",
    # the launch runtime's worker pool (std::thread, std::condition_variable, std::mutex, std::chrono)
    "_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE",
    "_ZNSt6thread6detachEv", "_ZNSt6thread4joinEv", "_ZNSt6thread6_StateD2Ev", "_ZNSt6chrono3_V212steady_clock3nowEv",
    "_ZNSt18condition_variableC1Ev", "_ZNSt18condition_variableD1Ev", "_ZNSt18condition_variable10notify_oneEv",
    "_ZNSt18condition_variable10notify_allEv", "_ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE",
    "_ZSt9terminatev",
    "_ZSt7nothrow",  # the tag object of operator new(nothrow): std::stable_sort's buffer (the sort APIs)
    # the C++ ABI: exceptions, guarded statics, thread-local destructors, unwinding
    "__cxa_allocate_exception", "__cxa_free_exception", "__cxa_throw", "__cxa_rethrow", "__cxa_begin_catch",
    "__cxa_end_catch", "__cxa_guard_acquire", "__cxa_guard_release", "__cxa_guard_abort", "__cxa_finalize",
    "__cxa_atexit", "__cxa_thread_atexit", "__cxa_thread_atexit_impl", "__cxa_pure_virtual", "__cxa_deleted_virtual",
    "__cxa_call_unexpected", "__cxa_bad_cast", "__cxa_bad_typeid", "__gxx_personality_v0", "_Unwind_Resume",
    "__tls_get_addr", "__gmon_start__", "_ITM_registerTMCloneTable", "_ITM_deregisterTMCloneTable",
    # hardening some distributions' compilers turn on by default (stack protector, _FORTIFY_SOURCE)
    "__stack_chk_fail", "__stack_chk_guard", "__memcpy_chk", "__memmove_chk", "__memset_chk", "__snprintf_chk",
    "__vsnprintf_chk",
})
_IMPORT_PATTERNS = tuple(re.compile(p) for p in (
    r"__(?:%s)[fl]?_finite" % "|".join(_MATH),  # older glibc's math entry points
    r"_ZNK?St7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE\w+",  # std::string (the diagnostics' text)
    r"_ZSt\d+__throw_[a-z_]+\w*",  # the C++ library's throw helpers
    r"_ZT[VIS](?:St\d+[a-z_]+|N10__cxxabiv1\d+__[a-z_]+_type_infoE|NSt6thread6_StateE)",  # RTTI, vtables
    r"_ZNSt\d+[a-z_]+D[012]Ev",  # destructors of std exception classes
    r"_Zn[wa]m(?:St11align_val_t)?(?:RKSt9nothrow_t)?",  # operator new, new[]
    r"_Zd[la]Pv(?:m)?(?:St11align_val_t)?(?:RKSt9nothrow_t)?",  # operator delete, delete[]
    r"pthread_(?:mutex|cond)_[a-z]+",  # std::mutex, std::condition_variable
    # the compiler's arithmetic helpers (half and bf16 conversions and compares, 128-bit division)
    r"__(?:(?:add|sub|mul|div|neg)(?:hf|sf|df|tf|xf|bf)3|(?:eq|ne|lt|le|gt|ge|unord|cmp)(?:hf|sf|df|tf|xf|bf)2"
    r"|(?:extend|trunc)(?:hf|sf|df|tf|xf|bf){2}2|float(?:un)?(?:si|di|ti)(?:hf|sf|df|tf|xf|bf)"
    r"|fix(?:uns)?(?:hf|sf|df|tf|xf|bf)(?:si|di|ti)|powi(?:hf|sf|df|tf|xf)2|(?:mul|div)(?:hc|sc|dc|tc|xc)3"
    r"|(?:u?div|u?mod|mul|ashl|ashr|lshr|popcount|clz|ctz|ffs|parity|bswap)[sdt]i[23]|gnu_[hf]2[hf]_ieee)",
    r"__aarch64_(?:cas|swp|ldadd|ldclr|ldeor|ldset)(?:1|2|4|8|16)_(?:relax|acq|rel|acq_rel|sync)",  # outline atomics
))
# Imported functions the C and C++ runtimes reference as data (crt's hooks, EH tables, exception destructors).
_DATA_REFERENCES = frozenset({"__cxa_finalize", "__gmon_start__", "_ITM_registerTMCloneTable",
                              "_ITM_deregisterTMCloneTable", "__gxx_personality_v0", "__cxa_pure_virtual",
                              "__cxa_deleted_virtual", "_ZNSt6thread6_StateD2Ev"})
_DATA_REFERENCE_PATTERN = re.compile(r"_ZNSt\d+[a-z_]+D[012]Ev")
_CALL_SLOTS = re.compile(r"R_\w+_JU?MP_SLOT")
_LOAD_TIME_RELOCATIONS = re.compile(r"R_\w+_IRELATIVE")
_SYSTEM_CALL = re.compile(r"^\s*[0-9a-f]+:\s+(?:syscall|sysenter|int\s+\$0x80|svc\s+#?\w+)\b", re.MULTILINE)
_ARRAYS = {"INIT_ARRAY": "init", "PREINIT_ARRAY": "init", "FINI_ARRAY": "fini", ".ctors": "init", ".dtors": "fini"}

MINIMAL_KERNEL = """#include "kernel_operator.h"
struct TilingData { uint32_t n; };
extern "C" uint32_t ascendgen_tiling(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks,
                                     const int64_t* dims, TilingData* tiling, uint64_t* workspaceBytes) {
    return 0;
}
extern "C" __global__ __aicore__ void ascendgen_kernel(GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(t, tiling);
    (void)t;
}
"""

_KERNEL_FIX = ("Kernels may call only the AscendC API, <cmath> functions and functions they define; they reach no "
               "OS service (processes, files, sockets, environment, dynamic loading, memory mapping)")


@dataclass
class Elf:
    """What the audit reads from one library (readelf's view of it)."""

    path: Path
    word: int = 8
    little_endian: bool = True
    # section name -> (type, address, file offset, size, flags)
    sections: dict[str, tuple[str, int, int, int, str]] = field(default_factory=dict)
    section_names: dict[int, str] = field(default_factory=dict)  # by index
    imports: dict[str, str] = field(default_factory=dict)  # undefined dynamic symbol -> its type
    names_at: dict[int, set[str]] = field(default_factory=lambda: collections.defaultdict(set))
    ifuncs: set[str] = field(default_factory=set)
    code_objects: set[str] = field(default_factory=set)  # data objects in executable sections
    relocations: list[tuple[int, str, str, int]] = field(default_factory=list)  # offset, type, symbol, addend


def audit_library(path: str | Path) -> None:
    """Raise LibraryRefused unless the simulator kernel library at ``path`` imports only allowed symbols, makes
    no system calls of its own and runs nothing when loaded. ~20 ms; the library is never loaded."""
    elf = read_elf(Path(path))
    _check_imports(elf)
    _check_address_taken(elf)
    _check_load_time_code(elf)
    _check_system_calls(elf)


def read_elf(path: Path) -> Elf:
    """The library's sections, symbols and relocations (one readelf run). Raises LibraryRefused if it is no ELF."""
    text = _run("readelf", "-W", "-h", "-S", "-s", "-r", str(path))
    if "ELF Header:" not in text:
        raise LibraryRefused("unreadable", (path.name,), "it is not an ELF shared library readelf can read",
                             "Rebuild it; a library in the cache that fails this was damaged or replaced", str(path))
    elf = Elf(path)
    table = ""
    for line in text.splitlines():
        if line.startswith(("Symbol table '", "Relocation section '")):
            table = line.split("'")[1]
        elif "Class:" in line:
            elf.word = 4 if "ELF32" in line else 8
        elif "Data:" in line:
            elf.little_endian = "little endian" in line
        else:
            _read_line(elf, line, table)
    return elf


def _read_line(elf: Elf, line: str, table: str) -> None:
    section = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+(\S*)"
                       r"\s+\d+\s+\d+\s+\d+$", line)
    if section:
        index, name, kind, addr, off, size, flags = section.groups()
        elf.sections[name] = (kind, int(addr, 16), int(off, 16), int(size, 16), flags)
        elf.section_names[int(index)] = name
        return
    symbol = re.match(r"\s*\d+:\s+([0-9a-f]+)\s+(?:0x)?[0-9a-f]+\s+(\w+)\s+\w+\s+\w+(?:\s+\[[^]]*\])?\s+(\w+)\s*(.*)$",
                      line)
    if symbol and table:
        _read_symbol(elf, table, int(symbol.group(1), 16), symbol.group(2), symbol.group(3),
                     symbol.group(4).split("@")[0].split(" (")[0].strip())
        return
    relocation = re.match(r"([0-9a-f]+)\s+[0-9a-f]+\s+(R_\w+)\s*(.*)$", line)
    if relocation:
        offset, kind, rest = int(relocation.group(1), 16), relocation.group(2), relocation.group(3).strip()
        named = re.match(r"[0-9a-f]+\s+(\S+?)(?:@\S*)?\s+([+-])\s+([0-9a-f]+)$", rest)
        if named:
            addend = int(named.group(3), 16) * (-1 if named.group(2) == "-" else 1)
            elf.relocations.append((offset, kind, named.group(1), addend))
        else:
            elf.relocations.append((offset, kind, "", int(rest, 16) if re.fullmatch(r"[0-9a-f]+", rest) else 0))


def _read_symbol(elf: Elf, table: str, value: int, kind: str, index: str, name: str) -> None:
    if not name:
        return
    if index == "UND":
        if table == ".dynsym":
            elf.imports[name] = kind
        return
    if not index.isdigit():
        return
    if kind == "IFUNC":
        elf.ifuncs.add(name)
    if kind in ("FUNC", "NOTYPE", "IFUNC"):
        elf.names_at[value].add(name)
    section = elf.section_names.get(int(index), "")
    if kind == "OBJECT" and "X" in elf.sections.get(section, ("", 0, 0, 0, ""))[4]:
        elf.code_objects.add(name)


def allowed_import(name: str) -> bool:
    return name in _IMPORTS or any(p.fullmatch(name) for p in _IMPORT_PATTERNS)


def _check_imports(elf: Elf) -> None:
    refused = sorted(name for name in elf.imports if not allowed_import(name))
    if refused:
        raise LibraryRefused("imports", tuple(refused), "it calls functions outside the kernel that kernels may "
                             "not use", _KERNEL_FIX, str(elf.path))


def _check_address_taken(elf: Elf) -> None:
    functions = {name for name, kind in elf.imports.items() if kind in ("FUNC", "NOTYPE", "IFUNC")}
    taken = sorted({symbol for _, kind, symbol, _ in elf.relocations
                    if symbol in functions and not _CALL_SLOTS.fullmatch(kind) and symbol not in _DATA_REFERENCES
                    and not _DATA_REFERENCE_PATTERN.fullmatch(symbol)})
    if taken:
        raise LibraryRefused("address_taken", tuple(taken), "it takes the address of functions it imports (a way to "
                             "reach functions it does not import)", "Call library functions directly; kernels use "
                             "no function pointers", str(elf.path))


def _check_load_time_code(elf: Elf) -> None:
    resolvers = sorted(elf.ifuncs) + [f"IRELATIVE at {offset:#x}" for offset, kind, _, _ in elf.relocations
                                      if _LOAD_TIME_RELOCATIONS.fullmatch(kind)]
    if resolvers:
        raise LibraryRefused("load_time_code", tuple(resolvers), "it has IFUNC resolvers, which run while the "
                             "library is loaded", "Remove __attribute__((ifunc)); kernels run only when launched",
                             str(elf.path))
    extra = load_time_entries(elf) - baseline_entries()
    if extra:
        names = [f"{name} (.{array}_array)" for array, name in sorted(extra.elements())]
        raise LibraryRefused("load_time_code", _demangled(names), "it runs code when the library is "
                             "loaded or unloaded (static constructors or destructors, or globals with dynamic "
                             "initialisers)", "Remove __attribute__((constructor/destructor)) functions and give "
                             "globals constant initialisers (constexpr); kernels run only when launched",
                             str(elf.path))


def load_time_entries(elf: Elf) -> collections.Counter:
    """("init" or "fini", the entry's function names) for every entry of the library's init and fini arrays."""
    relocated = {offset: (symbol, addend) for offset, _, symbol, addend in elf.relocations}
    entries: collections.Counter = collections.Counter()
    data = elf.path.read_bytes()
    for name, (kind, addr, off, size, _) in elf.sections.items():
        array = _ARRAYS.get(kind) or _ARRAYS.get(name)
        for slot in range(addr, addr + size, elf.word) if array else ():
            symbol, target = relocated.get(slot, ("", None))
            if target is None:
                raw = data[off + slot - addr: off + slot - addr + elf.word]
                target = int.from_bytes(raw, "little" if elf.little_endian else "big")
            if not symbol and target in (0, (1 << 8 * elf.word) - 1):
                continue  # .ctors/.dtors sentinels
            entries[(array, symbol or "/".join(sorted(elf.names_at.get(target, ()))) or hex(target))] += 1
    return entries


def _check_system_calls(elf: Elf) -> None:
    if elf.code_objects:
        raise LibraryRefused("system_call", tuple(sorted(elf.code_objects)), "it places data in executable "
                             "sections", "Remove __attribute__((section)); kernels keep data in ordinary variables",
                             str(elf.path))
    code = _run("objdump", "-d", "--no-show-raw-insn", "-w", str(elf.path))
    found = set()
    for instruction in _SYSTEM_CALL.finditer(code):
        header = code.rfind(">:\n", 0, instruction.start())
        found.add(code[code.rfind("<", 0, header) + 1:header] if header >= 0 else "?")
    if found:
        raise LibraryRefused("system_call", _demangled(sorted(found)), "its own code makes raw system calls (syscall, "
                             "sysenter, int $0x80 or svc instructions) in these functions",
                             "Remove inline assembly; kernels reach no OS service", str(elf.path))


def _demangled(names: list[str]) -> tuple[str, ...]:
    """C++ names as the kernel spelt them (``_ZL7at_loadv`` -> ``at_load()``), for the model's feedback."""
    if not names or shutil.which("c++filt") is None:
        return tuple(names)
    done = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=False)
    lines = done.stdout.splitlines()
    return tuple(lines) if len(lines) == len(names) else tuple(names)


@functools.cache
def baseline_entries() -> collections.Counter:
    """The init and fini array entries of a minimal kernel built like every other (the C runtime's): built once
    per toolchain and simulator version (the build cache keeps it)."""
    from torch_ascendgen.records import ENTRY
    from torch_ascendgen.targets.sim.build import build_sim_kernel
    from torch_ascendgen.targets.sim.simulator import CONTRACT_EXPORT

    library = build_sim_kernel(MINIMAL_KERNEL + CONTRACT_EXPORT, ENTRY).library
    return load_time_entries(read_elf(library))


def _run(tool: str, *args: str) -> str:
    if shutil.which(tool) is None:
        raise AscendGenError(f"{tool} (GNU binutils) was not found; it checks every kernel library before it is "
                             f"loaded. Install binutils (apt-get install binutils), which the C++ compiler's linker "
                             f"comes with")
    done = subprocess.run([tool, *args], capture_output=True, text=True, check=False)
    return done.stdout
