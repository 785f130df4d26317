"""Screening a model's reply before anything is built: extraction, the allow-lists, the contract."""

from pathlib import Path

import pytest
import torch

from shipped import shipped_kernels
from torch_ascendgen.capture import capture
from torch_ascendgen.errors import ScreenRejected
from torch_ascendgen.generators.builtin.generator import generate_builtin
from torch_ascendgen.generators.llm.screen import MAX_SOURCE_BYTES, api_names, extract_source, screen

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def good() -> str:
    task = capture(lambda x, y: x * 2 + y, [torch.randn(4, 40), torch.randn(4, 40)], name="f")
    return generate_builtin(task, 1)[0].source


def rejected(source: str) -> str:
    with pytest.raises(ScreenRejected) as caught:
        screen(source)
    return caught.value.reason


def test_the_built_in_generators_kernel_passes(good):
    screen(good)


def test_the_last_cpp_block_is_taken_and_prose_around_it_ignored():
    text = "First try:\n```cpp\nint a;\n```\nBetter:\n```c++\nint b;\n```\nDone."
    assert extract_source(text) == "int b;\n"
    assert extract_source("```\nint c;\n```") == "int c;\n"
    assert extract_source("```python\nx = 1\n```\n```cpp\nint d;\n```") == "int d;\n"


@pytest.mark.parametrize("text, finish, reason", [
    ("Use DataCopyPad for the tail.", "stop", "contains no code"),
    ("```cpp\nint a;\n", "stop", "unterminated"),
    ("```cpp\nint a;\n```", "length", "cut off at the max_tokens"),
])
def test_replies_without_a_usable_block_are_rejected(text, finish, reason):
    with pytest.raises(ScreenRejected, match=reason):
        extract_source(text, finish)


@pytest.mark.parametrize("edit, reason", [
    (lambda s: "#include <cstdlib>\n" + s, "#include <cstdlib> is not allowed"),
    (lambda s: '#include "../../secrets.h"\n' + s, "is not allowed"),
    (lambda s: s.replace("op.Process();", 'op.Process(); system("id");'), "calls `system`"),
    (lambda s: s.replace("op.Process();", 'op.Process(); ::popen("id", "r");'), "popen"),
    (lambda s: s.replace("op.Process();", 'op.Process(); auto f = fopen("/etc/passwd", "r");'), "fopen"),
    (lambda s: s.replace("op.Process();", 'op.Process(); const char* h = getenv("HOME");'), "getenv"),
    (lambda s: s.replace("op.Process();", "op.Process(); extern char** environ; (void)environ;"),
     "`extern` is allowed only"),
    (lambda s: s.replace("op.Process();", 'op.Process(); asm volatile("nop");'), "`asm` is not allowed"),
    (lambda s: s.replace("op.Process();", "op.Process(); std::thread t([]{});"), "uses `thread`"),
    (lambda s: "#define RUN sys##tem\n" + s, "token pasting"),
    (lambda s: "#define RUN system\n" + s, "uses `system`"),
    (lambda s: s.replace("ascendgen_tiling", "my_tiling"), "host tiling function"),
    (lambda s: s.replace("ascendgen_kernel", "my_kernel"), "does not define the entry"),
    (lambda s: s.replace("GET_TILING_DATA(t, tiling);", "TilingData t{};"), "GET_TILING_DATA"),
    (lambda s: s.replace('#include "kernel_operator.h"', ""), 'must #include "kernel_operator.h"'),
    (lambda s: s.replace('#include "kernel_operator.h"', '#include "kernel_operator.h"\n#undef GET_TILING_DATA\n'
                         '#define GET_TILING_DATA(t, p) TilingData t{}'), "the build provides it"),
    (lambda s: s + "// " + "x" * MAX_SOURCE_BYTES, f"the limit is {MAX_SOURCE_BYTES}"),
])
def test_forbidden_or_incomplete_sources_are_rejected_with_a_reason(good, edit, reason):
    assert reason in rejected(edit(good))


def test_words_in_comments_and_strings_are_not_calls(good):
    screen(good.replace("op.Process();", 'op.Process(); // never system("x") here\n const char* s = "fork()";'))


