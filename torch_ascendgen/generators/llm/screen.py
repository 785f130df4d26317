"""Screen: a model's reply -> a kernel source that may be built, or the reason it may not.

The screen is the model's feedback, written as an allow-list. It is not what keeps the machine
safe: the library audit (library_audit.py) checks what the build actually links to and contains,
whatever the spelling, and the child that runs candidates is confined by the kernel. Checks, on
the source with backslash-newline splices joined (the compiler's first step) and comments removed:

- ``#include`` only "kernel_operator.h" and a few standard headers that declare types and math,
  spelled "..." or <...> (never a macro); ``#define`` without # or ##; ``#pragma once``/``unroll``;
  no other directive, digraph directive, raw string literal, universal character name or
  non-ASCII character in code;
- no inline assembly; attributes only from an allow-list (never constructor, destructor,
  init_priority, weak, alias, section, ifunc, visibility ...);
- ``extern`` only as ``extern "C"`` on a function the file defines (the contract's entry points);
- no function-pointer or function-reference types, however spelt (``(*)``, ``(&)``, ``(C::*)``, ``.*``, a
  lambda decayed with unary ``+``), and no function used as a value (``&F``, ``auto f = F;``,
  ``decltype(F)``): how an integer address becomes a call;
- no ``__has_include`` (a probe of the file system);
- every name the code uses is declared in the file, a name the simulator's headers (the AscendC
  API, csrc/ascendc_sim) use in public code, a C++ keyword or type, or a C/C++ math and utility name
  kernels may use; names after ``.``/``->`` are members and not checked, except the simulator's
  internals (namespace ascendc_sim, *_detail, t_core, sim_* members), which are refused everywhere;
- the contract's two entry points, and at most 64 KB.

The parts of an operator project (formats.py) are screened one by one: an op_kernel source by the same kernel rules
with the op's own entry and its project's headers (screen_kernel_part); an op_host source, compiled natively and run
only in the sandboxed child, by host rules (screen_host_part): the host API's headers, no assembly, no load-time
attributes, no OS names.
"""

from __future__ import annotations

import functools
import re

from torch_ascendgen._paths import sim_include_dir
from torch_ascendgen.errors import ScreenRejected
from torch_ascendgen.records import ENTRY, TILING_FUNCTION

MAX_SOURCE_BYTES = 160 * 1024  # the built-in sort kernel, radix passes for integer keys included, is ~95 KB
ALLOWED_HEADERS = frozenset({"kernel_operator.h", "cstdint", "stdint.h", "cstddef", "stddef.h", "cmath", "math.h",
                             "climits", "limits.h", "cfloat", "float.h", "type_traits", "limits",
                             # the high-level Matmul API, under the names CANN's kernels include it by
                             "lib/matmul_intf.h", "lib/matmul/matmul_intf.h", "lib/matrix/matmul/matmul.h"})
ALLOWED_ATTRIBUTES = frozenset({"aligned", "always_inline", "noinline", "unused", "maybe_unused", "packed", "noreturn",
                                "pure", "const", "hot", "cold", "flatten", "vector_size", "may_alias", "nodiscard",
                                "fallthrough", "likely", "unlikely", "deprecated", "restrict", "format", "nonnull"})
ALLOWED_BUILTINS = frozenset("__builtin_" + name for name in (
    "expect assume_aligned unreachable memcpy memset isnan isinf isfinite isnormal signbit huge_val huge_valf inf inff "
    "nan nanf fabs fabsf sqrt sqrtf copysign copysignf fmaf clz clzl clzll ctz ctzl ctzll popcount popcountl "
    "popcountll bit_cast offsetof constant_p bswap16 bswap32 bswap64").split())

_MATH = ("sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh exp exp2 expm1 log log2 log10 log1p logb "
         "ilogb pow sqrt cbrt hypot erf erfc tgamma lgamma ceil floor trunc round lround llround rint lrint llrint "
         "nearbyint fmod remainder remquo fabs fmin fmax fdim fma copysign nextafter frexp ldexp scalbn modf "
         "nan").split()
_STD_NAMES = frozenset({
    *(name + suffix for name in _MATH for suffix in ("", "f", "l")),
    *"""std abs labs llabs isnan isinf isfinite isnormal signbit fpclassify isgreater isless isunordered min max swap
    move forward clamp memcpy memset memmove memcmp numeric_limits infinity quiet_NaN signaling_NaN epsilon lowest
    denorm_min digits digits10 max_exponent min_exponent is_iec559 has_infinity has_quiet_NaN round_error is_same
    is_same_v enable_if enable_if_t conditional conditional_t integral_constant true_type false_type
    is_floating_point is_floating_point_v is_integral is_integral_v is_signed is_signed_v is_unsigned
    is_unsigned_v is_arithmetic is_arithmetic_v remove_cv remove_cv_t remove_reference remove_reference_t
    remove_const remove_const_t decay decay_t make_unsigned make_unsigned_t make_signed make_signed_t declval
    common_type common_type_t value type size_t ptrdiff_t nullptr_t max_align_t int8_t int16_t int32_t int64_t
    uint8_t uint16_t uint32_t uint64_t intptr_t uintptr_t intmax_t uintmax_t float_t double_t offsetof defined
    L u U u8 __LINE__ __FILE__ __func__ __COUNTER__ __cplusplus""".split(),
})
_LIMIT_MACROS = re.compile(r"(?:U?INT(?:8|16|32|64|PTR|MAX)?_(?:MAX|MIN|C)|(?:FLT|DBL|LDBL)_\w+|(?:S?CHAR|UCHAR|U?SHRT|"
                           r"U?INT|U?LONG|U?LLONG)_(?:MAX|MIN|BIT)|CHAR_BIT|SIZE_MAX|PTRDIFF_(?:MAX|MIN)|M_\w+|"
                           r"INFINITY|NAN|HUGE_VALF?|HUGE_VALL|FP_\w+)")
