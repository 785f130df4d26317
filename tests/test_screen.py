"""Screening a model's reply before anything is built: extraction, forbidden constructs, the contract."""

import pytest
import torch

from torch_ascendgen.builtin_generator import generate_builtin
from torch_ascendgen.capture import capture
from torch_ascendgen.errors import ScreenRejected
from torch_ascendgen.screen import MAX_SOURCE_BYTES, extract_source, screen


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
    (lambda s: s.replace("op.Process();", 'op.Process(); system("id");'), "calls `system(...)`"),
    (lambda s: s.replace("op.Process();", 'op.Process(); ::popen("id", "r");'), "popen"),
    (lambda s: s.replace("op.Process();", 'op.Process(); auto f = fopen("/etc/passwd", "r");'), "fopen"),
    (lambda s: s.replace("op.Process();", 'op.Process(); const char* h = getenv("HOME");'), "getenv"),
    (lambda s: s.replace("op.Process();", "op.Process(); extern char** environ; (void)environ;"), "environ"),
    (lambda s: s.replace("op.Process();", 'op.Process(); asm volatile("nop");'), "asm"),
    (lambda s: s.replace("op.Process();", "op.Process(); std::thread t([]{});"), "std::thread"),
    (lambda s: "#define RUN sys##tem\n" + s, "token pasting"),
    (lambda s: "#define RUN system\n" + s, "#define names `system`"),
    (lambda s: s.replace("ascendgen_tiling", "my_tiling"), "host tiling function"),
    (lambda s: s.replace("ascendgen_kernel", "my_kernel"), "does not define the entry"),
    (lambda s: s.replace("GET_TILING_DATA(t, tiling);", "TilingData t{};"), "GET_TILING_DATA"),
    (lambda s: s.replace('#include "kernel_operator.h"', ""), 'must #include "kernel_operator.h"'),
    (lambda s: s.replace('#include "kernel_operator.h"', '#include "kernel_operator.h"\n#undef GET_TILING_DATA\n'
                         '#define GET_TILING_DATA(t, p) TilingData t{}'), "the build provides it"),
    (lambda s: s + "// " + "x" * MAX_SOURCE_BYTES, "the limit is 65536"),
])
def test_forbidden_or_incomplete_sources_are_rejected_with_a_reason(good, edit, reason):
    assert reason in rejected(edit(good))


def test_words_in_comments_and_strings_are_not_calls(good):
    screen(good.replace("op.Process();", 'op.Process(); // never system("x") here\n const char* s = "fork()";'))
