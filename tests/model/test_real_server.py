"""Our model client and loop against a real OpenAI-compatible server: llama.cpp's, serving a tiny random-weight
model that tests/llama_server.py writes (nothing is downloaded). Its replies are noise, which is the point: the
protocol is real (one choice whatever ``n`` asks, seeds, ``max_tokens`` and ``finish_reason="length"``, usage,
the model listing, requests queued by a server that answers one at a time, timeouts, a server killed
mid-request), and the whole ``@ascend_kernel(generator="llm")`` path must end with the original function's
result and a transcript of what the model said and why it was rejected."""

import threading
import time
from pathlib import Path

import pytest
import torch

from llama_server import MODEL_ALIAS, LlamaServer, write_noise_model
from torch_ascendgen import AscendGenWarning, ascend_kernel
from torch_ascendgen.errors import ModelUnavailable, ScreenRejected
from torch_ascendgen.generators.llm.client import ModelClient, ModelSettings
from torch_ascendgen.generators.llm.screen import extract_source
from torch_ascendgen.generators.llm.transcript import read

pytestmark = pytest.mark.slow

USER = [{"role": "user", "content": "Write an AscendC kernel that adds two float tensors."}]
LONG = 4000  # tokens: a generation of many seconds, long enough to time out or be killed in


@pytest.fixture(scope="session")
def noise_model(tmp_path_factory) -> Path:
    return write_noise_model(tmp_path_factory.mktemp("llama") / "noise.gguf")


@pytest.fixture(scope="session")
def server(noise_model):
    with LlamaServer(noise_model) as running:
        yield running


@pytest.fixture
def doomed_server(noise_model):
    """A server of the test's own, to be killed."""
    with LlamaServer(noise_model) as running:
        yield running


@pytest.fixture
def llm_settings(monkeypatch, tmp_path):
    for name, value in {"SAMPLES": "2", "ROUNDS": "1", "OPT_ROUNDS": "0", "MAX_TOKENS": "48", "TIMEOUT": "60",
                        "RETRIES": "1"}.items():
        monkeypatch.setenv(f"TORCH_ASCENDGEN_LLM_{name}", value)
    monkeypatch.delenv("TORCH_ASCENDGEN_LLM_MODEL", raising=False)
    monkeypatch.setenv("TORCH_ASCENDGEN_CACHE_DIR", str(tmp_path / "machine"))  # no remembered model names


def client(server, **overrides) -> ModelClient:
    settings = {"url": server.url, "timeout_s": 30.0, "retries": 0, "concurrency": 2, "max_tokens": 16}
    return ModelClient(ModelSettings(**{**settings, **overrides}))


def double_add(x, y):  # float64: the built-in generator declines it, so only the model could make a kernel
    return x + y


def float64_inputs() -> tuple[torch.Tensor, torch.Tensor]:
    return torch.randn(8, 64, dtype=torch.float64), torch.randn(8, 64, dtype=torch.float64)


def transcript_records(cache_dir: Path) -> list[dict]:
    (path,) = (cache_dir / "transcripts").rglob("*.jsonl")
    return read(path)


def test_the_model_is_discovered_from_the_listing_and_pinged(server):
    discovering = client(server)  # no model name set
    assert discovering.models() == [MODEL_ALIAS] and discovering.model == MODEL_ALIAS
    result = client(server).ping()
    assert result.reachable and result.models == [MODEL_ALIAS] and result.model == MODEL_ALIAS
    assert result.round_trip_s > 0 and not result.error


def test_one_choice_comes_back_whatever_n_asks(server):
    """llama.cpp's server ignores ``n``: the loop then asks for the other samples one at a time."""
    replies = client(server).complete(USER, n=3)
    assert len(replies) == 1 and replies[0].text


def test_the_same_seed_gives_the_same_noise_and_another_seed_other_noise(server):
    asking = client(server)
    first, again, other = (asking.complete(USER, seed=seed)[0].text for seed in (7, 7, 8))
    assert first == again and first != other


def test_a_small_max_tokens_cuts_the_reply_and_the_screen_says_so(server):
    (reply,) = client(server).complete(USER, max_tokens=5)
    assert reply.finish_reason == "length"
    assert 5 <= reply.completion_tokens <= 8  # a token that ends inside a UTF-8 character is completed
    with pytest.raises(ScreenRejected, match="cut off at the max_tokens limit"):
        extract_source(reply.text, reply.finish_reason)


def test_usage_counts_the_prompt_and_the_completion(server):
    asking = client(server)
    (short,) = asking.complete(USER, max_tokens=4)
    (longer,) = asking.complete([{"role": "user", "content": USER[0]["content"] * 5}], max_tokens=12)
    assert short.prompt_tokens > 10 and longer.prompt_tokens > 2 * short.prompt_tokens  # four more copies
    assert longer.completion_tokens >= 12 > short.completion_tokens
    assert longer.tokens == longer.prompt_tokens + longer.completion_tokens


