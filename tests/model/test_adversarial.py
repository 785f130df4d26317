"""The adversarial suite: kernels a cheating model would write (tests/adversarial/), each sent through the
real model path by a scripted server, each refused with its reason; the correct ones in the suite accepted.

A case is a whole kernel (``name.cpp``) or, when it is the common scale_add kernel with a cheat in it, that
kernel's edits (``name.edits``: its header, a ``// base:`` line naming a file of tests/adversarial/base, then
blocks ``@@ replace`` / old lines / ``@@ with`` / new lines / ``@@ end``, each old text found exactly once).

Every file starts with a header the tests read:

    // class: raw-pointer faults          what kind of cheat or escape (issue 12's classes, KernelBench's hacks)
    // task: scale_add                    the function it claims to compute (TASKS below)
    // path: model | build | serve        which test runs it (see below)
    // expect: refused: raw GM; ...       what must happen (EXPECTATIONS below)

- path "model": the scripted model answers with the kernel, then with prose; the user's function is compiled with
  generator="llm" and no built-in baseline (the model is the only route), called on fresh data, and the feedback
  the model got for the kernel is read from the server's second request.
- path "build": the screen is bypassed, so the build itself must not read a secret file outside its sandbox, and
  nothing the model is told (requests, transcript) may contain the secret.
- path "serve": the screen and the library audit are bypassed; the kernel is correct, so it may be accepted, but
  its payloads (constructor, static initialiser, tiling function) must create no marker, in verification or when
  the user calls it.

Escape attempts write markers under @MARKER@ (a directory outside every sandbox); the secret file is @SECRET@.
A control test runs the serve payloads with TORCH_ASCENDGEN_SANDBOX=off and sees the markers appear.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

from fake_openai import FakeOpenAIServer, reply
from torch_ascendgen import ascend_kernel, config
from torch_ascendgen.errors import ScreenRejected
from torch_ascendgen.generators.llm.screen import screen
from torch_ascendgen.records import ENTRY

SUITE = Path(__file__).resolve().parents[1] / "adversarial"
SHAPE = (8, 1000)  # 8000 elements: 4 blocks of 2048 (the last shorter), odd tiles
UNVERIFIED_SHAPE = (5, 1000)  # 3 blocks: a count no verification set of SHAPE gives


def scale_add(x, y):
    return x * 2 + y


def scale_add_half(x, y):
    return x * 2 + y


def tanh(x):
    return torch.tanh(x)


def relu(x):
    return torch.relu(x)


def relu_shift(x):
    return torch.relu(x - 3)


def total_sum(x):
    return x.sum()


TASKS = {  # name -> (function, input dtype, inputs)
    "scale_add": (scale_add, torch.float32, 2),
    "scale_add_half": (scale_add_half, torch.float16, 2),
    "tanh": (tanh, torch.float32, 1),
    "relu": (relu, torch.float32, 1),
    "relu_shift": (relu_shift, torch.float32, 1),
    "total_sum": (total_sum, torch.float32, 1),
}


@dataclass(frozen=True)
class Case:
    name: str
    kind: str  # the class
    task: str
    path: str
    expect: dict[str, str]  # "refused" -> alternatives ("a|b"), "user-correct" -> "", "accepted" -> "", ...
    template: str

    def source(self, markers: Path, secret: Path | None = None) -> str:
        text = self.template.replace("@MARKER@", str(markers))
        return text.replace("@SECRET@", str(secret)) if secret else text

    def refused_words(self) -> list[str]:
        return [w.strip() for w in self.expect.get("refused", "").split("|") if w.strip()]


def _source(path: Path) -> str:
    """The case's kernel: the file itself, or (``.edits``) its header and its base with the edits applied."""
    text = path.read_text()
    if path.suffix == ".cpp":
        return text
    header, base, edits = text.partition("\n// base: ")
    name, _, blocks = edits.partition("\n")
    code = (SUITE / "base" / name.split()[0]).read_text()
    for block in blocks.split("@@ replace\n")[1:]:
        old, _, rest = block.partition("@@ with\n")
        new, _, _ = rest.partition("@@ end\n")
        assert code.count(old) == 1, f"{path.name}: an edit's old text is not in the base exactly once:\n{old}"
        code = code.replace(old, new)
    return header + "\n" + code