_KEYWORDS = frozenset("""alignas alignof and and_eq auto bitand bitor bool break case catch char char16_t char32_t class
    compl const constexpr const_cast continue decltype default delete do double dynamic_cast else enum explicit
    false final float for friend goto if inline int long mutable namespace new noexcept not not_eq nullptr operator
    or or_eq override private protected public register reinterpret_cast return short signed sizeof static
    static_assert static_cast struct switch template this throw true try typedef typeid typename union unsigned
    using virtual void volatile wchar_t while xor xor_eq __restrict__ __restrict __inline__ __inline __extension__
    __typeof__ __typeof typeof __alignof__ __volatile__ __const__ __signed__ __int128 _Float16 __fp16 __bf16
    __label__""".split())
_TYPE_KEYWORDS = frozenset("""auto bool char char16_t char32_t double float int long short signed unsigned void wchar_t
    __int128 _Float16 __fp16 __bf16 size_t ptrdiff_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t
    intptr_t uintptr_t""".split())
_TYPE_INTRODUCERS = frozenset({"struct", "class", "union", "enum", "namespace", "typename"})
_SKIPPED_BEFORE_NAME = frozenset({"*", "&", "&&", "const", "volatile", "__restrict__", "__restrict", "constexpr"})
_DECLARATOR_ENDS = frozenset({"=", ";", ",", ")", "[", "{", ":", ">"})
_AFTER_PARAMETERS = frozenset({"const", "volatile", "noexcept", "override", "final", "&", "&&", "throw"})
_TYPE_OPERATORS = frozenset({"decltype", "__typeof__", "__typeof", "typeof", "sizeof", "alignof", "__alignof__",
                             "noexcept", "alignas"})
_DIRECTIVES = frozenset({"include", "define", "undef", "if", "ifdef", "ifndef", "elif", "else", "endif", "pragma",
                         "error", "warning"})

# the simulator's own state and helpers
_INTERNAL = re.compile(r"ascendc_sim\w*|\w+_detail|t_core|sim_\w+|GetPhyAddrPtr")
_NOT_RETURN_TYPES = frozenset({"return", "new", "delete", "sizeof", "case", "throw", "else", "do", "typename",
                               "struct", "class", "operator", "decltype", "alignof", "noexcept", "static_assert",
                               "define", "if", "while", "for", "switch", "alignas", "__typeof__", "typeof"})
