"""The model's reply formats: a reply parsed into a candidate source, screened part by part, and failures written back
in the model's own naming (``TORCH_ASCENDGEN_LLM_FORMAT`` picks the one the prompt asks for).

    contract          our one-file kernel contract: one ```cpp block (screen.extract_source)
    op_project        NPUKernelBench / AscendKernelGen's operator project: op_host/<op>_tiling.h, op_host/<op>.cpp and
                      op_kernel/<op>.cpp, each a fenced block headed by its path (a heading, a ``File:`` line, a first
                      comment line, a leading project directory, bold) or an XML-style tag per file
    multikernelbench  MultiKernelBench's ```python block of six strings (project_json_src, host_tiling_src,
                      host_operator_src, kernel_src, python_bind_src, model_src), read with ``ast``, never
                      executed; or its direct-launch JSON (``sources[]`` of path and content, ``build.type``
                      ascendc_direct_launch)

An operator project becomes a file bundle (records.join_files) under the paths op_host/<op>_tiling.h,
op_host/<op>.cpp, op_kernel/<op>.cpp (+ other op_host/*.h, op_kernel/*.h, and attrs.json: attribute values the
MultiKernelBench reply passes to the op as literals). A reply in another format than the setting's is accepted
when it is recognisably that format; a plain ```cpp block is read as the contract.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from torch_ascendgen import config
from torch_ascendgen.errors import ScreenRejected
from torch_ascendgen.generators.llm import screen as rules
from torch_ascendgen.records import ATTRS_FILE, DIRECT_LAUNCH_FILE, join_files, split_files

FORMATS = config.LLM_FORMATS  # ("contract", "op_project", "multikernelbench")
MKB_STRINGS = ("project_json_src", "host_tiling_src", "host_operator_src", "kernel_src", "python_bind_src",
               "model_src")
_MKB_REQUIRED = MKB_STRINGS[:4]

_FENCE = re.compile(r"^[ \t]*```[ \t]*([^\n`]*)\n(.*?)```[ \t]*$", re.M | re.S)  # closed at a line's end
_XML_FILE = re.compile(r"<(?P<tag>[\w./+-]+)(?P<attrs>[^<>\n]*)>[ \t]*\n(?P<body>.*?)</(?P=tag)\s*>", re.S)
_OP_PATH = re.compile(r"(?:[\w.+-]+/)*?(?P<rel>op_(?:host|kernel)/[\w.+-]+\.(?:h|hpp|cpp|cc|cxx))\b")
_C_LANGUAGES = {"", "cpp", "c++", "cxx", "cc", "c", "h", "hpp", "ascendc"}
_ENTRY = re.compile(r'extern\s+"C"\s+(?:__global__\s+__aicore__|__aicore__\s+__global__)\s+void\s+(\w+)\s*\(')
_LOCATION = r"(?::(?P<line>\d+))?(?::(?P<col>\d+))?"


@dataclass(frozen=True)
class DirectLaunch:
    """A MultiKernelBench direct-launch reply: its files, the pybind module's name, which .cpp files are kernels
    and which bind them, and the model entry (``ModelNew.py::ModelNew``)."""

    files: dict[str, str]
    module: str
    kernel_sources: tuple[str, ...]
    binding_sources: tuple[str, ...]
    model_entry: str


@dataclass(frozen=True)
class Parsed:
    """A reply read: ``format`` it was in, ``source`` (the contract source, or a file bundle), ``names`` (bundle
    path -> the name the model used for that part) and, for a direct-launch reply, its ``direct`` description."""

    format: str
    source: str
    names: dict[str, str] = field(default_factory=dict)
    direct: DirectLaunch | None = None

    @property
    def files(self) -> dict[str, str] | None:
        return split_files(self.source)


def parse_reply(text: str, finish_reason: str | None, fmt: str) -> Parsed:
    """The reply's candidate, in whichever format it is recognisably written (``fmt``'s first). Raises
    ScreenRejected, with a reason the model can act on, for a cut, code-less, incomplete or ambiguous reply."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown reply format {fmt!r}; the formats are {', '.join(FORMATS)}")
    if finish_reason == "length":
        raise ScreenRejected(f"your reply was cut off at the max_tokens limit before it was complete; {_ASK[fmt]}, "
                             "with less explanation")
    if text.count("```") % 2:
        raise ScreenRejected(f"your reply has an unterminated ``` code block; {_ASK[fmt]}")
    readers = {"op_project": (_read_op_project,), "multikernelbench": (_read_multikernelbench, _read_direct_launch)}
    order = [*readers.get(fmt, ()), *(r for f, rs in readers.items() if f != fmt for r in rs)]
    for read in order:
        parsed = read(text)
        if parsed is not None:
            return parsed
    if fmt != "contract" and "```" not in text:
        raise ScreenRejected(f"your reply contains no code; {_ASK[fmt]}")
    return Parsed("contract", rules.extract_source(text, finish_reason or "stop"))


