"""The model generator end to end: a scripted OpenAI-compatible server on loopback (real HTTP), the real
pipeline (build, simulator, verifier). Each test asserts what the model was sent back and what the user
ends up running."""

import threading
import warnings

import pytest
import torch

from fake_openai import FakeOpenAIServer, reply
from model_kernels import SHAPE, model_kernel, scale_add
from torch_ascendgen import AscendGenWarning, ascend_kernel
from torch_ascendgen.capture import capture
from torch_ascendgen.generators.builtin.generator import VERSION as BUILTIN_VERSION
from torch_ascendgen.generators.llm.transcript import read


def scale_sub(x, y):
    return x * 3 - y


def double_add(x, y):  # float64: the built-in generator declines it (the vector unit has no float64)
    return x + y


def edit(source: str, old: str, new: str) -> str:
    assert old in source, old
    return source.replace(old, new, 1)


def code(source: str, prose: str = "Here is the kernel:") -> str:
    return f"{prose}\n```cpp\n{source}```\n"


def inputs():
    return torch.randn(SHAPE), torch.randn(SHAPE)


@pytest.fixture(autouse=True)
def llm_settings(monkeypatch):
    for name, value in {"SAMPLES": "1", "ROUNDS": "2", "OPT_ROUNDS": "0", "TIMEOUT": "5", "RETRIES": "2"}.items():
        monkeypatch.setenv(f"TORCH_ASCENDGEN_LLM_{name}", value)
    monkeypatch.delenv("TORCH_ASCENDGEN_LLM_URL", raising=False)
    monkeypatch.delenv("TORCH_ASCENDGEN_LLM_MODEL", raising=False)


def decorated(function, server, tmp_path, generator="llm"):
    return ascend_kernel(function, generator=generator, llm_url=server.url, variants=1, cache_dir=tmp_path,
                         progress=False)


def runs_the_model_kernel(fast, function, source: str) -> dict:
    """The user's call returns the right values from the model's kernel; the entry's meta."""
    x, y = inputs()
    torch.testing.assert_close(fast(x, y), function(x, y))
    (kernel,) = fast.kernels()
    assert kernel.entry.source == source
    meta = kernel.entry.meta
    assert meta["generator"] == "llm:fake-kernel-model"
    assert meta["llm"]["winner_is_model"] and meta["llm"]["prompt_version"] == "p2"
    return meta


def sent_back(server, index: int) -> str:
    """The last message of request ``index``: the feedback the model was given."""
    return server.requests[index]["messages"][-1]["content"]


def test_a_correct_kernel_on_the_first_reply_is_what_the_user_runs(tmp_path):
    good = model_kernel(scale_add)
    with FakeOpenAIServer([reply(code(good), reasoning="tile by 1024")]) as server:
        fast = decorated(scale_add, server, tmp_path)
        meta = runs_the_model_kernel(fast, scale_add, good)
    (request,) = server.requests
    assert request["n"] == 1 and request["max_tokens"] == 4096 and request["seed"] == 0
    system, user = request["messages"]
    assert "ascendgen_tiling" in system["content"] and "DataCopyPad" in system["content"]
    assert "aten.mul.Tensor(in0, 2)" in user["content"] and "```cpp" in user["content"]
    assert meta["llm"]["round"] == 0 and meta["llm"]["tokens"] > 0
    records = read(meta["llm"]["transcript"])
    assert [r["kind"] for r in records] == ["task", "prompt", "reply", "verdict", "done"]
    assert records[2]["reasoning"] == "tile by 1024" and records[3]["ok"]


def test_a_compile_error_goes_back_and_round_two_fixes_it(tmp_path):
    good = model_kernel(scale_add)
    broken = edit(good, "op.Process();", "op.Process()")
    with FakeOpenAIServer([reply(code(broken)), reply(code(good))]) as server:
        fast = decorated(scale_add, server, tmp_path)
        meta = runs_the_model_kernel(fast, scale_add, good)
    feedback = sent_back(server, 1)
    assert "does not compile" in feedback and "error: expected ';'" in feedback.replace("‘", "'").replace("’", "'")
    assert "kernel.cpp:" in feedback  # the line number
    assert server.requests[1]["messages"][-2] == {"role": "assistant", "content": code(broken).strip()}
    assert meta["llm"]["round"] == 1