def inserted(good: str, top: str = "", body: str = "") -> str:
    return good.replace('#include "kernel_operator.h"', '#include "kernel_operator.h"\n' + top).replace(
        "op.Process();", "op.Process();\n    " + body)


@pytest.mark.parametrize("top, body, reason", [
    # spelling tricks: splices are joined before anything is checked
    ("", 'sys\\\ntem("id");', "calls `system`"),
    ("", '__as\\\nm__ volatile("sys\\\ncall");', "`__asm__` is not allowed"),
    ("", '__asm ("nop");', "`__asm` is not allowed"),
    ("#define HEADER <cstdlib>\n#include HEADER", "", "never through a macro"),
    ("#define CALL(f) f", 'CALL(system)("id");', "uses `system`"),
    ("", 'auto run = system; run("id");', "uses `system`"),
    ("", 'const char* p = R"(a"b)"; (void)p;', "raw string literals"),
    ("", 'sys\\u0074em("id");', "universal character name"),
    ("%:include <cstdlib>", "", "digraph"),
    ("#define JOIN(a, b) a%:%:b", 'JOIN(sys, tem)("id");', "token pasting"),
    ("#pragma redefine_extname run system", "", "#pragma redefine_extname"),
    ("#include_next <cstdlib>", "", "#include_next is not allowed"),
    # what runs at load time, or hides a symbol
    ("__attribute__((constructor)) static void early() {}", "", "attribute `constructor`"),
    ("__attribute__((destructor)) static void late() {}", "", "attribute `destructor`"),
    ("[[gnu::constructor]] static void early() {}", "", "attribute `constructor`"),
    ("struct S { S() {} }; S s __attribute__((init_priority(101)));", "", "attribute `init_priority`"),
    ('extern "C" int kill(int, int) __attribute__((weak));', "", "attribute `weak`"),
    ('void f() __attribute__((alias("ascendgen_kernel")));', "", "attribute `alias`"),
    ('__attribute__((section(".text"))) const unsigned char code[] = {0x0f, 0x05};', "", "attribute `section`"),
    ("#define EARLY __attribute__((constructor))\nEARLY static void early() {}", "", "attribute `constructor`"),
    # declarations of what lives outside the kernel
    ('extern "C" int posix_spawnp(int*, const char*, const void*, const void*, char* const*, char* const*);', "",
     'extern "C" posix_spawnp'),
    ('extern "C" { int execve(const char*, char* const*, char* const*); }', "", "`extern` is allowed only"),
    ("extern char** environ;", "", "`extern` is allowed only"),
    ('extern "C" int creat64(const char*, unsigned);', 'creat64("x", 0);', 'extern "C" creat64'),
    # function pointers from integer addresses
    ("", 'reinterpret_cast<int (*)(const char*)>(0x401000)("id");', "function pointers are not allowed"),
    ("", 'int (*run)(const char*) = nullptr; run("id");', "function pointers are not allowed"),
    ("using Run = int(const char*);", "", "`using` of a function type"),
    ("", "__builtin_trap();", "`__builtin_trap` is not allowed"),
    ("", "open64(\"x\", 0);", "calls `open64`"),
    ("", "socket(2, 1, 0);", "calls `socket`"),
    # function pointers and types without (*) (issue 12)
    ("", "auto run = +[](const char*) -> int { return 0; }; (void)run;", "unary + before a lambda"),
    ("static __aicore__ inline float Twice(float v) { return 2 * v; }\nusing Hook = decltype(Twice);", "",
     "`Twice` is used without being called"),
    ("static __aicore__ inline float Twice(float v) { return 2 * v; }",
     "auto hook = reinterpret_cast<decltype(&Twice)>(0x1000); hook(1.0f);", "`Twice` is used without being called"),
    ("", "auto block = &AscendC::GetBlockIdx; (void)block;", "`GetBlockIdx` is used without being called"),
    ("", "auto e = expf; (void)e;", "`expf` is used without being called"),
    ("", 'reinterpret_cast<int (&)(const char*)>(*reinterpret_cast<char*>(0x1000))("id");',
     "function pointers are not allowed"),
    ("struct Hook { void Run() {} };", "void (Hook::*run)() = nullptr; (void)run;",
     "function pointers are not allowed"),
    ("struct Hook { void Run() {} };", "Hook h; auto run = &Hook::Run; (void)run;", "`Run` is used without"),
    # probing files, the simulator's internals
    ('#if __has_include("/etc/shadow")\n#endif', "", "`__has_include` is not allowed"),
    ("", "if (ascendc_sim::t_core != nullptr) return;", "the simulator's internal state"),
    ("", "AscendC::sim_detail::sync_all();", "the simulator's internal state"),
    ("", "(void)t.sim_home;", "the simulator's internal state"),
    # raw pointers into tensors: past the API that checks and prices every access
    ("", "AscendC::LocalTensor<float> t; float* p = t.GetPhyAddrPtr(); (void)p;", "`GetPhyAddrPtr`"),
    ("", "AscendC::LocalTensor<float> t; float* p = &t(0); p[1] = 2.0f;", "takes the address of an element"),
    ("", "AscendC::LocalTensor<float> t; float* p = (&t[0]); (void)p;", "takes the address of an element"),
])
def test_what_the_allow_lists_do_not_name_is_rejected(good, top, body, reason):
    assert reason in rejected(inserted(good, top, body))


