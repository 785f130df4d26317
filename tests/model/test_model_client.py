"""The model client against the fake OpenAI-compatible server (real HTTP on loopback)."""

import threading
import time

import pytest

from fake_openai import FakeOpenAIServer, reply
from torch_ascendgen.errors import ModelUnavailable
from torch_ascendgen.generators.llm.client import ModelClient, ModelSettings, split_reasoning

USER = [{"role": "user", "content": "write a kernel"}]


def client(server, **overrides) -> ModelClient:
    settings = dict(url=server.url, timeout_s=5.0, retries=2, concurrency=2)
    settings.update(overrides)
    return ModelClient(ModelSettings(**settings))


def test_a_reply_keeps_reasoning_apart_from_the_text():
    content = "<think>tile it</think>Here:\n```cpp\nint a;\n```"
    with FakeOpenAIServer([reply(content, reasoning="plan first")]) as server:
        (answer,) = client(server).complete(USER, n=1)
    assert answer.text == "Here:\n```cpp\nint a;\n```"
    assert answer.reasoning == "plan first\n\ntile it"
    assert answer.finish_reason == "stop" and answer.prompt_tokens == 3 and answer.completion_tokens > 0


def test_the_request_is_explicit_and_names_the_listed_model():
    two = {"choices": [{"content": "a"}, {"content": "b", "finish_reason": "length"}]}
    with FakeOpenAIServer([two]) as server:
        answers = client(server, temperature=0.3, max_tokens=77, seed=5).complete(USER, n=2)
    (request,) = server.requests
    assert request["model"] == "fake-kernel-model" and request["n"] == 2 and request["max_tokens"] == 77
    assert request["seed"] == 5 and request["temperature"] == 0.3 and request["messages"] == USER
    assert [a.text for a in answers] == ["a", "b"] and answers[1].finish_reason == "length"
    assert sum(a.tokens for a in answers) == 3 + 2


def test_settings_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("TORCH_ASCENDGEN_LLM_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("TORCH_ASCENDGEN_LLM_MAX_TOKENS", "123")
    monkeypatch.setenv("TORCH_ASCENDGEN_LLM_MODEL", "m")
    settings = ModelSettings.from_config()
    assert (settings.url, settings.max_tokens, settings.model) == ("http://127.0.0.1:9/v1", 123, "m")
    assert ModelSettings.from_config(url="http://x/v1").url == "http://x/v1"


def test_no_url_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("TORCH_ASCENDGEN_LLM_URL", raising=False)
    with pytest.raises(ModelUnavailable, match="TORCH_ASCENDGEN_LLM_URL"):
        ModelClient()


def test_5xx_and_timeouts_are_retried_then_reported():
    with FakeOpenAIServer([{"status": 500}, reply("late", delay=2.0), reply("ok")]) as server:
        (answer,) = client(server, timeout_s=0.5).complete(USER)
    assert answer.text == "ok" and len(server.requests) == 3
    with FakeOpenAIServer([{"status": 502}] * 3) as server:
        with pytest.raises(ModelUnavailable, match=r"after 3 attempt\(s\): HTTP 502") as caught:
            client(server).complete(USER)
    assert server.url in str(caught.value)


def test_client_errors_are_not_retried():
    with FakeOpenAIServer([{"status": 400, "error": "bad"}]) as server:
        with pytest.raises(ModelUnavailable, match="HTTP 400"):
            client(server).complete(USER)
        assert len(server.requests) == 1
        with pytest.raises(ModelUnavailable, match="404"):
            client(server, model="other-model").complete(USER)


def test_a_server_that_is_not_there_names_the_fix():
    with FakeOpenAIServer() as server:
        url = server.url
    with pytest.raises(ModelUnavailable, match="vllm serve") as caught:
        ModelClient(ModelSettings(url=url, retries=0, timeout_s=1.0)).complete(USER)
    assert url in str(caught.value)


def test_concurrent_requests_are_bounded_by_the_setting():
    in_flight, peak, lock = [0], [0], threading.Lock()

    def slow(request):
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        time.sleep(0.3)
        with lock:
            in_flight[0] -= 1
        return reply("ok")

    with FakeOpenAIServer(default=slow) as server:
        shared = client(server, concurrency=2)
        threads = [threading.Thread(target=shared.complete, args=(USER,)) for _ in range(5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert len(server.requests) == 5 and peak[0] == 2


def test_ping_reports_the_model_and_a_round_trip():
    with FakeOpenAIServer([reply("O")]) as server:
        result = client(server).ping()
    assert result.reachable and result.model == "fake-kernel-model" and result.models == ["fake-kernel-model"]
    assert result.round_trip_s > 0 and not result.error and server.requests[0]["max_tokens"] == 1


def test_ping_of_a_missing_server_says_why():
    with FakeOpenAIServer() as server:
        url = server.url
    result = ModelClient(ModelSettings(url=url, retries=0, timeout_s=1.0)).ping()
    assert not result.reachable and url in result.error


def test_think_blocks_are_stripped_even_when_unterminated():
    assert split_reasoning("<think>a</think>x<think>b") == ("x", "a\n\nb")