_STD_FUNCTIONS = frozenset({
    *(name + suffix for name in _MATH for suffix in ("", "f", "l")),
    *"""abs labs llabs isnan isinf isfinite isnormal signbit fpclassify isgreater isless isunordered min max swap move
    forward clamp memcpy memset memmove memcmp declval""".split(),
})
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+#.-]*)[^\n]*\n(.*?)```", re.DOTALL)
_CODE_LANGUAGES = {"", "cpp", "c++", "cxx", "cc", "c", "ascendc", "h", "hpp"}
_LEXEMES = re.compile(r'(?<![\w])(?:u8|[uUL])?R"(?P<raw>[^ ()\\\t\n]{0,16})\(.*?\)(?P=raw)"|//[^\n]*|/\*.*?\*/'
                      r'|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.DOTALL)
_TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|[A-Za-z_]\w*|\.?\d(?:[eEpP][+-]|[\w.\'])*|::|->|\.\.\.'
                    r'|&&|\|\||<<=?|>>=?|[-+*/%&|^!=<>]=|\+\+|--|\S')
_NAME = re.compile(r"[A-Za-z_]\w*")
_SPLICE = re.compile(r"\\[ \t]*\r?\n")


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


def screen(source: str, contract: bool = True) -> None:
    """Raise ScreenRejected(reason) unless ``source`` may be built: directives, constructs, names and (with
    ``contract``) the kernel contract's entry points."""
    size = len(source.encode())
    if size > MAX_SOURCE_BYTES:
        raise ScreenRejected(f"the kernel source is {size} bytes; the limit is {MAX_SOURCE_BYTES}: write a "
                             "shorter kernel")
    code = _screen_kernel_code(source, ALLOWED_HEADERS, frozenset(), required_header=True)
    if contract:
        _check_entry_points(code)


def _screen_kernel_code(source: str, headers: frozenset[str], known: frozenset[str], required_header: bool,
                        ) -> list[str]:
    """The kernel rules on ``source`` (``headers``: what it may include; ``known``: names declared elsewhere, in
    headers of its own). Returns its code tokens."""
    text = _without_comments(_SPLICE.sub("", source))
    _check_probes(text)
    code_lines, macros = _check_directives(text, headers, "kernel_operator.h" if required_header else None)
    code = _tokens("\n".join(code_lines))
    tokens = _check_attributes([*code, *(t for macro in macros for t in (";", *macro))])
    _check_characters(tokens)
    _check_constructs(tokens)
    _check_internals(tokens)
    _check_element_addresses(tokens)
    _check_names(tokens, macros, known)
    _check_function_values(tokens, macros)
    return code


# ---- text ----------------------------------------------------------------------------------------------


def _without_comments(text: str) -> str:
    """Comments replaced by a space; raw string literals refused (a ``"`` inside one would hide code)."""
    def replace(match: re.Match) -> str:
        lexeme = match.group(0)
        if match.group("raw") is not None:
            raise ScreenRejected("raw string literals (R\"(...)\") are not allowed; kernels need no strings")
        return " " if lexeme.startswith("/") else lexeme
    return _LEXEMES.sub(replace, text)


def _tokens(text: str) -> list[str]:
    """C++ tokens; string literals blanked (only ``"C"`` kept, for ``extern "C"``)."""
    tokens = _TOKEN.findall(text)
    return [('""' if t != '"C"' else t) if t.startswith('"') else "''" if t.startswith("'") else t for t in tokens]


def _check_directives(text: str, allowed: frozenset[str] = ALLOWED_HEADERS,
                      required: str | None = "kernel_operator.h") -> tuple[list[str], list[list[str]]]:
    """The code lines (directives blanked, so line count stays) and each #define's tokens."""
    lines, macros, headers = [], [], []
    for line in text.split("\n"):
        directive = re.match(r"\s*(#|%:)\s*(\w*)(.*)", line)
        if not directive:
            lines.append(line)
            continue
        sign, name, rest = directive.groups()
        if sign == "%:":
            raise ScreenRejected("digraph directives (%:) are not allowed; write # directives")
        if name and name not in _DIRECTIVES:
            raise ScreenRejected(f"#{name} is not allowed: kernels use #include, #define, #if and #pragma once only")
        if name == "include":
            headers.append(_check_include(rest, allowed))
        elif name == "pragma" and not re.fullmatch(r"\s*(?:once|unroll(?:\s*\(?\s*\d*\s*\)?)?|GCC\s+unroll\s+\d+)\s*",
                                                    rest):
            raise ScreenRejected(f"#pragma{rest} is not allowed: kernels use #pragma once (or unroll) only")
        elif name in ("define", "undef"):
            macros.append(_check_define(name, rest))
        lines.append("")
    if required and required not in headers:
        raise ScreenRejected(f'the kernel must #include "{required}"')
    return lines, macros


def _check_include(rest: str, allowed: frozenset[str] = ALLOWED_HEADERS) -> str:
    spelled = re.fullmatch(r'\s*(?:"([^"]*)"|<([^>]*)>)\s*', rest)
    if not spelled:
        raise ScreenRejected(f"#include{rest} is not allowed: include headers by name, as #include "
                             '"kernel_operator.h" (never through a macro)')
    header = (spelled.group(1) or spelled.group(2) or "").strip()
    if header not in allowed:
        own = sorted(allowed - ALLOWED_HEADERS - host_headers())
        if "kernel_operator.h" in allowed:
            what = ('"kernel_operator.h", "lib/matmul_intf.h" (the Matmul API) and standard type headers such as '
                    "<cstdint>")
        else:
            what = ("the host API's headers (register/op_def_registry.h, register/tilingdata_base.h, "
                    "tiling/platform/platform_ascendc.h, tiling/tiling_api.h, graph/types.h) and standard headers for "
                    "types, math, algorithms, strings and vectors")
        raise ScreenRejected(f"#include <{header}> is not allowed: include only {what}"
                             + (f", and the project's own {', '.join(own)}" if own else ""))
    return header


def _check_define(name: str, rest: str) -> list[str]:
    if re.match(r"\s*GET_TILING_DATA\b", rest):
        raise ScreenRejected("the kernel defines GET_TILING_DATA; the build provides it (on the NPU it also declares "
                             "the kernel type): call `GET_TILING_DATA(t, tiling);` without defining it")
    if name == "define" and ("#" in rest or "%:" in rest):
        raise ScreenRejected("#define with # or ## (stringising or token pasting) is not allowed; write the code out")
    return _tokens(rest)


def _check_probes(text: str) -> None:
    """``__has_include("/etc/shadow")`` tells the kernel whether a file exists (its results then differ)."""
    probe = re.search(r"\b__has_(?:include_next|include|embed)\b", text)
    if probe:
        raise ScreenRejected(f"`{probe.group(0)}` is not allowed: kernels include only the allowed headers and "
                             "probe no files")


def _check_characters(tokens: list[str]) -> None:
    for token in tokens:
        if token == "\\":
            raise ScreenRejected("a backslash outside a string (a universal character name such as \\u0073) is not "
                                 "allowed; spell names in plain ASCII")
        if not token.isascii():
            raise ScreenRejected(f"the character {token!r} is not allowed in code; use ASCII outside strings and "
                                 "comments")


# ---- constructs ----------------------------------------------------------------------------------------


def _check_attributes(tokens: list[str]) -> list[str]:
    """The tokens without their attribute specifiers, each checked against ALLOWED_ATTRIBUTES."""
    kept, i = [], 0
    while i < len(tokens):
        token = tokens[i]
        if token in ("__declspec", "asm", "__asm", "__asm__"):
            raise ScreenRejected(f"`{token}` is not allowed: kernels contain no assembly and no platform attributes")
        if token in ("__attribute__", "__attribute") or (token == "[" and tokens[i + 1:i + 2] == ["["]):
            end = _matching(tokens, i + 1) + (token == "[")
            _check_attribute_names(tokens[i + 1:end + 1] if token != "[" else tokens[i:end + 1])
            i = end + 1
            continue
        kept.append(token)
        i += 1
    return kept


def _check_attribute_names(body: list[str]) -> None:
    depth = 0
    for index, token in enumerate(body):
        depth += token in ("(", "[")
        depth -= token in (")", "]")
        named = _NAME.fullmatch(token) and body[index + 1:index + 2] != ["::"] and (
            body[index - 1] in ("(", "[", ",", "::"))
        if named and depth == 2 and token.strip("_") not in ALLOWED_ATTRIBUTES:
            raise ScreenRejected(f"the attribute `{token.strip('_')}` is not allowed: kernels may not place code in "
                                 "sections, alias symbols or run code when loaded (constructor, destructor, weak, "
                                 f"alias, section ...); allowed: {', '.join(sorted(ALLOWED_ATTRIBUTES))}")


def _check_constructs(tokens: list[str]) -> None:
    for i, token in enumerate(tokens):
        if token == "extern":
            _check_extern(tokens, i)
        elif token == "(" and _is_function_pointer(tokens, i):
            raise ScreenRejected("function pointers are not allowed (no casts of addresses to functions); call "
                                 "functions by name")
        elif token == "+" and tokens[i + 1:i + 2] == ["["]:
            raise ScreenRejected("unary + before a lambda makes a function pointer, which is not allowed; call "
                                 "the lambda by name")
        elif token in (".", "->") and tokens[i + 1:i + 2] == ["*"]:
            raise ScreenRejected(f"`{token}*` (a call through a pointer to member) is not allowed: function "
                                 "pointers are not allowed; call functions by name")
        elif token in ("using", "typedef"):
            _check_alias(tokens, i)
        elif token.startswith("__builtin_") and token not in ALLOWED_BUILTINS:
            raise ScreenRejected(f"`{token}` is not allowed; the compiler builtins kernels may use are "
                                 f"{', '.join(sorted(ALLOWED_BUILTINS))}")


def _check_extern(tokens: list[str], i: int) -> None:
    if tokens[i + 1:i + 2] != ['"C"'] or tokens[i + 2:i + 3] == ["{"]:
        raise ScreenRejected('`extern` is allowed only as extern "C" on a function the kernel defines (its entry '
                             "points); kernels declare nothing that lives outside them")
    opening = next((j for j in range(i + 2, len(tokens)) if tokens[j] in ("(", ";", "{", "=")), len(tokens) - 1)
    name = tokens[opening - 1] if opening > i + 2 else "?"
    if tokens[opening] != "(" or not _has_body(tokens, opening):
        raise ScreenRejected(f'the kernel declares `extern "C" {name}` without defining it; kernels may not declare '
                             "functions that live outside them: call only the AscendC API and your own functions")


def _is_function_pointer(tokens: list[str], i: int) -> bool:
    """``( * [name] ) (``, ``( & [name] ) (`` or ``( Class :: * [name] ) (``: a pointer or reference to a function
    (or member function), as a declarator or in a cast."""
    close = i + 1
    while close + 1 < len(tokens) and _NAME.fullmatch(tokens[close]) and tokens[close + 1] == "::":
        close += 2
    if close >= len(tokens) or tokens[close] not in ("*", "&", "&&"):
        return False
    close += 1
    while close < len(tokens) and (_NAME.fullmatch(tokens[close]) or tokens[close] in ("::", "const")):
        close += 1
    return tokens[close:close + 2] == [")", "("]


def _check_alias(tokens: list[str], i: int) -> None:
    """A using/typedef of a function type (``using F = int(const char*);``) is how a cast makes an address callable."""
    j = i + 1
    while j < len(tokens) and tokens[j] not in (";", "{"):
        if tokens[j] == "(" and tokens[j - 1] in _TYPE_OPERATORS:
            j = _matching(tokens, j)
        elif tokens[j] == "(" and (_NAME.fullmatch(tokens[j - 1]) or tokens[j - 1] in (">", ">>", "*", "&")):
            raise ScreenRejected(f"`{tokens[i]}` of a function type is not allowed (no function pointers); call "
                                 "functions by name")
        j += 1


def _matching(tokens: list[str], i: int) -> int:
    """The index of the bracket closing the one at ``i`` (the last token when unbalanced)."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    opening, depth = tokens[i] if i < len(tokens) else "(", 0
    for j in range(i, len(tokens)):
        depth += tokens[j] == opening
        depth -= tokens[j] == pairs.get(opening, ")")
        if depth == 0:
            return j
    return len(tokens) - 1


def _has_body(tokens: list[str], opening: int) -> bool:
    """Whether the parameter list opening at ``opening`` is followed (after qualifiers) by a function body."""
    j = _matching(tokens, opening) + 1
    while j < len(tokens) and tokens[j] != "{":
        if tokens[j] == "->":
            while j < len(tokens) and tokens[j] not in ("{", ";", "="):
                j += 1
            break
        if tokens[j] == "(" and tokens[j - 1] in ("noexcept", "throw"):
            j = _matching(tokens, j) + 1
            continue
        if tokens[j] not in _AFTER_PARAMETERS:
            return False
        j += 1
    return j < len(tokens) and tokens[j] == "{"


# ---- names -----------------------------------------------------------------------------------------------


@functools.cache
def _header_tokens() -> tuple[tuple[str, ...], ...]:
    """Each simulator header's tokens (comments, strings and attributes removed)."""
    headers = []
    for header in sorted(sim_include_dir().rglob("*.h")):
        text = _LEXEMES.sub(lambda m: " " if m.group(0).startswith("/") else '""', _SPLICE.sub("", header.read_text()))
        headers.append(tuple(_TOKEN.findall(re.sub(r"__attribute__\s*\(\(.*?\)\)", " ", text))))
    return tuple(headers)


def _public_positions(tokens: tuple[str, ...]) -> list[int]:
    """The positions of the names a header uses in public code: outside the simulator's internal namespaces
    (ascendc_sim, *_detail, anonymous ones) and not qualified by one (``ascendc_sim::t_core``)."""
    scopes: list[bool] = []
    pending: bool | None = None
    qualified = False
    public = []
    for i, token in enumerate(tokens):
        following = tokens[i + 1] if i + 1 < len(tokens) else ""
        if token == "namespace":
            pending = following == "{" or bool(_INTERNAL.fullmatch(following))
        elif token == "{":
            scopes.append(bool(pending) or (scopes[-1] if scopes else False))
            pending = None
        elif token == "}":
            scopes = scopes[:-1]
        elif token == ";":
            pending = None
        if not _NAME.fullmatch(token):
            qualified = qualified and token == "::"
            continue
        qualified = qualified or (bool(_INTERNAL.fullmatch(token)) and following == "::")
        if not qualified and not (scopes and scopes[-1]) and not _INTERNAL.fullmatch(token):
            public.append(i)
        qualified = qualified and following == "::"
    return public


@functools.cache
def api_names() -> frozenset[str]:
    """Every name the simulator's headers use in public code, outside member accesses: the AscendC API they
    declare (with the functions their macros generate, whose names appear only as macro arguments) and the few
    standard names it is built from (std::vector, std::snprintf into a buffer: nothing that reaches the OS).
    Collected rather than parsed: what the headers mention is by definition what the simulator needs. The
    simulator's internals (namespace ascendc_sim, *_detail, the core state t_core) are left out: through them a
    kernel could reach its GM mappings or the cost counters."""
    names: set[str] = set()
    for tokens in _header_tokens():
        names.update(tokens[i] for i in _public_positions(tokens) if tokens[i - 1] not in (".", "->"))
    return frozenset(names)


@functools.cache
def api_functions() -> frozenset[str]:
    """The header names declared or called as functions (a name then ``(`` after a type or another name)."""
    functions: set[str] = set()
    for tokens in _header_tokens():
        for i in _public_positions(tokens):
            before = tokens[i - 1] if i else ""
            if tokens[i + 1:i + 2] == ("(",) and (before in (">", "*", "&", "&&") or (
                    _NAME.fullmatch(before) and before not in _NOT_RETURN_TYPES)):
                functions.add(tokens[i])
    return frozenset(functions - _api_types() - _TYPE_KEYWORDS - _KEYWORDS)


@functools.cache
def _api_types() -> frozenset[str]:
    """Header names that can start a declaration: types, and macros that expand to one (GM_ADDR)."""
    types: set[str] = set()
    for header in sorted(sim_include_dir().rglob("*.h")):
        text = _SPLICE.sub("", header.read_text())
        types.update(re.findall(r"\b(?:struct|class|union|enum(?:\s+class|\s+struct)?|typename|using)\s+([A-Za-z_]\w*)",
                                text))
        types.update(re.findall(r"^\s*#\s*define\s+([A-Za-z_]\w*)[ \t]+\S", text, re.MULTILINE))
        types.update(re.findall(r"\btypedef\b[^;{]*?\b([A-Za-z_]\w*)\s*(?:__attribute__\s*\(\(.*?\)\))?\s*;", text))
    return frozenset(types)


def _check_names(tokens: list[str], macros: list[list[str]], known: frozenset[str] = frozenset()) -> None:
    declared = _declared(tokens, macros) | known
    # `using namespace AscendC` declares no namespace of the kernel's: AscendC::name must still be API.
    own_types = _declared_types(tokens) - {"AscendC", "std"}
    unknown: dict[str, bool] = {}  # name -> called
    for stream in (tokens, *macros):
        for i, token in enumerate(stream):
            if not _NAME.fullmatch(token) or _known(token, declared):
                continue
            before = stream[i - 1] if i else ""
            if before in (".", "->") or (before == "::" and i >= 2 and stream[i - 2] in own_types):
                continue
            if _is_ascendc_printf(stream, i):
                continue
            unknown[token] = unknown.get(token, False) or stream[i + 1:i + 2] == ["("]
    if unknown:
        called = [name for name, is_call in unknown.items() if is_call]
        names = ", ".join(f"`{name}`" for name in (called or list(unknown))[:8])
        what = "calls" if called else "uses"
        raise ScreenRejected(f"the kernel {what} {names}, which it does not define and which are neither AscendC API "
                             "(kernel_operator.h) nor C/C++ math and utility names kernels may use: kernels may call "
                             "only the AscendC API, <cmath> functions, std::min/max/abs/numeric_limits, <type_traits> "
                             "and the functions and types they define themselves (no OS, files, processes, "
                             "environment or dynamic loading)")


def _is_ascendc_printf(tokens: list[str], i: int) -> bool:
    """``AscendC::printf(`` called: the simulator collects its text per launch. The name stays out of
    api_names(): bare, ``printf`` is C's, which writes to the process's stdout."""
    return (tokens[i] == "printf" and i >= 2 and tokens[i - 2:i] == ["AscendC", "::"]
            and tokens[i + 1:i + 2] == ["("])


def _check_internals(tokens: list[str]) -> None:
    internal = next((t for t in tokens if _INTERNAL.fullmatch(t)), None)
    if internal:
        raise ScreenRejected(f"`{internal}` is the simulator's internal state, not AscendC API: kernels use only the "
                             "documented AscendC API (kernel_operator.h), never the simulator's namespaces "
                             "ascendc_sim or *_detail, its core state or its sim_* members")


# Tokens after which ``&`` takes an address rather than and-ing two values.
_UNARY_AMPERSAND_AFTER = frozenset("( [ { , ; = ? : return + - * / % < > ! ~ ^ | && || == != <= >= += -= *= /=".split())


def _check_element_addresses(tokens: list[str]) -> None:
    """No address of an element (``&x(0)``, ``&x[i]``): a raw pointer into a tensor's memory reads and writes past
    the API that checks and prices every access (LocalTensor::GetValue/SetValue, DataCopy)."""
    for i, token in enumerate(tokens[:-2]):
        if (token == "&" and (i == 0 or tokens[i - 1] in _UNARY_AMPERSAND_AFTER)
                and re.fullmatch(r"[A-Za-z_]\w*", tokens[i + 1]) and tokens[i + 2] in ("(", "[")):
            raise ScreenRejected(f"`&{tokens[i + 1]}{tokens[i + 2]}...` takes the address of an element: kernels "
                                 "reach tensor memory only through the AscendC API (GetValue/SetValue for scalars, "
                                 "DataCopy and vector instructions for blocks), which the simulator checks and prices")


def _check_function_values(tokens: list[str], macros: list[list[str]]) -> None:
    """Functions may only be called: a function's name used as a value (``&F``, ``auto f = F;``,
    ``decltype(F)``) gives a function pointer or type, which a cast can point at any address."""
    declared = _declared(tokens, macros)
    own_types = _declared_types(tokens)
    own = _defined_functions(tokens) - own_types
    functions = own | ((api_functions() | _STD_FUNCTIONS | ALLOWED_BUILTINS) - (declared - own))
    for stream in (tokens, *macros):
        for i, token in enumerate(stream):
            if token not in functions or not _used_as_value(stream, i, own_types):
                continue
            raise ScreenRejected(f"`{token}` is used without being called (its address or type taken): function "
                                 "pointers are not allowed; call functions by name")


def _used_as_value(tokens: list[str], i: int, own_types: set[str]) -> bool:
    before = tokens[i - 1] if i else ""
    if before in (".", "->") or tokens[i + 1:i + 2] == ["<<"]:  # a member, or a launch: kernel<<<blocks, ...>>>(...)
        return False
    if before == "::" and i >= 2 and (_NAME.fullmatch(tokens[i - 2]) or tokens[i - 2] in (">", ">>")) and (
            tokens[i - 2] not in own_types | {"AscendC", "std"}):
        return False  # a member of an API class or template (numeric_limits<T>::max)
    after = _after_template_arguments(tokens, i + 1)
    return not (after < len(tokens) and tokens[after] == "(")


def _after_template_arguments(tokens: list[str], j: int) -> int:
    if j >= len(tokens) or tokens[j] != "<":
        return j
    depth = 0
    while j < len(tokens):
        if tokens[j] in ("(", "[", "{"):
            j = _matching(tokens, j)
        depth += {"<": 1, ">": -1, ">>": -2}.get(tokens[j], 0)
        if depth <= 0 or tokens[j] in (";", "{", "}"):
            return j + 1
        j += 1
    return j


def _defined_functions(tokens: list[str]) -> set[str]:
    return {token for i, token in enumerate(tokens[:-1]) if _NAME.fullmatch(token) and token not in _KEYWORDS
            and tokens[i + 1] == "(" and not (i and tokens[i - 1] in (".", "->")) and _has_body(tokens, i + 1)}


def _known(name: str, declared: set[str]) -> bool:
    return (name in declared or name in _KEYWORDS or name in _STD_NAMES or name in api_names()
            or name in ALLOWED_BUILTINS or bool(_LIMIT_MACROS.fullmatch(name)))


def _declared_types(tokens: list[str]) -> set[str]:
    types = set()
    for i, token in enumerate(tokens[:-1]):
        j = i + 1
        if token in _TYPE_INTRODUCERS and tokens[j] == "alignas":  # struct alignas(32) Name
            j = _matching(tokens, j + 1) + 1
        if token in _TYPE_INTRODUCERS and j < len(tokens) and _NAME.fullmatch(tokens[j]):
            types.add(tokens[j])
    types |= {tokens[i + 1] for i, t in enumerate(tokens[:-2]) if t == "using" and tokens[i + 2] == "="}
    for i, token in enumerate(tokens):
        if token == "typedef":
            end = next((j for j in range(i, len(tokens)) if tokens[j] == ";"), len(tokens))
            types.update(t for t in tokens[i + 1:end][-1:] if _NAME.fullmatch(t))
    return types


# The tiling macros that declare a variable, and the variable's argument position:
# GET_TILING_DATA(var, tiling), GET_TILING_DATA_WITH_STRUCT(Struct, var, tiling), GET_TILING_DATA_MEMBER(T, m, var, t).
_TILING_VARIABLE_AT = {"GET_TILING_DATA": 0, "GET_TILING_DATA_WITH_STRUCT": 1, "GET_TILING_DATA_MEMBER": 2}


def _declared(tokens: list[str], macros: list[list[str]]) -> set[str]:
    """Names the source declares: types, functions it defines, variables, parameters, enumerators, macros."""
    types = _declared_types(tokens)
    type_like = types | _api_types() | _TYPE_KEYWORDS
    names = set(types)
    for macro in macros:
        names.update(macro[:1])
        if macro[1:2] == ["("]:
            names.update(t for t in macro[2:_matching(macro, 1)] if _NAME.fullmatch(t))
    for i, token in enumerate(tokens):
        if token == "enum":
            names.update(_enumerators(tokens, i))
        elif token == "auto" and "[" in tokens[i + 1:i + 3]:
            opening = tokens.index("[", i)
            names.update(t for t in tokens[opening:_matching(tokens, opening)] if _NAME.fullmatch(t))
        elif token in _TILING_VARIABLE_AT and tokens[i + 1:i + 2] == ["("]:
            at = i + 2 + 2 * _TILING_VARIABLE_AT[token]  # the variable it declares, after its other arguments
            names.update(tokens[at:at + 1])
        elif _NAME.fullmatch(token) and token not in _KEYWORDS and not (i and tokens[i - 1] in (".", "->", "::")):
            if _follows_type(tokens, i, type_like) and _ends_declarator(tokens, i + 1, type_like):
                names.add(token)
                names.update(_more_declarators(tokens, i + 1))
    return names


def _ends_declarator(tokens: list[str], j: int, type_like: set[str]) -> bool:
    """Whether tokens[j] ends a declarator: ``=``, ``;``, ``,`` ..., or ``(`` of a function definition or of a
    direct initialisation (``BinaryRepeatParams p(1, 1, 1, 8, 8, 8);``), never of a prototype."""
    after = tokens[j] if j < len(tokens) else ";"
    if after != "(":
        return after in _DECLARATOR_ENDS
    if _has_body(tokens, j):
        return True
    first = tokens[j + 1] if j + 1 < len(tokens) else ")"
    return first != ")" and first not in type_like and first not in ("const", "volatile", "struct", "class")


def _follows_type(tokens: list[str], i: int, type_like: set[str]) -> bool:
    """Whether tokens[i] is a declarator: a type (possibly followed by cv-qualifiers, * and &) comes before it."""
    j = i - 1
    while j >= 0 and tokens[j] in _SKIPPED_BEFORE_NAME:
        j -= 1
    if j < 0:
        return False
    before = tokens[j]
    if before in (">", ">>"):
        return _closes_template(tokens, j, type_like)
    return before in type_like


def _closes_template(tokens: list[str], j: int, type_like: set[str]) -> bool:
    depth = 0
    for k in range(j, -1, -1):
        depth += {">": 1, ">>": 2, "<": -1, "<<": -2}.get(tokens[k], 0)
        if tokens[k] in (";", "{", "}"):
            return False
        if depth <= 0:
            name = tokens[k - 1] if k else ""
            return name in type_like or name in _STD_NAMES or name in api_names()
    return False


def _more_declarators(tokens: list[str], j: int) -> list[str]:
    """The names after commas in the same declaration (``float a = 0, b;``)."""
    names, depth = [], 0
    for k in range(j, len(tokens)):
        token = tokens[k]
        if token in ("(", "[", "{"):
            depth += 1
        elif token in (")", "]", "}"):
            depth -= 1
            if depth < 0:
                break
        elif token == ";" and depth == 0:
            break
        elif token == "," and depth == 0:
            m = k + 1
            while m < len(tokens) and tokens[m] in ("*", "&", "&&", "const"):
                m += 1
            if m + 1 < len(tokens) and _NAME.fullmatch(tokens[m]) and tokens[m + 1] in _DECLARATOR_ENDS:
                names.append(tokens[m])
    return names


def _enumerators(tokens: list[str], i: int) -> list[str]:
    opening = next((j for j in range(i, len(tokens)) if tokens[j] in ("{", ";")), len(tokens) - 1)
    if tokens[opening] != "{":
        return []
    body = tokens[opening:_matching(tokens, opening) + 1]
    return [body[k] for k in range(1, len(body)) if body[k - 1] in ("{", ",") and _NAME.fullmatch(body[k])]


# ---- the contract ------------------------------------------------------------------------------------------


def _check_entry_points(tokens: list[str]) -> None:
    code = " ".join(tokens)
    if not re.search(rf"\b{TILING_FUNCTION} \(", code):
        raise ScreenRejected(f'the kernel does not define the host tiling function `extern "C" uint32_t '
                             f"{TILING_FUNCTION}(uint32_t coreNum, int32_t tensorCount, const int32_t* ranks, "
                             "const int64_t* dims, TilingData* tiling, uint64_t* workspaceBytes)`")
    entry = re.search(rf"\b{ENTRY} \(", code)
    if not entry:
        raise ScreenRejected(f'the kernel does not define the entry `extern "C" __global__ __aicore__ void '
                             f"{ENTRY}(GM_ADDR in0, ..., GM_ADDR out0, ..., GM_ADDR workspace, GM_ADDR tiling)`")
    if not re.search(r"\bGET_TILING_DATA \(", code[entry.end():]):
        raise ScreenRejected(f"the entry {ENTRY} must start with `GET_TILING_DATA(t, tiling);`")


# ---- operator-project parts (formats.py) ---------------------------------------------------------------------
# An op_kernel source gets the kernel rules with the op's own entry; an op_host source (compiled natively, run only in
# the sandboxed child) gets the host rules: the host API's headers, no assembly, no load-time code, no OS names.

HOST_STANDARD_HEADERS = frozenset({"cstdint", "stdint.h", "cstddef", "stddef.h", "cmath", "math.h", "climits",
                                   "limits.h", "cfloat", "float.h", "type_traits", "limits", "algorithm", "numeric",
                                   "string", "cstring", "string.h", "vector", "array", "utility", "tuple",
                                   "initializer_list", "cassert", "assert.h", "map", "unordered_map", "set",
                                   "functional", "stdexcept", "cstdlib", "memory"})
# DYNAMIC inputs' ListTensorDesc; the high-level APIs' tiling structs (TCubeTiling, SoftMaxTiling, ...)
_OP_KERNEL_HEADERS = frozenset({"kernel_operator_list_tensor_intf.h", "kernel_tiling/kernel_tiling.h"})
_HOST_API_DIRS = ("register", "tiling", "graph", "exe_graph", "lib")
_OS_NAMES = frozenset("""system popen pclose fork vfork clone execl execlp execle execv execvp execvpe execve fexecve
    posix_spawn posix_spawnp socket connect bind listen accept accept4 send recv sendto recvfrom sendmsg recvmsg
    getaddrinfo gethostbyname getenv secure_getenv setenv putenv unsetenv clearenv environ dlopen dlsym dlclose dlmopen
    fopen freopen fdopen fclose fread fwrite fputs fgets fprintf fscanf open openat creat read write close pread
    pwrite unlink unlinkat remove rename renameat mkdir rmdir chdir chroot opendir readdir stat lstat access truncate
    ftruncate mmap munmap mprotect ptrace kill raise signal sigaction syscall ioctl prctl pthread_create thread
    jthread async ifstream ofstream fstream filebuf filesystem FILE stdin stdout stderr printf puts putchar scanf cout
    cerr clog cin exit _exit _Exit quick_exit abort atexit at_quick_exit sleep usleep nanosleep alarm setuid
    setgid getpid getppid""".split())


@functools.cache
def host_headers() -> frozenset[str]:
    """The headers host code may include: the clean-room host API shims that exist (register/, tiling/, graph/, ...)
    and the standard headers for types, math, algorithms, strings and vectors."""
    host = sim_include_dir() / "host"
    shims = {p.relative_to(host).as_posix() for d in _HOST_API_DIRS for p in (host / d).rglob("*.h")}
    return frozenset(shims) | HOST_STANDARD_HEADERS


def screen_kernel_part(path: str, source: str, entry: str | None, own_headers: frozenset[str] = frozenset(),
                       known: frozenset[str] = frozenset()) -> None:
    """Raise ScreenRejected("<path>: reason") unless an op_kernel source may be built: the kernel rules, its own
    headers (``own_headers``, declaring ``known``) includable, and (``entry``: a .cpp) the op's entry
    ``extern "C" __global__ __aicore__ void <entry>(..., GM_ADDR workspace, GM_ADDR tiling)`` starting with
    GET_TILING_DATA. DTYPE_<NAME>, ORIG_DTYPE_<NAME> and DT_* are the build's (the OpDef's dtypes)."""
    _check_size(path, source)
    prelude = frozenset(re.findall(r"\b(?:ORIG_)?DTYPE_\w+|\bDT_[A-Z0-9_]+\b|\bTILING_KEY_VAR\b", source))
    try:
        code = _screen_kernel_code(source, ALLOWED_HEADERS | _OP_KERNEL_HEADERS | own_headers, known | prelude,
                                   required_header=entry is not None)
        if entry is not None:
            _check_op_entry(code, entry)
    except ScreenRejected as exc:
        raise ScreenRejected(f"{path}: {exc.reason}") from None


def screen_host_part(path: str, source: str, own_headers: frozenset[str] = frozenset()) -> None:
    """Raise ScreenRejected("<path>:LINE: reason") unless an op_host source may be built: includes of the host API
    and standard headers only (and the project's own ``own_headers``), no assembly, attributes from the allow-list
    (no constructor), no OS names (files, processes, sockets, environment, dynamic loading, threads, output)."""
    _check_size(path, source)
    try:
        text = _without_comments(_SPLICE.sub("", source))
        _check_probes(text)
        code_lines, macros = _check_directives(text, host_headers() | own_headers, None)
        tokens = _check_attributes([*_tokens("\n".join(code_lines)),
                                    *(t for macro in macros for t in (";", *macro))])
        _check_characters(tokens)
        _check_constructs(tokens)
    except ScreenRejected as exc:
        raise ScreenRejected(f"{path}: {exc.reason}") from None
    own = _declared(tokens, macros) | set(re.findall(r"\bTILING_DATA_FIELD_DEF\w*\s*\([^,()]+,\s*(\w+)", text))
    used = next((t for i, t in enumerate(tokens) if t in _OS_NAMES - own and not (i and tokens[i - 1] in (".", "->"))),
                None)  # its own names and members (tiling.set_read) are the project's
    if used is not None:
        raise ScreenRejected(f"{path}:{_line_of(source, used)}: `{used}` is not allowed in host code: the tiling and "
                             "shape functions only compute from the context they are given (no files, processes, "
                             "sockets, environment, dynamic loading, threads, printing or exiting; return "
                             "ge::GRAPH_FAILED to refuse a shape)")


def declared_names(source: str) -> frozenset[str]:
    """The names a header declares (types, functions, variables, macros; BEGIN_TILING_DATA_DEF's struct), for the
    sources that include it."""
    text = _without_comments(_SPLICE.sub("", source))
    lines, macros = [], []
    for line in text.split("\n"):
        define = re.match(r"\s*#\s*define\s+(.*)", line)
        if define:
            macros.append(_tokens(define.group(1)))
        lines.append("" if re.match(r"\s*#", line) else line)
    tokens = _tokens("\n".join(lines))
    structs = re.findall(r"\bBEGIN_TILING_DATA_DEF\s*\(\s*(\w+)", text)
    return frozenset(_declared(tokens, macros)) | frozenset(structs)


def _check_size(path: str, source: str) -> None:
    size = len(source.encode())
    if size > MAX_SOURCE_BYTES:
        raise ScreenRejected(f"{path} is {size} bytes; the limit is {MAX_SOURCE_BYTES}: write a shorter file")


def _check_op_entry(tokens: list[str], entry: str) -> None:
    code = " ".join(tokens)
    found = re.search(rf'\bextern "C" (?:[\w:]+ )*?void {re.escape(entry)} \(', code)
    if not found:
        raise ScreenRejected(f'it does not define the kernel entry `extern "C" __global__ __aicore__ void {entry}('
                             "GM_ADDR x, ..., GM_ADDR z, ..., GM_ADDR workspace, GM_ADDR tiling)`: the entry is named "
                             "after the op's file name (snake_case of the op type)")
    if not re.search(r"\bGET_TILING_DATA\w* \(", code[found.end():]):
        raise ScreenRejected(f"the kernel entry {entry} must start with `GET_TILING_DATA(tilingData, tiling);`")


def _line_of(source: str, name: str) -> int:
    """The line of ``name``'s first use in code (comments and strings skipped), 1-based."""
    blanked = _LEXEMES.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), source)
    found = re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", blanked)
    return blanked.count("\n", 0, found.start()) + 1 if found else 1