_ASK = {
    "contract": "reply with the complete kernel source in one ```cpp block",
    "op_project": "reply with the three files op_host/<op>_tiling.h, op_host/<op>.cpp and op_kernel/<op>.cpp, each "
                  "complete in its own ```cpp block headed by its path",
    "multikernelbench": "reply with one ```python block assigning the six strings project_json_src, host_tiling_src, "
                        "host_operator_src, kernel_src, python_bind_src and model_src",
    "direct_launch": 'reply with exactly one JSON object whose "sources" hold every file (path and content), '
                     'build.type "ascendc_direct_launch"',
}


def ask_for(fmt: str) -> str:
    """How a reply in ``fmt`` is given, as an instruction (the repair and optimise messages end with it); ``fmt`` may
    also be "direct_launch" (MultiKernelBench's JSON: see ``reply_format``)."""
    return _ASK[fmt]


def reply_format(parsed: Parsed) -> str:
    """The format the model wrote in, as feedback asks for it again: a direct-launch JSON is "direct_launch"."""
    return "direct_launch" if parsed.direct is not None else parsed.format


# ---- op_project -------------------------------------------------------------------------------------------------


@dataclass
class _Block:
    label: str  # the path the model gave ("" when none)
    body: str


def _read_op_project(text: str) -> Parsed | None:
    blocks = _labelled_blocks(text)
    labelled = [b for b in blocks if _OP_PATH.search(b.label)]
    kinds = {_kind(b.body) for b in blocks} - {None}
    if not labelled and len(kinds) < 2:
        return None
    parts: dict[str, tuple[str, str]] = {}  # relative path -> (model's path, text)
    for block in blocks:
        found = _OP_PATH.search(block.label)
        kind = _kind(block.body)
        if found:
            _add_part(parts, found.group("rel"), found.group(0), block.body)
        elif kind is not None:
            _add_part(parts, f"?{kind}", "", block.body)
    return _project(parts)


def _labelled_blocks(text: str) -> list[_Block]:
    """Every code block with the path it is given: in its fence's info string, on its first comment line, or on the
    last lines before it (a heading, ``File:``, bold); XML-style file tags too (their name or attributes)."""
    blocks, previous_end = [], 0
    for fence in _FENCE.finditer(text):
        info, body = fence.group(1), fence.group(2)
        language = info.split()[0].lower() if info.split() else ""
        before = text[previous_end:fence.start()].strip().splitlines()[-3:]
        first = next((line for line in body.splitlines() if line.strip()), "")
        comment = first if first.lstrip().startswith(("//", "/*")) else ""
        label = next((c for c in (info, comment, *reversed(before)) if _OP_PATH.search(c)), "")
        if label or language in _C_LANGUAGES:
            blocks.append(_Block(label.replace("*", "").replace("`", ""), body))
        previous_end = fence.end()
    for tag in _XML_FILE.finditer(text):
        label = f"{tag.group('tag')} {tag.group('attrs')}"
        inner = _FENCE.search(tag.group("body"))
        body = inner.group(2) if inner else tag.group("body")
        if _OP_PATH.search(label) and not any(b.body == body for b in blocks):
            blocks.append(_Block(label, body))
    return blocks