@pytest.mark.parametrize("top, body", [
    ("", "float v = std::exp(1.0f) + fabsf(-2.0f) + std::numeric_limits<float>::max(); (void)v;"),
    ("constexpr uint32_t N = 4;\nstatic __aicore__ inline float Twice(float v) { return 2 * v; }",
     "float a = Twice(1.0f), b = std::min(a, 3.0f); uint32_t n = N; (void)b; (void)n;"),
    ("enum class Mode : uint32_t { FAST, EXACT };", "Mode m = Mode::FAST; (void)m;"),
    ("", "AscendC::BinaryRepeatParams params(1, 1, 1, 8, 8, 8); (void)params;"),
    ("", "auto scale = [](float v) { return v * 0.5f; }; float h = scale(2.0f); (void)h;"),
    ("#define SQUARE(v) ((v) * (v))", "float s = SQUARE(3.0f); (void)s;"),
    ("struct alignas(32) Pad { float v[8]; } __attribute__((aligned(32)));", "Pad p{}; (void)p;"),
    # functions called, never taken: calls, template calls, members, qualified calls, a variable named like a function
    ("template <typename T> __aicore__ inline T Twice(T v) { return v + v; }",
     "float a = Twice<float>(1.0f) + Twice(2.0f) + AscendC::GetBlockIdx() + std::max<float>(a, 0.0f); float max = a; "
     "(void)max; (void)std::numeric_limits<float>::max();"),
])
def test_ordinary_kernel_code_passes(good, top, body):
    screen(inserted(good, top, body))


def test_the_api_names_come_from_the_simulator_headers_and_name_no_os_service():
    names = api_names()
    assert {"DataCopy", "LocalTensor", "GlobalTensor", "TPipe", "Add", "Exp", "ReduceSum", "GM_ADDR"} <= names
    os_names = {"system", "popen", "fork", "execve", "execv", "open", "open64", "creat64", "fopen", "write", "read",
                "socket", "connect", "dlopen", "dlsym", "syscall", "getenv", "environ", "kill", "mmap", "mprotect",
                "posix_spawnp", "pthread_create", "thread", "printf"}
    assert not names & os_names
    internals = {"ascendc_sim", "sim_detail", "act_detail", "reduce_detail", "t_core", "CoreState", "LaunchState",
                 "signal_clock", "find_region"}
    assert not names & internals


def test_every_kernel_we_write_or_ship_passes_the_screen():
    kernels = shipped_kernels()
    templates = {name.split(": ")[1] for name in kernels if ": " in name}
    assert {"elementwise, 1 buffer(s)", "rowwise, 2 buffer(s)", "reduce_all, 1 buffer(s)", "looped, 2 buffer(s)",
            "looped, 1 buffer(s)"} <= templates
    rejected_kernels = {}
    for name, (source, contract) in kernels.items():
        try:
            screen(source, contract=contract)
        except ScreenRejected as exc:
            rejected_kernels[name] = exc.reason
    assert not rejected_kernels
