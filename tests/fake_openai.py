"""A scripted OpenAI-compatible server for tests: real HTTP on 127.0.0.1, no model behind it.

    script = [
        reply("```cpp\\n...\\n```", reasoning="think first"),        # a dict entry, see below
        {"status": 500},                                              # an error body (the client retries)
        {"choices": [{"content": "late"}], "delay": 5.0},             # slower than the client's timeout
        lambda request: reply(kernel_for(request["messages"])),       # decided from the request
    ]
    with FakeOpenAIServer(script) as server:
        client = openai.OpenAI(base_url=server.url, api_key="EMPTY")
        ...
        assert server.requests[0]["messages"][-1]["content"] == ...

Endpoints: GET /v1/models lists the one model; POST /v1/chat/completions consumes the next script
entry (one per request, in order, including requests that get an error status). An entry is a dict

    {"choices": [{"content": str, "reasoning": str | None, "finish_reason": "stop" | "length"}],
     "status": 200, "delay": 0.0, "usage": {...} (optional, computed when absent),
     "error": "message for a non-200 status" (optional)}

or a callable(request_json) -> entry, or a str (shorthand for one choice with that content). The
reply carries exactly the scripted choices, whatever `n` the request asked for. `reasoning` becomes
the message's `reasoning_content` field (as vLLM's reasoning parsers send it); it is left out when
None. A request naming a model other than the server's gets a 404 without consuming an entry. When
the script runs out, `default` answers (if given), else a 500 saying the script is exhausted.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Union

Entry = Union[dict, str, Callable[[dict], Union[dict, str]]]

__all__ = ["FakeOpenAIServer", "reply", "repeat", "Entry"]


def reply(content: str, reasoning: str | None = None, finish_reason: str = "stop",
          delay: float = 0.0, status: int = 200) -> dict:
    """A one-choice script entry."""
    return {"choices": [{"content": content, "reasoning": reasoning, "finish_reason": finish_reason}],
            "status": status, "delay": delay}


def _word_count(text: str | None) -> int:
    return len(text.split()) if text else 0


def _usage(request: dict, choices: list[dict]) -> dict:
    """Token counts the way tests can predict them: one token per whitespace-separated word."""
    prompt = sum(_word_count(m.get("content") if isinstance(m.get("content"), str) else json.dumps(m.get("content")))
                 for m in request.get("messages", []))
    completion = sum(_word_count(c.get("content")) + _word_count(c.get("reasoning")) for c in choices)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _choice_json(index: int, choice: dict) -> dict:
    message = {"role": "assistant", "content": choice.get("content", "")}
    if choice.get("reasoning") is not None:
        message["reasoning_content"] = choice["reasoning"]
    return {"index": index, "message": message, "logprobs": None,
            "finish_reason": choice.get("finish_reason", "stop")}


def _error_json(message: str, status: int) -> dict:
    kind = "server_error" if status >= 500 else "invalid_request_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": status},
            "object": "error", "message": message, "code": status}


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # tests stay quiet
        pass

    def _send(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout): fine
            pass

    def do_GET(self) -> None:
        fake = self.server.fake
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            fake._count_models_request()
            self._send(200, {"object": "list", "data": [
                {"id": fake.model, "object": "model", "created": fake.created, "owned_by": "fake-openai"}]})
        else:
            self._send(404, _error_json(f"no route GET {self.path}", 404))

    def do_POST(self) -> None:
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._send(404, _error_json(f"no route POST {self.path}", 404))
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            request = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError as e:
            self._send(400, _error_json(f"request body is not JSON: {e}", 400))
            return
        status, body = self.server.fake._answer(request, {k.lower(): v for k, v in self.headers.items()})
        self._send(status, body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a handler sleeping out a scripted delay never blocks close()
    fake: FakeOpenAIServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # dropped connections (client timeouts) are expected, not test noise


class FakeOpenAIServer:
    """Serves `script` over HTTP at `.url` ("http://127.0.0.1:<port>/v1"); see the module docstring.

    `.requests` holds every chat-completion request body received (JSON dicts, in arrival order),
    `.headers` the matching request headers (lower-case names), `.models_requests` the number of GET /v1/models.
    """

    def __init__(self, script: Iterable[Entry] = (), model: str = "fake-kernel-model",
                 default: Entry | None = None):
        self.model = model
        self.created = int(time.time())
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.models_requests = 0
        self._script = iter(script)
        self._default = default
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._served = 0
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._port = 0  # kept after close() so tests can still name the URL

    # -- lifecycle --------------------------------------------------------------------------
    def start(self) -> FakeOpenAIServer:
        if self._server is not None:
            return self
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        self._port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._server is None:
            return
        self._closing.set()  # wakes handlers sleeping out a delay
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
        self._server = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def port(self) -> int:
        if not self._port:
            raise RuntimeError("FakeOpenAIServer was never started: use it as a context manager or call start()")
        return self._port

    @property
    def url(self) -> str:
        """The base URL an OpenAI client takes (ends in /v1)."""
        return f"http://127.0.0.1:{self.port}/v1"

    # -- answering --------------------------------------------------------------------------
    def _count_models_request(self) -> None:
        with self._lock:
            self.models_requests += 1

    def _next_entry(self, request: dict, headers: dict) -> Entry | None:
        with self._lock:
            self.requests.append(request)
            self.headers.append(headers)
            if request.get("model") not in (None, self.model):
                return None
            self._served += 1
            return next(self._script, self._default)

    def _answer(self, request: dict, headers: dict) -> tuple[int, dict]:
        entry = self._next_entry(request, headers)
        if entry is None and request.get("model") not in (None, self.model):
            return 404, _error_json(f"The model `{request.get('model')}` does not exist.", 404)
        if entry is None:
            return 500, _error_json(f"FakeOpenAIServer: script exhausted after {self._served - 1} replies", 500)
        if callable(entry):
            entry = entry(request)
        if isinstance(entry, str):
            entry = reply(entry)
        if entry.get("delay"):
            self._closing.wait(float(entry["delay"]))
        return self._render(request, entry)

    def _render(self, request: dict, entry: dict) -> tuple[int, dict]:
        status = int(entry.get("status", 200))
        if status != 200:
            return status, _error_json(entry.get("error", f"scripted error status {status}"), status)
        choices = entry.get("choices") or []
        return 200, {
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [_choice_json(i, c) for i, c in enumerate(choices)],
            "usage": entry.get("usage") or _usage(request, choices),
        }


def repeat(entry: Entry) -> Iterable[Entry]:
    """An endless script: every request gets `entry` (a callable is called per request)."""
    return itertools.repeat(entry)