def _kind(body: str) -> str | None:
    """Which part an unlabelled block is, from what it holds."""
    if _ENTRY.search(body):
        return "kernel"
    if re.search(r"\bOP_ADD\s*\(|:\s*public\s+OpDef\b", body):
        return "host"
    if "BEGIN_TILING_DATA_DEF" in body:
        return "tiling"
    return None


def _add_part(parts: dict[str, tuple[str, str]], relative: str, spelled: str, body: str) -> None:
    if relative in parts and parts[relative][1].strip() != body.strip():
        what = spelled or {"?kernel": "kernel", "?host": "op_host source", "?tiling": "tiling header"}[relative]
        raise ScreenRejected(f"your reply has two different blocks for {what}; give each file once, complete")
    parts[relative] = (spelled, body)


def _project(parts: dict[str, tuple[str, str]]) -> Parsed:
    """The bundle of an operator project's parts (relative path, or ``?kind`` for an unlabelled part)."""
    kernels = [p for p in parts if p.startswith("op_kernel/") and not _is_header(p)]
    if len(kernels) > 1:
        raise ScreenRejected(f"your reply has {len(kernels)} kernel sources ({', '.join(kernels)}); an operator "
                             "project has one, op_kernel/<op>.cpp")
    if not kernels and "?kernel" in parts:
        kernels = [f"op_kernel/{_ENTRY.search(parts['?kernel'][1]).group(1)}.cpp"]
        parts[kernels[0]] = parts.pop("?kernel")
    op = PurePosixPath(kernels[0]).stem if kernels else _op_from_host(parts)
    if op is None:
        raise ScreenRejected(f"your reply lacks the kernel source op_kernel/<op>.cpp; {_ASK['op_project']}")
    tiling = _tiling_header(parts, op)
    host = [p for p in parts if p.startswith("op_host/") and not _is_header(p)] or (
        ["?host"] if "?host" in parts else [])
    wanted = {f"op_host/{op}_tiling.h": tiling, f"op_host/{op}.cpp": host[0] if len(host) == 1 else None,
              f"op_kernel/{op}.cpp": kernels[0] if kernels else None}
    if len(host) > 1:
        raise ScreenRejected(f"your reply has {len(host)} op_host sources ({', '.join(host)}); an operator project "
                             f"has one, op_host/{op}.cpp")
    missing = [path for path, found in wanted.items() if found is None]
    if missing:
        raise ScreenRejected(f"your reply lacks {' and '.join(missing)}; {_ASK['op_project']}")
    files, names = {}, {}
    for path, given in wanted.items():
        spelled, files[path] = parts[given]
        names[path] = spelled or path
    for path, (spelled, body) in parts.items():
        if path not in wanted.values() and not path.startswith("?"):
            files[path], names[path] = body, spelled or path
    old_name = PurePosixPath(tiling).name
    if old_name != f"{op}_tiling.h":  # the host source includes it by the name the model gave it
        files = {p: _renamed_include(t, old_name, f"{op}_tiling.h") for p, t in files.items()}
    return Parsed("op_project", join_files(files), names)


def _is_header(path: str) -> bool:
    return path.endswith((".h", ".hpp"))


def _op_from_host(parts: dict[str, tuple[str, str]]) -> str | None:
    host = next((p for p in parts if p.startswith("op_host/") and not _is_header(p)), None)
    return PurePosixPath(host).stem if host else None


def _tiling_header(parts: dict[str, tuple[str, str]], op: str) -> str | None:
    if f"op_host/{op}_tiling.h" in parts:
        return f"op_host/{op}_tiling.h"
    headers = [p for p in parts if p.startswith("op_host/") and _is_header(p)]
    defining = [p for p in headers if "BEGIN_TILING_DATA_DEF" in parts[p][1]]
    if len(defining) == 1:
        return defining[0]
    if "?tiling" in parts:
        parts[f"op_host/{op}_tiling.h"] = parts.pop("?tiling")
        return f"op_host/{op}_tiling.h"
    return None


def _renamed_include(text: str, old: str, new: str) -> str:
    return re.sub(rf'(#\s*include\s*["<](?:[^">]*/)?){re.escape(old)}([">])', rf"\g<1>{new}\g<2>", text)