def test_wrong_results_at_the_tail_are_repaired_with_the_mismatch_report(tmp_path):
    good = model_kernel(scale_add)
    short_tail = edit(good, "DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};\n"
                            "            DataCopyPad(gm[offset], local, params);",
                      "DataCopyExtParams params{1, static_cast<uint32_t>((count - 1) * sizeof(T)), 0, 0, 0};\n"
                      "            DataCopyPad(gm[offset], local, params);")
    with FakeOpenAIServer([reply(code(short_tail)), reply(code(good))]) as server:
        fast = decorated(scale_add, server, tmp_path)
        runs_the_model_kernel(fast, scale_add, good)
    feedback = sent_back(server, 1)
    assert "results are wrong" in feedback and "differs at 1 of" in feedback and "input set 'tail" in feedback
    assert "expected" in feedback and "got" in feedback and "max abs error" in feedback


def test_an_out_of_bounds_kernel_gets_the_simulator_diagnostic(tmp_path):
    good = model_kernel(scale_add)
    past_end = edit(good, "tiling->total = static_cast<uint32_t>(total);",
                    "tiling->total = static_cast<uint32_t>(total + 64);")
    with FakeOpenAIServer([reply(code(past_end)), reply(code(good))]) as server:
        fast = decorated(scale_add, server, tmp_path)
        runs_the_model_kernel(fast, scale_add, good)
    feedback = sent_back(server, 1)
    assert "hardware rule" in feedback and "[gm_out_of_bounds] kernel.cpp:" in feedback
    assert "past its end" in feedback


@pytest.mark.parametrize("bad_reply, reason", [
    (lambda good: code('#include <cstdlib>\n' + good), "#include <cstdlib> is not allowed"),
    (lambda good: code(edit(good, "op.Process();", 'op.Process(); system("rm -rf /");')), "calls `system`"),
    (lambda good: "I would tile the tensor by rows and use DataCopyPad for the tail.", "contains no code"),
    (lambda good: reply("```cpp\n" + good[:2000], finish_reason="length"), "cut off at the max_tokens"),
], ids=["forbidden-header", "system-call", "prose", "cut-at-max-tokens"])
def test_a_rejected_reply_is_never_built_and_its_reason_goes_back(tmp_path, monkeypatch, bad_reply, reason):
    import torch_ascendgen.evaluate.search as search_module

    good = model_kernel(scale_add)
    built = []
    real_build = search_module._build
    monkeypatch.setattr(search_module, "_build", lambda candidate, *rest: built.append(candidate.source) or
                        real_build(candidate, *rest))
    first = bad_reply(good)
    with FakeOpenAIServer([first if isinstance(first, dict) else reply(first), reply(code(good))]) as server:
        fast = decorated(scale_add, server, tmp_path)
        runs_the_model_kernel(fast, scale_add, good)
    assert reason in sent_back(server, 1) and "rejected before it was built" in sent_back(server, 1)
    model_built = [source for source in built if "MIN_BLOCK = 1024" in source or "system(" in source]
    assert model_built == [good]  # only the accepted kernel reached the compiler


