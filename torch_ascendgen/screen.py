"""Screen: a model's reply -> a kernel source that may be built, or the reason it may not.

Nothing a model writes is compiled before it passes here: one ``#include "kernel_operator.h"``
(and a few standard headers that only declare types and math), no inline assembly, nothing that
reaches the OS (processes, files, sockets, threads, the environment, dynamic loading), no macro
that could hide those, the contract's two entry points, and at most 64 KB. The reason a source is
rejected goes back to the model as its feedback.
"""

from __future__ import annotations

import re

from .errors import ScreenRejected
from .generate import ENTRY, TILING_FUNCTION

MAX_SOURCE_BYTES = 64 * 1024
ALLOWED_HEADERS = frozenset({"kernel_operator.h", "cstdint", "stdint.h", "cstddef", "stddef.h", "cmath", "math.h",
                             "climits", "limits.h", "cfloat", "float.h", "type_traits", "limits"})

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+#.-]*)[^\n]*\n(.*?)```", re.DOTALL)
_CODE_LANGUAGES = {"", "cpp", "c++", "cxx", "cc", "c", "ascendc", "h", "hpp"}
_INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]*)[>"]', re.MULTILINE)
_FORBIDDEN_CALLS = ("system", "popen", "execl", "execlp", "execle", "execv", "execvp", "execvpe", "fork", "vfork",
                    "fopen", "freopen", "open", "openat", "creat", "socket", "connect", "bind", "pthread_create",
                    "getenv", "secure_getenv", "setenv", "putenv", "dlopen", "dlsym", "syscall", "remove", "unlink",
                    "kill", "mmap")
_FORBIDDEN_WORDS = ("asm", "__asm__", "__asm", "environ", "std::thread", "std::async", "std::system",
                    "std::getenv", "std::fopen", "std::ifstream", "std::ofstream", "std::fstream", "__builtin_trap")
_TOKEN_PASTE = re.compile(r"#\s*define[^\n]*(##|#\s*[A-Za-z_])")


def extract_source(text: str, finish_reason: str = "stop") -> str:
    """The last ```cpp (or unlabelled) block of a reply. Raises ScreenRejected for a cut or code-less reply."""
    if finish_reason == "length":
        raise ScreenRejected("your reply was cut off at the max_tokens limit before the code was complete; "
                             "reply with only the complete kernel in one ```cpp block, with less explanation")
    blocks = [body for language, body in _FENCE.findall(text) if language.lower() in _CODE_LANGUAGES]
    if not blocks:
        if "```" in text:
            raise ScreenRejected("your reply has an unterminated code block; reply with the complete kernel in "
                                 "one ```cpp block closed by ```")
        raise ScreenRejected("your reply contains no code; reply with the complete kernel source in one ```cpp block")
    return blocks[-1].strip() + "\n"


def screen(source: str) -> None:
    """Raise ScreenRejected(reason) unless ``source`` may be built: headers, OS access, entry points, size."""
    size = len(source.encode())
    if size > MAX_SOURCE_BYTES:
        raise ScreenRejected(f"the kernel source is {size} bytes; the limit is {MAX_SOURCE_BYTES}: write a "
                             "shorter kernel")
    code = _strip_comments_and_strings(source)
    _check_headers(source)
    _check_forbidden(code)
    _check_entry_points(code)


def _check_headers(source: str) -> None:
    for _, header in _INCLUDE.findall(_strip_comments(source)):
        if header.strip() not in ALLOWED_HEADERS:
            raise ScreenRejected(f'#include <{header}> is not allowed: include only "kernel_operator.h" (and '
                                 f"standard type headers such as <cstdint>)")
    if not re.search(r'#\s*include\s*"kernel_operator.h"', source):
        raise ScreenRejected('the kernel must #include "kernel_operator.h"')


def _check_forbidden(code: str) -> None:
    for word in _FORBIDDEN_WORDS:
        if re.search(rf"(?<![\w:]){re.escape(word)}\b", code):
            raise ScreenRejected(f"the kernel uses `{word}`, which is not allowed: kernels do vector work on "
                                 "their tensors only (no assembly, OS, files, threads or environment)")
    for name in _FORBIDDEN_CALLS:
        if re.search(rf"(?<![\w.>])(?:::)?\s*{name}\s*\(", code):
            raise ScreenRejected(f"the kernel calls `{name}(...)`, which is not allowed: kernels may not "
                                 "reach the OS (processes, files, sockets, threads, environment)")
    for line in re.findall(r"#\s*define[^\n]*", code):
        hidden = [name for name in _FORBIDDEN_CALLS if re.search(rf"\b{name}\b", line)]
        if hidden:
            raise ScreenRejected(f"a #define names `{hidden[0]}`, which kernels may not call")
    if re.search(r"#\s*(?:define|undef)\s+GET_TILING_DATA\b", code):
        raise ScreenRejected("the kernel defines GET_TILING_DATA; the build provides it (on the NPU it also declares "
                             "the kernel type): call `GET_TILING_DATA(t, tiling);` without defining it")
    if _TOKEN_PASTE.search(code):
        raise ScreenRejected("#define with # or ## (stringising or token pasting) is not allowed; write the "
                             "code out")


def _check_entry_points(code: str) -> None:
    if not re.search(rf"\b{TILING_FUNCTION}\s*\(", code):
        raise ScreenRejected(f'the kernel does not define the host tiling function `extern "C" uint32_t '
                             f"{TILING_FUNCTION}(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, "
                             "const int64_t* dims, TilingData* tiling, uint64_t* workspaceBytes)`")
    entry = re.search(rf"\b{ENTRY}\s*\(", code)
    if not entry:
        raise ScreenRejected(f'the kernel does not define the entry `extern "C" __global__ __aicore__ void '
                             f"{ENTRY}(GM_ADDR in0, ..., GM_ADDR out0, ..., GM_ADDR workspace, GM_ADDR tiling)`")
    if not re.search(r"\bGET_TILING_DATA\s*\(", code[entry.end():]):
        raise ScreenRejected(f"the entry {ENTRY} must start with `GET_TILING_DATA(t, tiling);`")


def _strip_comments(source: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", " ", source, flags=re.DOTALL)


def _strip_comments_and_strings(source: str) -> str:
    """The code without comments and string or character literals (so prose cannot trip the checks)."""
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.DOTALL)
    return pattern.sub(lambda m: " " if m.group(0).startswith("/") else '""', source)