# ---- multikernelbench: the six strings ------------------------------------------------------------------------


def _read_multikernelbench(text: str) -> Parsed | None:
    assigns = re.compile(rf"^\s*({'|'.join(MKB_STRINGS)})\s*[:=]", re.M)
    fences = [(info.split()[0].lower() if info.split() else "", body) for info, body in _FENCE.findall(text)]
    bodies = [body for language, body in fences if language in ("python", "py", "") and assigns.search(body)]
    if not bodies and "```" not in text and assigns.search(text):
        bodies = [text]
    if not bodies:
        return None
    strings: dict[str, str] = {}
    for body in bodies:
        strings.update(_string_assignments(body))
    missing = [name for name in _MKB_REQUIRED if name not in strings]
    if missing:
        raise ScreenRejected(f"your reply does not assign {', '.join(missing)}; {_ASK['multikernelbench']}, each a "
                             'plain """...""" string')
    op, desc = _op_description(strings["project_json_src"])
    files = {f"op_host/{op}_tiling.h": strings["host_tiling_src"], f"op_host/{op}.cpp": strings["host_operator_src"],
             f"op_kernel/{op}.cpp": strings["kernel_src"]}
    names = dict(zip(files, ("host_tiling_src", "host_operator_src", "kernel_src")))
    attrs = _attribute_values(desc, strings.get("python_bind_src", ""), strings.get("model_src", ""))
    if attrs:
        files[ATTRS_FILE], names[ATTRS_FILE] = json.dumps(attrs, sort_keys=True), "python_bind_src/model_src"
    return Parsed("multikernelbench", join_files(files), names)


def _string_assignments(body: str) -> dict[str, str]:
    """The six names' string values, read from the syntax tree (never executed)."""
    try:
        tree = ast.parse(body)
    except SyntaxError as exc:
        raise ScreenRejected(f"your ```python block does not parse (line {exc.lineno}: {exc.msg}); write each of the "
                             'six strings as a plain """...""" (or r"""...""") literal') from None
    found = {}
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) and node.value is not None else []
        for target in targets:
            if isinstance(target, ast.Name) and target.id in MKB_STRINGS:
                value = _constant_string(node.value)
                if value is None:
                    raise ScreenRejected(f"`{target.id}` is not a plain string literal; the six strings are read, "
                                         'never run: write each as a """...""" literal (no f-strings, calls or '
                                         "variables)")
                found[target.id] = value
    return found