def test_a_correct_kernel_is_asked_to_beat_the_best_so_far(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_ASCENDGEN_LLM_OPT_ROUNDS", "1")
    good = model_kernel(scale_add)
    as_fast_as_builtin = edit(good, "MIN_BLOCK = 1024", "MIN_BLOCK = 2048")
    with FakeOpenAIServer([reply(code(as_fast_as_builtin)), reply(code(good))]) as server:
        fast = decorated(scale_add, server, tmp_path)
        meta = runs_the_model_kernel(fast, scale_add, good)
    feedback = sent_back(server, 1)
    assert "That kernel is correct" in feedback and "MIN_BLOCK = 2048" in feedback and " ns " in feedback
    assert meta["llm"]["round"] == 1 and len(server.requests) == 2


def test_http_500s_are_retried(tmp_path):
    good = model_kernel(scale_add)
    with FakeOpenAIServer([{"status": 500}, {"status": 503}, reply(code(good))]) as server:
        fast = decorated(scale_add, server, tmp_path)
        runs_the_model_kernel(fast, scale_add, good)
    assert len(server.requests) == 3
    assert server.requests[0]["messages"] == server.requests[2]["messages"]  # the same request, again


def test_a_timed_out_request_is_retried(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_ASCENDGEN_LLM_TIMEOUT", "1")
    good = model_kernel(scale_add)
    with FakeOpenAIServer([reply("too late", delay=3.0), reply(code(good))]) as server:
        fast = decorated(scale_add, server, tmp_path)
        runs_the_model_kernel(fast, scale_add, good)
    assert len(server.requests) == 2


def test_when_the_model_never_succeeds_the_original_runs_with_a_clear_warning(tmp_path):
    prose = reply("Integer addition is simple; just add the numbers.")
    with FakeOpenAIServer([prose, prose, prose]) as server:
        fast = decorated(double_add, server, tmp_path, generator="auto")
        x, y = torch.randn(SHAPE, dtype=torch.float64), torch.randn(SHAPE, dtype=torch.float64)
        with pytest.warns(AscendGenWarning) as caught:
            torch.testing.assert_close(fast(x, y), x + y)
    assert fast.kernels() == []
    message = str(caught[0].message)
    assert "runs as the original function" in message and "built-in generator" in message
    assert "fake-kernel-model produced no kernel" in message and "transcript" in message
    assert len(server.requests) == 3  # the first reply and two repair rounds, each told "no code"
    assert all("contains no code" in sent_back(server, i) for i in (1, 2))


def test_an_unreachable_model_falls_back_with_the_url_and_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_ASCENDGEN_LLM_TIMEOUT", "0.5")
    monkeypatch.setenv("TORCH_ASCENDGEN_LLM_RETRIES", "1")
    late = reply("too late", delay=2.0)
    with FakeOpenAIServer([late, late]) as server:
        fast = decorated(double_add, server, tmp_path)
        x = torch.ones(4, 4, dtype=torch.float64)
        with pytest.warns(AscendGenWarning, match="TORCH_ASCENDGEN_LLM_TIMEOUT") as caught:
            torch.testing.assert_close(fast(x, x), x + x)
    assert server.url in str(caught[0].message)


def test_a_failing_server_leaves_the_built_in_kernel_running_and_uncached_for_the_model(tmp_path):
    with FakeOpenAIServer([{"status": 500}] * 3) as server:
        fast = decorated(scale_add, server, tmp_path)
        x, y = inputs()
        with pytest.warns(AscendGenWarning, match="built-in generator's kernel without the model: .*HTTP 500"):
            torch.testing.assert_close(fast(x, y), scale_add(x, y))
    (kernel,) = fast.kernels()
    assert kernel.origin == "search"
    assert kernel.entry.meta["generator"] == BUILTIN_VERSION and "llm" not in kernel.entry.meta
    assert len(server.requests) == 3  # the first request and its two retries; next time the model is asked again


def test_a_server_down_from_the_start_leaves_the_built_in_kernel_running(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_ASCENDGEN_CACHE_DIR", str(tmp_path / "machine"))  # no remembered model name
    with FakeOpenAIServer([]) as server:
        url = server.url
    fast = ascend_kernel(scale_add, generator="llm", llm_url=url, variants=1, cache_dir=tmp_path, progress=False)
    x, y = inputs()
    with pytest.warns(AscendGenWarning, match=f"without the model: the model server at {url} .*connection failed"):
        torch.testing.assert_close(fast(x, y), scale_add(x, y))
    (kernel,) = fast.kernels()
    assert kernel.entry.meta["generator"] == BUILTIN_VERSION and "llm" not in kernel.entry.meta


def test_two_functions_generated_concurrently_keep_their_own_transcripts_and_entries(tmp_path):
    kernels = {"scale_add": model_kernel(scale_add), "scale_sub": model_kernel(scale_sub)}

    def answer(request):
        user = request["messages"][1]["content"]
        return reply(code(kernels["scale_add" if "Function `scale_add`" in user else "scale_sub"]))

    with FakeOpenAIServer(default=answer) as server:
        fasts = {f.__name__: decorated(f, server, tmp_path) for f in (scale_add, scale_sub)}
        errors = []

        def call(name, function):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error", AscendGenWarning)
                    runs_the_model_kernel(fasts[name], function, kernels[name])
            except BaseException as exc:  # reported below, in the test's thread
                errors.append(exc)

        threads = [threading.Thread(target=call, args=(f.__name__, f)) for f in (scale_add, scale_sub)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert not errors, errors
    entries = {name: fast.kernels()[0].entry for name, fast in fasts.items()}
    assert entries["scale_add"].key != entries["scale_sub"].key
    paths = {name: entry.meta["llm"]["transcript"] for name, entry in entries.items()}
    assert paths["scale_add"] != paths["scale_sub"]
    for name, entry in entries.items():
        records = read(paths[name])
        assert [r["name"] for r in records if r["kind"] == "task"] == [name]
        assert all(r["kind"] != "reply" or r["text"] == code(kernels[name]).strip() for r in records)
        assert entry.meta["name"] == name


@pytest.mark.parametrize("setting, value, stopped", [("TOKEN_BUDGET", "10", "token budget"),
                                                     ("WALL_BUDGET", "0", "wall-time budget")])
def test_budgets_end_the_loop(tmp_path, monkeypatch, setting, value, stopped):
    from torch_ascendgen.generators.llm.loop import generate_with_model
    from torch_ascendgen.pipeline import Options

    monkeypatch.setenv(f"TORCH_ASCENDGEN_LLM_{setting}", value)
    task = capture(scale_add, list(inputs()), name="scale_add")
    with FakeOpenAIServer([reply("no code here")] * 3) as server:
        outcome = generate_with_model(task, scale_add, Options(cache_dir=tmp_path, llm_url=server.url),
                                      "Ascend910B2", None, evaluate=lambda candidates: pytest.fail("built"))
    assert len(server.requests) == 1 and stopped in outcome.stopped and outcome.records == ()
    assert read(outcome.transcript)[-1]["stopped"] == outcome.stopped


def test_with_the_server_down_a_new_process_still_finds_the_models_cached_kernel(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_ASCENDGEN_CACHE_DIR", str(tmp_path / "machine"))
    good = model_kernel(scale_add)
    with FakeOpenAIServer([reply(code(good))]) as server:
        runs_the_model_kernel(decorated(scale_add, server, tmp_path), scale_add, good)
    # the server is gone, no model name is configured: the name it served is remembered per URL
    again = decorated(scale_add, server, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AscendGenWarning)
        runs_the_model_kernel(again, scale_add, good)
    assert again.kernels()[0].origin == "cache"


def test_auto_finds_a_model_kernel_without_searching_the_built_in_candidates_again(tmp_path, monkeypatch):
    import torch_ascendgen.pipeline as pipeline

    monkeypatch.setenv("TORCH_ASCENDGEN_CACHE_DIR", str(tmp_path / "machine"))
    good = model_kernel(scale_add)
    searches = []

    def builtin_fails(task, variants):  # as for a function the built-in generator cannot verify
        searches.append(task.name)
        raise pipeline.UnsupportedFunction("no built-in kernel")

    monkeypatch.setattr(pipeline, "generate", builtin_fails)
    with FakeOpenAIServer([reply(code(good))]) as server:
        first = decorated(scale_add, server, tmp_path, generator="auto")
        runs_the_model_kernel(first, scale_add, good)
        assert searches == ["scale_add"]
        second = decorated(scale_add, server, tmp_path, generator="auto")  # as in a new process
        runs_the_model_kernel(second, scale_add, good)
    assert searches == ["scale_add"] and len(server.requests) == 1


def test_a_server_that_ignores_n_is_asked_again_for_the_missing_samples_with_their_own_seeds(tmp_path, monkeypatch):
    """llama.cpp's server answers one choice whatever `n` asks; the samples still number llm_samples."""
    monkeypatch.setenv("TORCH_ASCENDGEN_LLM_SAMPLES", "3")
    monkeypatch.setenv("TORCH_ASCENDGEN_LLM_SEED", "7")
    monkeypatch.setenv("TORCH_ASCENDGEN_LLM_ROUNDS", "0")
    good = model_kernel(scale_add)
    script = [reply("no code, sample 0"), reply(code(good)), reply("no code, sample 2")]
    with FakeOpenAIServer(script) as server:
        fast = decorated(scale_add, server, tmp_path)
        runs_the_model_kernel(fast, scale_add, good)
    first, *more = server.requests
    assert first["n"] == 3 and first["seed"] == 7
    assert sorted((r["n"], r["seed"]) for r in more) == [(1, 8), (1, 9)]
    records = read(fast.kernels()[0].entry.meta["llm"]["transcript"])
    verdicts = sorted((r["sample"], r["ok"]) for r in records if r["kind"] == "verdict")
    assert [sample for sample, _ in verdicts] == [0, 1, 2] and sum(ok for _, ok in verdicts) == 1


def test_the_repair_rounds_run_their_candidates_in_one_child_process(tmp_path, monkeypatch):
    import torch_ascendgen.targets.sandbox as sandbox

    children = []
    real_child = sandbox._Child
    monkeypatch.setattr(sandbox, "_Child", lambda *args: children.append(args) or real_child(*args))
    good = model_kernel(scale_add)
    broken = edit(good, "op.Process();", "op.Process()")
    wrong = edit(good, "tiling->total = static_cast<uint32_t>(total);",
                 "tiling->total = static_cast<uint32_t>(total + 64);")
    with FakeOpenAIServer([reply(code(broken)), reply(code(wrong)), reply(code(good))]) as server:
        fast = decorated(scale_add, server, tmp_path)
        meta = runs_the_model_kernel(fast, scale_add, good)
    assert meta["llm"]["round"] == 2 and len(meta["candidates"]) == 4  # the built-in baseline and three rounds
    assert len(children) == 1