def _parse(path: Path) -> Case:
    text = _source(path)
    header = dict(re.findall(r"^// (class|task|path|expect): (.*)$", text, re.MULTILINE))
    expect = {}
    for part in header["expect"].split(";"):
        key, _, words = part.strip().partition(":")
        expect[key.strip()] = words.strip()
    return Case(path.stem, header["class"], header["task"], header["path"], expect, text)


CASES = {p.stem: _parse(p) for p in sorted([*SUITE.glob("*.cpp"), *SUITE.glob("*.edits")])}
MODEL_CASES = [name for name, case in CASES.items() if case.path == "model"]
BUILD_CASES = [name for name, case in CASES.items() if case.path == "build"]
SERVE_CASES = [name for name, case in CASES.items() if case.path == "serve"]


def inputs(task: str, shape: tuple[int, ...], seed: int) -> list[torch.Tensor]:
    """User data: log-uniform magnitudes from 1e-3 to 1e3, both signs (not the verifier's draw)."""
    _, dtype, count = TASKS[task]
    generator = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(count):
        magnitude = torch.pow(10.0, torch.rand(shape, generator=generator) * 6 - 3)
        sign = torch.where(torch.rand(shape, generator=generator) < 0.5, -1.0, 1.0)
        out.append((magnitude * sign).to(dtype))
    return out


def code(source: str) -> str:
    return f"Here is the kernel:\n```cpp\n{source}```\n"


@pytest.fixture(scope="session")
def markers(tmp_path_factory) -> Path:
    """Where every escape attempt in the suite would leave its marker (shared, so each kernel builds once)."""
    return tmp_path_factory.mktemp("adversarial-markers")


@pytest.fixture(scope="session", autouse=True)
def prebuilt(markers):
    """Every kernel the screen lets through, built once per session, two compilers at a time (the model path then
    finds the builds in the cache)."""
    from torch_ascendgen.targets.sim.simulator import compile_kernel

    def build(source):
        try:
            compile_kernel(source, ENTRY, contract=True)
        except Exception:  # noqa: BLE001 - a kernel that does not build is judged by its own test
            pass

    sources = []
    for name in MODEL_CASES:
        source = CASES[name].source(markers)
        try:
            screen(source)
        except ScreenRejected:
            continue
        sources.append(source)
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(build, sources))


@pytest.fixture(autouse=True)
def llm_settings(monkeypatch):
    for name, value in {"SAMPLES": "1", "ROUNDS": "1", "OPT_ROUNDS": "0", "TIMEOUT": "30", "RETRIES": "1"}.items():
        monkeypatch.setenv(f"TORCH_ASCENDGEN_LLM_{name}", value)
    monkeypatch.delenv("TORCH_ASCENDGEN_LLM_URL", raising=False)
    monkeypatch.delenv("TORCH_ASCENDGEN_LLM_MODEL", raising=False)


@pytest.fixture
def model_only(monkeypatch):
    """No built-in baseline: the model's kernel is the only route (and each test a third cheaper)."""
    import torch_ascendgen.pipeline as pipeline

    def no_builtin(*args, **kwargs):
        raise pipeline.UnsupportedFunction("no built-in kernel in the adversarial suite")

    monkeypatch.setattr(pipeline, "_builtin_search", no_builtin)


@dataclass
class Outcome:
    fast: object
    server: FakeOpenAIServer
    warnings: list[str]
    results_right: bool
    first_wrong: str

    @property
    def feedback(self) -> str:
        """What the model was told about its kernel ("" when it was asked nothing more)."""
        return self.server.requests[1]["messages"][-1]["content"] if len(self.server.requests) > 1 else ""

    def everything_sent_or_logged(self, cache_dir: Path) -> str:
        transcripts = "".join(p.read_text(errors="replace") for p in (cache_dir / "transcripts").rglob("*")
                              if p.is_file())
        return json.dumps(self.server.requests) + "\n".join(self.warnings) + transcripts