def _constant_string(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _constant_string(node.left), _constant_string(node.right)
        return left + right if left is not None and right is not None else None
    return None


def _op_description(project_json: str) -> tuple[str, dict]:
    """The op's file name (snake_case of its type) and its description from project_json_src."""
    try:
        described = json.loads(project_json)
    except json.JSONDecodeError as exc:
        raise ScreenRejected(f"project_json_src is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
                             ) from None
    first = described[0] if isinstance(described, list) and described else described
    op_type = first.get("op") if isinstance(first, dict) else None
    if not isinstance(op_type, str) or not re.fullmatch(r"[A-Za-z]\w*", op_type):
        raise ScreenRejected('project_json_src must be a JSON list of operator descriptions, the first with "op": '
                             'the PascalCase op type (e.g. [{"op": "AddCustom", "input_desc": [...], '
                             '"output_desc": [...]}])')
    return snake_case(op_type), first


def snake_case(op_type: str) -> str:
    """``AddCustom`` -> ``add_custom``; ``GELUCustom`` -> ``gelu_custom``; ``Conv2dCustom`` -> ``conv2d_custom``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", op_type)
    return spaced.lower()


def pascal_case(name: str) -> str:
    """``add_custom`` -> ``AddCustom`` (MultiKernelBench's underscore_to_pascalcase)."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


# ---- multikernelbench: attribute values from python_bind_src / model_src ---------------------------------------

_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)[fFlLuU]*")


def _attribute_values(desc: dict, bind: str, model: str) -> dict:
    """The op's attributes whose values the reply passes as literals: in EXEC_NPU_CMD's arguments (after the
    inputs), a local variable of the binding set to a literal, or a parameter of the binding that ModelNew calls
    with a literal (directly, through ``self.<name>`` or its __init__ default)."""
    listed, inputs = desc.get("attr"), desc.get("input_desc")
    attrs = [a for a in listed if isinstance(a, dict) and isinstance(a.get("name"), str)] if isinstance(
        listed, list) else []
    call = re.search(r"EXEC_NPU_CMD\s*\(", bind)
    if not attrs or not call or not isinstance(inputs, list):
        return {}
    args = _split_arguments(bind, call.end())
    inputs = len(inputs)
    values = {}
    for attr, expression in zip(attrs, args[1 + inputs:]):
        value = _bind_value(expression.strip(), bind, call.start(), model)
        if value is not None:
            values[attr["name"]] = _typed(value, str(attr.get("type", "")))
    return values


def _split_arguments(text: str, start: int) -> list[str]:
    args, depth, current = [], 0, []
    for char in text[start:]:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                break
            depth -= 1
        if char == "," and depth == 0:
            args.append("".join(current))
            current = []
        else:
            current.append(char)
    return [*args, "".join(current)]


def _bind_value(expression: str, bind: str, call_at: int, model: str) -> object | None:
    literal = _cpp_literal(expression)
    if literal is not None or not re.fullmatch(r"\w+", expression):
        return literal
    local = re.search(rf"\b(?:const\s+)?[\w:]+\s+{expression}\s*=\s*([^;]+);", bind)
    if local:
        return _cpp_literal(local.group(1).strip())
    functions = [m for m in re.finditer(r"(\w+)\s*\(([^()]*)\)\s*\{", bind[:call_at])
                 if m.group(1) not in ("if", "for", "while", "switch", "catch")]
    if not functions:
        return None
    name, parameters = functions[-1].groups()
    names = [re.findall(r"\w+", p)[-1] if re.findall(r"\w+", p) else "" for p in parameters.split(",")]
    if expression not in names:
        return None
    bound = re.search(rf'\.def\s*\(\s*"(\w+)"\s*,\s*&?{name}\b', bind)
    return _model_argument(model, bound.group(1) if bound else name, names.index(expression))


def _cpp_literal(text: str) -> object | None:
    if text in ("true", "false"):
        return text == "true"
    if _NUMBER.fullmatch(text):
        number = text.rstrip("fFlLuU")
        return float(number) if re.search(r"[.eE]", number) else int(number)
    return None


def _model_argument(model: str, function: str, index: int) -> object | None:
    """The literal ModelNew passes as argument ``index`` of ``<module>.<function>(...)``, if it is one."""
    try:
        tree = ast.parse(model)
    except SyntaxError:
        return None
    init_values = _init_values(tree)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == function
                and index < len(node.args)):
            argument = node.args[index]
            if isinstance(argument, ast.Attribute) and isinstance(argument.value, ast.Name) and (
                    argument.value.id == "self"):
                return init_values.get(argument.attr)
            return _python_literal(argument)
    return None


def _init_values(tree: ast.AST) -> dict[str, object]:
    """``self.<name>`` -> the literal __init__ sets it to (or the default of the parameter it is set from)."""
    values: dict[str, object] = {}
    for function in ast.walk(tree):
        if not (isinstance(function, ast.FunctionDef) and function.name == "__init__"):
            continue
        positional = function.args.args[len(function.args.args) - len(function.args.defaults):]
        defaults = {a.arg: _python_literal(d) for a, d in zip(positional, function.args.defaults)}
        defaults.update({a.arg: _python_literal(d) for a, d in zip(function.args.kwonlyargs, function.args.kw_defaults)
                         if d is not None})
        for node in ast.walk(function):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and (
                            target.value.id == "self"):
                        value = node.value
                        literal = defaults.get(value.id) if isinstance(value, ast.Name) else _python_literal(value)
                        if literal is not None:
                            values[target.attr] = literal
    return values


def _python_literal(node: ast.AST) -> object | None:
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, (bool, int, float)) else None


