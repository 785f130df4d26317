"""The model client: chat completions from an OpenAI-compatible server (vLLM, SGLang, llama.cpp's server).

It speaks HTTP through the ``openai`` package; vLLM itself is never imported. Every request is
explicit about ``max_tokens``, ``seed``, ``temperature`` and ``n``; 5xx replies, lost connections
and timeouts are retried with exponential backoff (``config.llm_retries()``), and a semaphore per
server bounds the requests in flight across threads (``config.llm_concurrency()``).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import openai

from torch_ascendgen import config
from torch_ascendgen.errors import ModelUnavailable

__all__ = ["ModelClient", "ModelSettings", "ModelUnavailable", "PingResult", "Reply"]

_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.DOTALL)
_BACKOFF_S = 0.5  # the first retry's wait; doubled each time
_T = TypeVar("_T")


@dataclass(frozen=True)
class ModelSettings:
    """Where the model is and how to ask it (config.llm_* unless given)."""

    url: str
    model: str = ""  # "": the first model the server lists
    api_key: str = "EMPTY"
    temperature: float = 0.6
    max_tokens: int = 4096
    seed: int = 0
    timeout_s: float = 120.0
    retries: int = 3
    concurrency: int = 2

    @classmethod
    def from_config(cls, url: str | None = None, model: str | None = None) -> ModelSettings:
        return cls(url=url or config.llm_url(), model=model or config.llm_model(), api_key=config.llm_api_key(),
                   temperature=config.llm_temperature(), max_tokens=config.llm_max_tokens(),
                   seed=config.llm_seed(), timeout_s=config.llm_timeout_s(), retries=config.llm_retries(),
                   concurrency=config.llm_concurrency())


@dataclass(frozen=True)
class Reply:
    """One choice of a completion: the answer without reasoning, the reasoning, why it stopped, tokens."""

    text: str
    reasoning: str
    finish_reason: str  # "stop", "length", ...
    prompt_tokens: int
    completion_tokens: int

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class PingResult:
    """What ``ModelClient.ping`` found: whether the server answers, what it serves, a one-token round trip."""

    reachable: bool
    models: list[str] = field(default_factory=list)
    model: str = ""
    round_trip_s: float = 0.0
    error: str = ""


_semaphores: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_semaphores_lock = threading.Lock()


def _semaphore(url: str, concurrency: int) -> threading.BoundedSemaphore:
    with _semaphores_lock:
        return _semaphores.setdefault((url, concurrency), threading.BoundedSemaphore(concurrency))


class ModelClient:
    """Chat completions from one server. Thread-safe; requests beyond ``concurrency`` wait their turn."""

    def __init__(self, settings: ModelSettings | None = None):
        self.settings = settings or ModelSettings.from_config()
        if not self.settings.url:
            raise ModelUnavailable(f"no model server is configured; set {config.LLM_URL_ENV} to an "
                                   "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 after `vllm serve MODEL`")
        self._openai = openai.OpenAI(base_url=self.settings.url, api_key=self.settings.api_key or "EMPTY",
                                     timeout=self.settings.timeout_s, max_retries=0)
        self._semaphore = _semaphore(self.settings.url, self.settings.concurrency)
        self._model = self.settings.model

    @property
    def model(self) -> str:
        """The model's name: the configured one, or the first the server lists (asked once)."""
        if not self._model:
            models = self.models()
            if not models:
                raise ModelUnavailable(f"the server at {self.settings.url} serves no model; start one with "
                                       f"`vllm serve MODEL` or set {config.LLM_MODEL_ENV}")
            self._model = models[0]
        return self._model

    def models(self) -> list[str]:
        """The names the server lists at /models."""
        return self._request(lambda: [m.id for m in self._openai.models.list().data], "list models")

    def complete(self, messages: list[dict], n: int = 1, max_tokens: int | None = None,
                 seed: int | None = None) -> list[Reply]:
        """Up to ``n`` replies to ``messages`` (a server that ignores ``n`` sends one). Raises
        ModelUnavailable once the retries are spent."""
        model = self.model

        def call():
            return self._openai.chat.completions.create(
                model=model, messages=messages, n=n, temperature=self.settings.temperature,
                max_tokens=max_tokens or self.settings.max_tokens,
                seed=self.settings.seed if seed is None else seed)

        return _replies(self._request(call, "chat completion"))

    def ping(self) -> PingResult:
        """Is the server there, what does it serve, and how long does a one-token completion take? Never raises."""
        try:
            models = self.models()
            model = self._model or (models[0] if models else "")
            if not model:
                return PingResult(True, models, "", 0.0, f"the server at {self.settings.url} serves no model")
            self._model = model
            started = time.perf_counter()
            self.complete([{"role": "user", "content": "Say OK."}], n=1, max_tokens=1)
            return PingResult(True, models, model, time.perf_counter() - started)
        except ModelUnavailable as exc:
            return PingResult(False, error=str(exc))

    def _request(self, call: Callable[[], _T], what: str) -> _T:
        """``call()`` under the semaphore, retried with backoff on 5xx, lost connections and timeouts."""
        attempts = self.settings.retries + 1
        for attempt in range(attempts):
            try:
                with self._semaphore:
                    return call()
            except openai.APIStatusError as exc:
                if exc.status_code < 500 or attempt + 1 == attempts:
                    raise self._unavailable(what, exc, attempt + 1) from None
            except openai.APIConnectionError as exc:  # APITimeoutError included
                if attempt + 1 == attempts:
                    raise self._unavailable(what, exc, attempt + 1) from None
            time.sleep(_BACKOFF_S * 2 ** attempt)
        raise AssertionError("unreachable")

    def _unavailable(self, what: str, exc: Exception, attempts: int) -> ModelUnavailable:
        url = self.settings.url
        if isinstance(exc, openai.APITimeoutError):
            cause = f"no answer within {self.settings.timeout_s:g} s"
            fix = f"raise {config.LLM_TIMEOUT_ENV} or check that the server is not overloaded"
        elif isinstance(exc, openai.APIConnectionError):
            cause = "the connection failed"
            fix = f"start the server (`vllm serve MODEL`) or point {config.LLM_URL_ENV} at it"
        else:
            status = getattr(exc, "status_code", "?")
            cause = f"HTTP {status}: {_short(str(exc))}"
            fix = (f"check {config.LLM_MODEL_ENV} and {config.LLM_API_KEY_ENV}" if status != "?" and status < 500
                   else "check the server's log")
        return ModelUnavailable(f"the model server at {url} failed the {what} after {attempts} attempt(s): "
                                f"{cause}; {fix}")