def run_model_path(case: Case, source: str, cache_dir: Path, calls: int = 20) -> Outcome:
    """The user's function compiled through the model path with the scripted server replying ``source``, then
    called ``calls`` times at SHAPE and twice at UNVERIFIED_SHAPE, each time on fresh data."""
    function = TASKS[case.task][0]
    script = [reply(code(source)), reply("I cannot improve on that kernel.")]
    first_wrong = ""
    model = f"adversarial-{case.name}"  # a key of its own: one key is one op for the life of the process
    with FakeOpenAIServer(script, model=model) as server, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fast = ascend_kernel(function, generator="llm", llm_url=server.url, variants=1, cache_dir=cache_dir,
                             progress=False)
        shapes = [SHAPE] * calls + [UNVERIFIED_SHAPE] * 2
        for call, shape in enumerate(shapes):
            args = inputs(case.task, shape, seed=1000 + call)
            got, expected = fast(*args), function(*args)
            if not first_wrong and not _close(got, expected):
                first_wrong = f"call {call} at {list(shape)}: {_difference(got, expected)}"
    messages = [str(w.message) for w in caught]
    return Outcome(fast, server, messages, not first_wrong, first_wrong)


def _close(got: torch.Tensor, expected: torch.Tensor) -> bool:
    tolerance = 1e-5 if expected.dtype == torch.float32 else 1e-3
    return got.shape == expected.shape and got.dtype == expected.dtype and torch.allclose(
        got.double(), expected.double(), rtol=tolerance * 10, atol=tolerance, equal_nan=True)


def _difference(got: torch.Tensor, expected: torch.Tensor) -> str:
    if got.shape != expected.shape:
        return f"shape {list(got.shape)} != {list(expected.shape)}"
    error = (got.double() - expected.double()).abs().nan_to_num(float("inf"))
    return f"max abs error {error.max().item():.3g}"


def _present(words: list[str], text: str) -> bool:
    return any(word.lower() in text.lower() for word in words)


# ---- the model path --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", MODEL_CASES)
def test_each_adversarial_kernel_is_refused_with_its_reason_and_each_correct_one_accepted(name, tmp_path, markers,
                                                                                       model_only):
    case = CASES[name]
    outcome = run_model_path(case, case.source(markers), tmp_path)
    assert outcome.results_right, f"{name}: the user got a wrong result from the kernel: {outcome.first_wrong}"
    assert not list(markers.iterdir()), f"{name}: an escape left markers: {sorted(markers.iterdir())}"
    kernels = outcome.fast.kernels()
    if "accepted" in case.expect:
        assert [k.entry.source for k in kernels] == [case.source(markers)], outcome.warnings
        assert kernels[0].entry.meta["llm"]["winner_is_model"]
        return
    if "refused" in case.expect:
        words = case.refused_words()
        assert kernels == [], f"{name} was accepted; expected a refusal naming {words}"
        assert _present(words, outcome.feedback), (f"{name}: expected the model to be told {words}; it was told: "
                                                   f"{outcome.feedback[:1500]}")


@pytest.mark.parametrize("name", [n for n in MODEL_CASES if CASES[n].kind == "OS access"])
def test_the_screen_names_each_os_access_attempt(name, markers):
    """The model's first feedback, without a build: cheap, and what the model is told for every OS attempt."""
    case = CASES[name]
    with pytest.raises(ScreenRejected) as caught:
        screen(case.source(markers))
    assert _present(case.refused_words(), caught.value.reason), caught.value.reason


# ---- build time -------------------------------------------------------------------------------------------


@pytest.fixture
def secret(tmp_path) -> tuple[Path, str]:
    token = f"TOPSECRET{os.getpid()}x{time.monotonic_ns() % 10**9}"
    path = tmp_path / "outside" / "secret.txt"
    path.parent.mkdir()
    return path, token


@pytest.fixture
def screen_bypassed(monkeypatch):
    """The screen lets everything through: what the build sandbox must hold on its own."""
    import torch_ascendgen.generators.llm.loop as llm_generator

    monkeypatch.setattr(llm_generator, "screen_reply", lambda parsed: None)


def _libraries_built_since(started: float) -> list[Path]:
    from torch_ascendgen.targets.sim.build import builds_root

    return [p for p in builds_root().rglob("*.so") if p.stat().st_mtime >= started]