def _typed(value: object, kind: str) -> object:
    if kind.lower().startswith("float") and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if kind.lower().startswith("int") and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# ---- multikernelbench: the direct-launch JSON -----------------------------------------------------------------


def _read_direct_launch(text: str) -> Parsed | None:
    fences = [body for info, body in _FENCE.findall(text) if (info.split() or [""])[0].lower() in ("json", "")]
    candidates = [body for body in fences if '"sources"' in body] or (
        [text.strip()] if text.strip().startswith("{") and '"sources"' in text else [])
    if not candidates:
        return None
    try:
        spec = json.loads(candidates[-1])
    except json.JSONDecodeError as exc:
        raise ScreenRejected(f"your JSON submission does not parse (line {exc.lineno}, column {exc.colno}: {exc.msg})"
                             "; reply with exactly one JSON object") from None
    if not isinstance(spec, dict) or not isinstance(spec.get("sources"), list):
        return None
    direct = _direct_launch(spec)
    described = {"module": direct.module, "binding": list(direct.binding_sources),
                 "kernels": list(direct.kernel_sources), "model": direct.model_entry}
    source = join_files({**direct.files, DIRECT_LAUNCH_FILE: json.dumps(described)})
    return Parsed("multikernelbench", source, {p: p for p in direct.files}, direct)


def _direct_launch(spec: dict) -> DirectLaunch:
    build = spec.get("build") if isinstance(spec.get("build"), dict) else {}
    if build.get("type", "ascendc_direct_launch") != "ascendc_direct_launch":
        raise ScreenRejected(f'build.type is {build.get("type")!r}; it must be "ascendc_direct_launch"')
    files: dict[str, str] = {}
    for item in spec["sources"]:
        path = item.get("path") if isinstance(item, dict) else None
        if not isinstance(path, str) or not isinstance(item.get("content"), str):
            raise ScreenRejected("every item of `sources` needs a string `path` and a string `content`")
        if path in files:
            raise ScreenRejected(f"the source path {path} appears twice in `sources`; give each file once")
        if not re.fullmatch(r"[\w.+-]+(?:/[\w.+-]+)*", path) or ".." in path.split("/"):
            raise ScreenRejected(f"the source path {path!r} is not a relative path of letters, digits, _.+- and / "
                                 "(no absolute paths, no ..)")
        files[path] = item["content"]
    cpp = [p for p in files if p.endswith((".cpp", ".cc", ".cxx"))]
    binding = _listed(build, "binding_sources", files) or [
        p for p in cpp if PurePosixPath(p).name == "pybind11.cpp" or "PYBIND11_MODULE" in files[p]]
    kernels = _listed(build, "kernel_sources", files) or [p for p in cpp if p not in binding]
    if not binding:
        raise ScreenRejected("no source binds the kernels: add a .cpp containing PYBIND11_MODULE (or set "
                             "build.binding_sources)")
    if not kernels:
        raise ScreenRejected("no Ascend C kernel source: add a .cpp with the kernel besides the pybind source (or set "
                             "build.kernel_sources)")
    modules = {m for p in binding for m in re.findall(r"PYBIND11_MODULE\s*\(\s*(\w+)\s*,", files[p])}
    modules.discard("TORCH_EXTENSION_NAME")
    if len(modules) > 1 and not build.get("module_name"):
        raise ScreenRejected(f"several pybind module names ({', '.join(sorted(modules))}); use one, or set "
                             "build.module_name")
    module = build.get("module_name") or (modules.pop() if modules else "benchmark_ops")
    entry = spec.get("entry", {}).get("model") if isinstance(spec.get("entry"), dict) else None
    return DirectLaunch(files, str(module), tuple(kernels), tuple(binding), entry or "ModelNew.py::ModelNew")


def _listed(build: dict, key: str, files: dict[str, str]) -> list[str]:
    listed = build.get(key) or []
    if not isinstance(listed, list) or not all(isinstance(p, str) for p in listed):
        raise ScreenRejected(f"build.{key} must be a list of source paths")
    unknown = [p for p in listed if p not in files]
    if unknown:
        raise ScreenRejected(f"build.{key} names {', '.join(unknown)}, which `sources` does not hold")
    return listed