def test_concurrent_requests_each_get_their_own_seeds_reply(server):
    """Six requests from six threads through a bound of two; the server answers one at a time. Each reply is
    the one its seed gives when asked alone."""
    asking = client(server, concurrency=2)
    alone = {seed: asking.complete(USER, seed=seed)[0].text for seed in range(6)}
    together: dict[int, str] = {}

    def ask(seed: int) -> None:
        together[seed] = asking.complete(USER, seed=seed)[0].text

    threads = [threading.Thread(target=ask, args=(seed,)) for seed in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert together == alone and len(set(alone.values())) == 6


def test_a_timeout_shorter_than_the_generation_is_reported_with_the_fix(server):
    started = time.perf_counter()
    with pytest.raises(ModelUnavailable, match=r"no answer within 0.25 s; raise TORCH_ASCENDGEN_LLM_TIMEOUT") as caught:
        client(server, timeout_s=0.25).complete(USER, max_tokens=1000)
    assert server.url in str(caught.value) and time.perf_counter() - started < 5


def test_a_server_killed_mid_request_is_reported(doomed_server):
    outcome: dict = {}

    def ask() -> None:
        try:
            outcome["replies"] = client(doomed_server, retries=1).complete(USER, max_tokens=LONG)
        except ModelUnavailable as exc:
            outcome["error"] = exc

    asking = threading.Thread(target=ask)
    asking.start()
    time.sleep(0.5)
    assert asking.is_alive()  # still waiting for the generation
    doomed_server.kill()
    asking.join(timeout=30)
    assert "replies" not in outcome
    message = str(outcome["error"])
    assert doomed_server.url in message and "after 2 attempt(s): the connection failed" in message


def test_the_decorator_ends_with_the_original_result_and_a_transcript_of_the_noise(server, llm_settings, tmp_path):
    fast = ascend_kernel(double_add, generator="llm", llm_url=server.url, variants=1, cache_dir=tmp_path,
                         progress=False)
    x, y = float64_inputs()
    with pytest.warns(AscendGenWarning, match=f"{MODEL_ALIAS} produced no kernel") as caught:
        torch.testing.assert_close(fast(x, y), x + y)
    assert fast.kernels() == [] and "runs as the original function" in str(caught[0].message)
    records = transcript_records(tmp_path)
    replies = [r for r in records if r["kind"] == "reply"]
    verdicts = [r for r in records if r["kind"] == "verdict"]
    # two samples (the server sent one choice, so the second was asked for alone), each repaired once
    assert sorted(r["sample"] for r in replies) == [0, 0, 1, 1]
    assert all(r["finish_reason"] == "length" and r["text"] and r["completion_tokens"] >= 48 for r in replies)
    assert len({r["text"] for r in replies}) == 4
    assert len(verdicts) == 4 and all(v["stage"] == "screen" and not v["ok"] for v in verdicts)
    assert all("max_tokens" in v["failure"] for v in verdicts)
    assert sum(r["kind"] == "feedback" for r in records) == 2 and records[-1]["kind"] == "done"


def test_a_server_killed_mid_request_leaves_the_original_running(doomed_server, llm_settings, monkeypatch, tmp_path):
    monkeypatch.setenv("TORCH_ASCENDGEN_LLM_URL", doomed_server.url)
    monkeypatch.setenv("TORCH_ASCENDGEN_LLM_SAMPLES", "1")
    monkeypatch.setenv("TORCH_ASCENDGEN_LLM_MAX_TOKENS", str(LONG))
    killer = threading.Thread(target=kill_once_asked, args=(doomed_server, tmp_path))
    killer.start()
    fast = ascend_kernel(double_add, generator="llm", variants=1, cache_dir=tmp_path, progress=False)
    x, y = float64_inputs()
    with pytest.warns(AscendGenWarning, match="connection failed") as caught:
        torch.testing.assert_close(fast(x, y), x + y)
    killer.join(timeout=30)
    assert fast.kernels() == [] and doomed_server.url in str(caught[0].message)
    kinds = [r["kind"] for r in transcript_records(tmp_path)]
    assert kinds == ["task", "prompt", "error"]


def kill_once_asked(server: LlamaServer, cache_dir: Path, timeout_s: float = 60.0) -> None:
    """Kill ``server`` half a second after the loop's first prompt is in its transcript (the request is out)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        paths = list((cache_dir / "transcripts").rglob("*.jsonl"))
        if paths and any(r["kind"] == "prompt" for r in read(paths[0])):
            time.sleep(0.5)
            break
        time.sleep(0.05)
    server.kill()