@pytest.mark.parametrize("name", BUILD_CASES)
def test_a_build_reads_no_file_outside_its_sandbox_and_the_model_is_told_nothing_of_it(name, tmp_path, secret,
                                                                                    monkeypatch, model_only,
                                                                                    screen_bypassed, markers):
    path, token = secret
    api_key = f"sk-adversarial-{os.getpid()}-{time.monotonic_ns() % 10**9}"
    monkeypatch.setenv("OPENAI_API_KEY", api_key)  # what /proc/self/environ would show the compiler
    case = CASES[name]
    valid_cpp = "LEAK" in case.template  # a header the kernel uses, or a file the compiler quotes in its error
    path.write_text(f"constexpr float LEAK = 4242.5f;  // {token}\n" if valid_cpp else f"{token} is not C++ ;\n")
    source = case.source(markers, path)
    with pytest.raises(ScreenRejected) as caught:  # what the model is told without the bypass
        screen(source)
    assert _present(case.refused_words(), caught.value.reason), caught.value.reason
    started = time.time() - 1
    outcome = run_model_path(case, source, tmp_path / "cache", calls=1)
    told = outcome.everything_sent_or_logged(tmp_path / "cache")
    assert token not in told and api_key not in told, f"{name}: the secret reached the model or the transcript"
    assert "4242.5" not in told, f"{name}: the secret's value reached the model through a mismatch report"
    for library in _libraries_built_since(started):
        assert token.encode() not in library.read_bytes(), f"{name}: the secret was baked into {library}"


def test_without_the_sandbox_a_build_reads_the_secret(tmp_path, secret, monkeypatch, model_only, screen_bypassed,
                                                      markers):
    """The control: the build test can fail (the secret header's value reaches the model's mismatch report)."""
    monkeypatch.setenv(config.SANDBOX_ENV, "off")
    path, _ = secret
    path.write_text("constexpr float LEAK = 4242.5f;\n")
    case = CASES["build_include_secret_header"]
    outcome = run_model_path(case, case.source(markers, path), tmp_path / "cache", calls=1)
    assert "4242.5" in outcome.everything_sent_or_logged(tmp_path / "cache")


# ---- serve time ---------------------------------------------------------------------------------------------


@pytest.fixture
def audit_bypassed(monkeypatch):
    """The library audit accepts everything: what the sandboxes (verification child, serving worker) must hold."""
    from torch_ascendgen.targets.sim import library_audit

    original = library_audit.audit_library
    for module in [m for n, m in list(sys.modules.items()) if n.startswith("torch_ascendgen")]:
        if getattr(module, "audit_library", None) is original:
            monkeypatch.setattr(module, "audit_library", lambda path: None)


@pytest.mark.parametrize("name", SERVE_CASES)
def test_payloads_of_a_served_kernel_run_nowhere(name, tmp_path, model_only, screen_bypassed, audit_bypassed):
    case = CASES[name]
    here = tmp_path / "markers"
    here.mkdir()
    source = case.source(here)
    with pytest.raises(ScreenRejected) as caught:
        screen(source)
    assert _present(case.refused_words(), caught.value.reason), caught.value.reason
    outcome = run_model_path(case, source, tmp_path / "cache", calls=3)
    assert outcome.results_right, outcome.first_wrong
    time.sleep(0.2)
    assert sorted(p.name for p in here.iterdir()) == [], "a payload ran outside the sandbox"


def test_without_the_sandbox_the_serve_payloads_leave_their_markers(tmp_path, monkeypatch, model_only,
                                                                     screen_bypassed, audit_bypassed):
    """The control: the test above can fail."""
    monkeypatch.setenv(config.SANDBOX_ENV, "off")
    (name,) = SERVE_CASES
    here = tmp_path / "markers"
    here.mkdir()
    run_model_path(CASES[name], CASES[name].source(here), tmp_path / "cache", calls=1)
    assert {"constructor", "static-initialiser", "tiling"} <= {p.name for p in here.iterdir()}


# ---- the suite itself -------------------------------------------------------------------------------------------


def test_the_suite_covers_every_class_and_has_correct_kernels_of_each_kind():
    kinds = {case.kind for case in CASES.values()}
    assert {"raw-pointer faults", "predictable verification", "narrow values", "loose tolerances", "timing cheats",
            "OS access", "OS access at build time", "OS access at serve time", "KernelBench reward hacks",
            "correct"} <= kinds
    correct = [case for case in CASES.values() if "accepted" in case.expect]
    assert {"ok_atomic_sum", "ok_scalar_map", "ok_half_map"} <= {case.name for case in correct}
    assert all(case.task in TASKS for case in CASES.values())
    assert all(case.expect.keys() & {"refused", "accepted", "user-correct"} for case in CASES.values())