# ---- screening and feedback ---------------------------------------------------------------------------------------

_BINDING_HEADERS = frozenset({"torch/extension.h", "torch/library.h", "torch/torch.h", "pybind11/pybind11.h",
                              "pybind11/stl.h", "ATen/ATen.h", "acl/acl.h"})
_BINDING_PREFIXES = ("torch_npu/", "aclrtlaunch_", "ATen/", "c10/")


def screen_reply(parsed: Parsed) -> None:
    """Raise ScreenRejected unless every part of ``parsed`` may be built: the contract's rules for a contract
    source, the kernel rules for kernel sources (the op's own entry), the host rules for host and binding code.
    The reason names the part as the model did (``kernel_src line 12``, ``add_custom/op_host/add_custom.cpp:12``)."""
    files = parsed.files
    try:
        if files is None:
            rules.screen(parsed.source)
        elif parsed.direct is not None:
            _screen_direct(parsed.direct)
        else:
            _screen_project(files)
    except ScreenRejected as exc:
        raise ScreenRejected(locate(exc.reason, parsed.names)) from None


def _screen_project(files: dict[str, str]) -> None:
    op = next(PurePosixPath(p).stem for p in files if p.startswith("op_kernel/") and not _is_header(p))
    host_headers = frozenset(PurePosixPath(p).name for p in files if p.startswith("op_host/") and _is_header(p))
    kernel_headers = {p: t for p, t in files.items() if p.startswith("op_kernel/") and _is_header(p)}
    tiling = f"op_host/{op}_tiling.h"
    includable = frozenset({*(PurePosixPath(p).name for p in kernel_headers), f"{op}_tiling.h",
                            f"../op_host/{op}_tiling.h"})
    known = frozenset().union(*(rules.declared_names(t) for t in (*kernel_headers.values(), files[tiling])))
    for path, text in files.items():
        if path == ATTRS_FILE:
            _check_attrs(text)
        elif path.startswith("op_host/"):
            rules.screen_host_part(path, text, host_headers)
        else:
            rules.screen_kernel_part(path, text, None if _is_header(path) else op, includable, known)


def _screen_direct(direct: DirectLaunch) -> None:
    headers = {p: t for p, t in direct.files.items() if p.endswith((".h", ".hpp"))}
    own = frozenset({*headers, *(PurePosixPath(p).name for p in headers)})
    known = frozenset().union(*(rules.declared_names(t) for t in headers.values()))
    for path in direct.kernel_sources:
        rules.screen_kernel_part(path, direct.files[path], None, own, known)
    for path in direct.binding_sources:
        text = direct.files[path]
        included = set(re.findall(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', text, re.M))
        binding = frozenset(h for h in included if h in _BINDING_HEADERS or h.startswith(_BINDING_PREFIXES))
        rules.screen_host_part(path, text, own | binding)


def _check_attrs(text: str) -> None:
    values = json.loads(text)
    if not isinstance(values, dict) or not all(isinstance(v, (bool, int, float, str)) for v in values.values()):
        raise ScreenRejected("the attribute values must be plain numbers, booleans or strings")


def locate(failure_text: str, names: dict[str, str]) -> str:
    """``failure_text`` with bundle paths (``op_kernel/add_custom.cpp:12:5:``, ``op_host/add_custom.cpp:40``)
    written in the model's naming: its own path for an operator project, ``kernel_src line 12, column 5`` for
    MultiKernelBench's strings."""
    renamed = {path: name for path, name in names.items() if name and name != path}
    if not renamed:
        return failure_text
    paths = "|".join(re.escape(p) for p in sorted(renamed, key=len, reverse=True))

    def replace(match: re.Match) -> str:
        name, line, col = renamed[match.group("path")], match.group("line"), match.group("col")
        if "/" in name or "." in name:
            return name + (f":{line}" if line else "") + (f":{col}" if col else "")
        return name + (f" line {line}" if line else "") + (f", column {col}" if col else "")

    return re.sub(rf"(?<![\w/.])(?P<path>{paths}){_LOCATION}", replace, failure_text)