def _replies(response) -> list[Reply]:
    choices = list(response.choices or [])
    usage = response.usage
    prompt = usage.prompt_tokens if usage and usage.prompt_tokens else 0
    completion = usage.completion_tokens if usage and usage.completion_tokens else 0
    replies = []
    for index, choice in enumerate(choices):
        text, reasoning = split_reasoning(choice.message.content or "", _reasoning_field(choice.message))
        share = completion // max(1, len(choices)) + (completion % max(1, len(choices)) if index == 0 else 0)
        if not usage:  # a server that sends no usage: about four characters a token
            share = (len(text) + len(reasoning)) // 4
        replies.append(Reply(text, reasoning, choice.finish_reason or "stop", prompt if index == 0 else 0, share))
    return replies


def _reasoning_field(message) -> str:
    extra = getattr(message, "model_extra", None) or {}
    for name in ("reasoning_content", "reasoning"):
        value = getattr(message, name, None) or extra.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def split_reasoning(content: str, reasoning: str = "") -> tuple[str, str]:
    """``content`` without its ``<think>…</think>`` blocks, and the reasoning (the field's, then the blocks')."""
    blocks = [m.group(1).strip() for m in _THINK.finditer(content)]
    text = _THINK.sub("", content).strip()
    return text, "\n\n".join(part for part in [reasoning.strip(), *blocks] if part)


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + " ..."

