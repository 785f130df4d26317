"""The scripted OpenAI-compatible server behaves like one: checked with the `openai` package and urllib."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest

from fake_openai import FakeOpenAIServer, repeat, reply

openai = pytest.importorskip("openai")

MODEL = "fake-kernel-model"
MESSAGES = [{"role": "system", "content": "write kernels"}, {"role": "user", "content": "relu of x please"}]


def _client(server: FakeOpenAIServer, **kwargs) -> openai.OpenAI:
    kwargs.setdefault("max_retries", 0)
    return openai.OpenAI(base_url=server.url, api_key="EMPTY", **kwargs)


def _chat(client, **kwargs):
    return client.chat.completions.create(model=MODEL, messages=MESSAGES, **kwargs)


def _post(url: str, body: dict, timeout: float = 10) -> tuple[int, dict]:
    request = urllib.request.Request(url + "/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def test_models_endpoint_lists_the_model():
    with FakeOpenAIServer([], model="my-model") as server:
        assert server.url.startswith("http://127.0.0.1:") and server.url.endswith("/v1")
        assert [m.id for m in _client(server).models.list().data] == ["my-model"]
        with urllib.request.urlopen(server.url + "/models", timeout=10) as response:
            assert json.load(response)["data"][0]["id"] == "my-model"
        assert server.models_requests == 2


def test_reply_in_openai_format_with_reasoning_and_usage():
    with FakeOpenAIServer([reply("```cpp\nint x;\n```", reasoning="think about tiles")]) as server:
        completion = _chat(_client(server), max_tokens=64, temperature=0.6, seed=0)
    choice = completion.choices[0]
    assert choice.message.content == "```cpp\nint x;\n```"
    assert choice.message.reasoning_content == "think about tiles"
    assert choice.finish_reason == "stop"
    assert completion.model == MODEL
    assert completion.usage.prompt_tokens == 6  # one token per word of the messages
    assert completion.usage.completion_tokens == 4 + 3
    assert completion.usage.total_tokens == 13


def test_requests_are_recorded_in_order():
    with FakeOpenAIServer(["first", "second"]) as server:
        client = _client(server)
        _chat(client, max_tokens=7, n=1, seed=3)
        client.chat.completions.create(model=MODEL, messages=MESSAGES + [{"role": "user", "content": "fix it"}],
                                       max_tokens=8)
    assert [r["max_tokens"] for r in server.requests] == [7, 8]
    assert server.requests[0]["seed"] == 3 and server.requests[0]["messages"] == MESSAGES
    assert server.requests[1]["messages"][-1]["content"] == "fix it"
    assert server.headers[0]["authorization"] == "Bearer EMPTY"


def test_entries_are_consumed_in_order_and_several_choices():
    entry = {"choices": [{"content": "a"}, {"content": "b", "finish_reason": "length"}]}
    with FakeOpenAIServer(["one", entry, "three"]) as server:
        client = _client(server)
        replies = [_chat(client, n=2).choices for _ in range(3)]
    assert [[c.message.content for c in choices] for choices in replies] == [["one"], ["a", "b"], ["three"]]
    assert [c.finish_reason for c in replies[1]] == ["stop", "length"]


def test_length_finish_reason_and_no_reasoning_field():
    with FakeOpenAIServer([reply("```cpp\nint x", finish_reason="length")]) as server:
        status, body = _post(server.url, {"model": MODEL, "messages": MESSAGES})
    assert status == 200
    choice = body["choices"][0]
    assert choice["finish_reason"] == "length" and "reasoning_content" not in choice["message"]
    assert set(body) >= {"id", "object", "created", "model", "choices", "usage"}


def test_callable_entries_see_the_request():
    def echo(request: dict) -> dict:
        return reply(f"you said {request['messages'][-1]['content']}")

    with FakeOpenAIServer([echo, lambda request: "plain"]) as server:
        client = _client(server)
        assert _chat(client).choices[0].message.content == "you said relu of x please"
        assert _chat(client).choices[0].message.content == "plain"


def test_status_500_is_an_error_body_and_the_client_retries():
    with FakeOpenAIServer([{"status": 500, "error": "engine died"}, "after retry"]) as server:
        status, body = _post(server.url, {"model": MODEL, "messages": MESSAGES})
        assert status == 500 and body["error"]["message"] == "engine died"
    with FakeOpenAIServer([{"status": 500}, "after retry"]) as server:
        with pytest.raises(openai.InternalServerError):
            _chat(_client(server))
        assert _chat(_client(server)).choices[0].message.content == "after retry"
    with FakeOpenAIServer([{"status": 500}, "after retry"]) as server:
        assert _chat(_client(server, max_retries=1)).choices[0].message.content == "after retry"
        assert len(server.requests) == 2


def test_delay_longer_than_the_timeout_is_a_timeout():
    with FakeOpenAIServer([reply("late", delay=5.0), "on time"]) as server:
        client = _client(server, timeout=0.3)
        started = time.monotonic()
        with pytest.raises(openai.APITimeoutError):
            _chat(client)
        assert _chat(client).choices[0].message.content == "on time"
    assert time.monotonic() - started < 4  # closing does not wait for the sleeping handler


def test_exhausted_script_and_default():
    with FakeOpenAIServer(["only"]) as server:
        assert _post(server.url, {"model": MODEL, "messages": MESSAGES})[0] == 200
        status, body = _post(server.url, {"model": MODEL, "messages": MESSAGES})
        assert status == 500 and "exhausted" in body["error"]["message"]
    with FakeOpenAIServer([], default="always") as server:
        assert all(_chat(_client(server)).choices[0].message.content == "always" for _ in range(3))
    with FakeOpenAIServer(repeat(lambda request: "again")) as server:
        assert _chat(_client(server)).choices[0].message.content == "again"


def test_unknown_model_is_404_without_consuming():
    with FakeOpenAIServer(["kept"]) as server:
        client = _client(server)
        with pytest.raises(openai.NotFoundError):
            client.chat.completions.create(model="other", messages=MESSAGES)
        assert _chat(client).choices[0].message.content == "kept"


def test_concurrent_requests_are_served_in_parallel():
    import concurrent.futures

    with FakeOpenAIServer(repeat(reply("x", delay=0.5))) as server:
        client = _client(server)
        started = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda _: _chat(client), range(4)))
        assert time.monotonic() - started < 1.5
        assert len(server.requests) == 4
