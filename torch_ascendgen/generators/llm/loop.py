"""The model generator: samples kernels from a model and repairs them with the exact failure.

    first_messages ─► n replies ─► screen ─► evaluate (build, run, verify, time: the pipeline's search)
                         ▲                        │
                         └── repair_message ◄─────┤ failed: the screen reason, compiler errors,
                         └── optimise_message ◄───┘ passed:  the simulator's diagnostic or mismatch report
                                                             the best kernel so far to beat

Each sample is one conversation. A failing sample gets up to ``config.llm_rounds()`` repairs, a
correct one ``config.llm_opt_rounds()`` attempts to beat the current best (the built-in kernel
when there is one). Budgets in tokens and wall time end the loop early. Every exchange goes to
the task's transcript.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from torch_ascendgen import config
from torch_ascendgen.capture import KernelTask
from torch_ascendgen.errors import ModelUnavailable, ScreenRejected
from torch_ascendgen.generators.llm.client import ModelClient, ModelSettings, Reply
from torch_ascendgen.generators.llm.formats import locate, parse_reply, reply_format, screen_reply
from torch_ascendgen.generators.llm.prompts import PROMPT_VERSION, first_messages, optimise_message, repair_message
from torch_ascendgen.generators.llm.transcript import Transcript
from torch_ascendgen.records import Candidate, CandidateRecord, FailureKind, Options
from torch_ascendgen.targets.soc import SocProfile, get_soc

Evaluate = Callable[[Sequence[Candidate]], list[CandidateRecord]]


@dataclass(frozen=True)
class ModelOutcome:
    """What the model produced for a task: every candidate's record with its provenance (aligned)."""

    model: str
    records: tuple[CandidateRecord, ...]
    provenance: tuple[dict, ...]  # per record: model, prompt_version, sample, round, tokens
    tokens: int
    transcript: Path
    stopped: str = ""  # why the loop ended early ("": it ran its rounds)
    server_failed: bool = False  # the server stopped answering during the loop

    @property
    def winner(self) -> tuple[CandidateRecord, dict] | None:
        passing = [(r, p) for r, p in zip(self.records, self.provenance) if r.ok]
        return min(passing, key=lambda rp: rp[0].rank()) if passing else None


@dataclass
class _Sample:
    """One conversation with the model."""

    index: int
    messages: list[dict]
    reply: Reply | None = None
    round: int = 0
    tokens: int = 0
    repairs_left: int = 0
    optimisations_left: int = 0
    names: dict[str, str] = field(default_factory=dict)  # the latest reply's parts: bundle path -> the model's name
    format: str = ""  # the format its latest reply was in (formats.reply_format; "": none read yet)


@dataclass
class _Attempt:
    """A sample's latest reply, judged: its candidate and record, or the screen's reason."""

    sample: _Sample
    candidate: Candidate | None = None
    record: CandidateRecord | None = None
    rejected: str = ""


def generate_with_model(task: KernelTask, reference: Callable, options: Options, soc: str,
                        baseline: CandidateRecord | None, evaluate: Evaluate,
                        client: ModelClient | None = None) -> ModelOutcome:
    """Ask the model for kernels for ``task`` and repair them until they pass or the budgets run out.

    ``evaluate(candidates)`` is the pipeline's search over them. ``baseline`` (the built-in winner, if
    any) is the kernel to beat. Raises ModelUnavailable only when the model never answered.
    """
    client = client or ModelClient(ModelSettings.from_config(options.llm_url, options.llm_model))
    transcript = Transcript(task, Path(options.cache_dir) / "transcripts" if options.cache_dir else None)
    loop = _Loop(task, client, get_soc(soc), baseline, evaluate, transcript)
    return loop.run()


@dataclass
class _Loop:
    task: KernelTask
    client: ModelClient
    soc: SocProfile
    baseline: CandidateRecord | None
    evaluate: Evaluate
    transcript: Transcript
    records: list[CandidateRecord] = field(default_factory=list)
    provenance: list[dict] = field(default_factory=list)
    tokens: int = 0
    stopped: str = ""
    server_failed: bool = False
    deadline: float = 0.0
    _tokens_lock: threading.Lock = field(default_factory=threading.Lock)  # requests run on several threads
    format: str = field(default_factory=config.llm_format)  # the reply format the prompt asks for

    def run(self) -> ModelOutcome:
        model = self.client.model
        self.deadline = time.monotonic() + config.llm_wall_budget_s()
        samples = self._first_samples()
        while samples:
            samples = self._follow_up(self._judge(samples))
            if not samples or not self._within_budget():
                break
            samples = self._ask_all(samples)
        self.transcript.record("done", tokens=self.tokens, stopped=self.stopped,
                               passed=sum(r.ok for r in self.records), candidates=len(self.records))
        return ModelOutcome(model, tuple(self.records), tuple(self.provenance), self.tokens, self.transcript.path,
                            self.stopped, self.server_failed)

    # -- asking
    def _first_samples(self) -> list[_Sample]:
        example = example_source(self.task) if self.format == "contract" else ""
        messages = first_messages(self.task, self.soc, example, fmt=self.format)
        self.transcript.record("prompt", model=self.client.model, prompt_version=PROMPT_VERSION, format=self.format,
                               messages=messages)
        replies = self._first_replies(messages, config.llm_samples())
        samples = []
        for index, reply in enumerate(replies):
            sample = _Sample(index, list(messages), repairs_left=config.llm_rounds(),
                             optimisations_left=config.llm_opt_rounds())
            self._attach(sample, reply)
            samples.append(sample)
        return samples

    def _first_replies(self, messages: list[dict], wanted: int) -> list[Reply]:
        """``wanted`` first replies. A server that ignores ``n`` (llama.cpp's) sends fewer: the rest are asked
        for one at a time, each with its own seed (the same seed would repeat the same reply)."""
        replies = self._complete(messages, wanted, sample=-1)  # ModelUnavailable: the model never answered
        missing = range(len(replies), wanted)
        if not missing:
            return replies[:wanted]
        seed = config.llm_seed()

        def one_more(index: int) -> list[Reply]:
            try:
                return self._complete(messages, 1, index, seed=seed + index)[:1]
            except ModelUnavailable:
                return []  # recorded in the transcript; the samples already here go on

        with ThreadPoolExecutor(max_workers=len(missing)) as pool:
            return replies + [r for more in pool.map(one_more, missing) for r in more]

    def _ask_all(self, samples: list[_Sample]) -> list[_Sample]:
        """The next reply of each sample (requests in parallel; the client bounds how many at once)."""
        with ThreadPoolExecutor(max_workers=len(samples)) as pool:
            results = list(pool.map(self._ask_one, samples))
        return [sample for sample, ok in zip(samples, results) if ok]

    def _ask_one(self, sample: _Sample) -> bool:
        try:
            # each sample its own seed, as its first reply had: samples whose conversations read alike stay apart
            (reply, *_) = self._complete(sample.messages, 1, sample.index, seed=config.llm_seed() + sample.index)
        except ModelUnavailable as exc:
            self.stopped, self.server_failed = str(exc), True
            return False
        sample.round += 1
        self._attach(sample, reply)
        return True

    def _complete(self, messages: list[dict], n: int, sample: int, seed: int | None = None) -> list[Reply]:
        started = time.perf_counter()
        try:
            replies = self.client.complete(messages, n, seed=seed)
        except ModelUnavailable as exc:
            self.transcript.record("error", sample=sample, error=str(exc), seconds=time.perf_counter() - started)
            raise
        if not replies:
            raise ModelUnavailable(f"the model server at {self.client.settings.url} sent a reply with no choices")
        seconds = time.perf_counter() - started
        with self._tokens_lock:
            self.tokens += sum(reply.tokens for reply in replies)
        for offset, reply in enumerate(replies):
            self.transcript.record("reply", sample=sample if sample >= 0 else offset, text=reply.text,
                                   reasoning=reply.reasoning, finish_reason=reply.finish_reason,
                                   prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
                                   seconds=seconds)
        return replies

    def _attach(self, sample: _Sample, reply: Reply) -> None:
        sample.reply = reply
        sample.tokens += reply.tokens
        sample.messages.append({"role": "assistant", "content": reply.text})

    # -- judging
    def _judge(self, samples: list[_Sample]) -> list[_Attempt]:
        """Screen every sample's reply; evaluate the survivors together (one search)."""
        attempts = [self._screened(sample) for sample in samples]
        built = [a for a in attempts if a.candidate is not None]
        if built:
            for attempt, record in zip(built, self.evaluate([a.candidate for a in built])):
                attempt.record = record
                self._keep(attempt)
        return attempts

    def _screened(self, sample: _Sample) -> _Attempt:
        try:
            parsed = parse_reply(sample.reply.text, sample.reply.finish_reason, self.format)
            screen_reply(parsed)
        except ScreenRejected as exc:
            self.transcript.record("verdict", sample=sample.index, round=sample.round, stage="screen",
                                   failure_kind=FailureKind.SCREEN.value, ok=False, failure=exc.reason)
            return _Attempt(sample, rejected=exc.reason)
        sample.names, sample.format = parsed.names, reply_format(parsed)
        model = self.client.model
        candidate = Candidate(parsed.source, f"llm:{model}", {"sample": sample.index, "round": sample.round},
                              f"{model}, sample {sample.index}, round {sample.round}")
        return _Attempt(sample, candidate)

    def _keep(self, attempt: _Attempt) -> None:
        record, sample = attempt.record, attempt.sample
        self.records.append(record)
        self.provenance.append({"model": self.client.model, "prompt_version": PROMPT_VERSION,
                                "sample": sample.index, "round": sample.round, "tokens": sample.tokens})
        self.transcript.record("verdict", sample=sample.index, round=sample.round, stage=_stage(record),
                               failure_kind=record.failure_kind.value if record.failure_kind else None,
                               ok=record.ok, failure=record.failure, label=record.candidate.label,
                               time_ns=record.measurement.time_ns if record.measurement else None,
                               seconds=record.seconds)

    # -- what next
    def _follow_up(self, attempts: list[_Attempt]) -> list[_Sample]:
        """The samples that go on, each with its feedback message appended."""
        going_on = []
        for attempt in attempts:
            message = self._feedback(attempt)
            if message is not None:
                attempt.sample.messages.append(message)
                self.transcript.record("feedback", sample=attempt.sample.index, round=attempt.sample.round,
                                       content=message["content"])
                going_on.append(attempt.sample)
        return going_on

    def _feedback(self, attempt: _Attempt) -> dict | None:
        sample = attempt.sample
        ask = sample.format or self.format  # feedback asks again in the format the model wrote in
        if attempt.record is not None and attempt.record.failed_shapes and sample.repairs_left > 0:
            sample.repairs_left -= 1
            return repair_message(locate(_partial_failure(attempt.record), sample.names), "verify", ask)
        if attempt.record is not None and attempt.record.ok:
            if sample.optimisations_left <= 0:
                return None
            sample.optimisations_left -= 1
            best = self._best()
            return optimise_message(best.candidate.source, best.measurement.time_ns, self._bound(), ask)
        if sample.repairs_left <= 0:
            return None
        sample.repairs_left -= 1
        if attempt.record is None:
            return repair_message(attempt.rejected, "screen", ask)
        return repair_message(locate(attempt.record.failure, sample.names), _stage(attempt.record), ask)

    def _best(self) -> CandidateRecord:
        passing = [r for r in self.records if r.ok] + ([self.baseline] if self.baseline and self.baseline.ok else [])
        return min(passing, key=CandidateRecord.rank)

    def _bound(self) -> str:
        moved = traced_bytes(self.task)
        floor_ns = moved / self.soc.hbm_gb_per_s
        return (f"it moves about {moved:,} bytes of inputs and outputs at the traced shapes; at the SoC's "
                f"{self.soc.hbm_gb_per_s:g} GB/s that alone takes at least {floor_ns:,.0f} ns")

    def _within_budget(self) -> bool:
        if self.tokens >= config.llm_token_budget():
            self.stopped = f"the token budget ({config.llm_token_budget()}, {config.LLM_TOKEN_BUDGET_ENV}) is spent"
        elif time.monotonic() >= self.deadline:
            self.stopped = (f"the wall-time budget ({config.llm_wall_budget_s():g} s, {config.LLM_WALL_BUDGET_ENV}) "
                            "is spent")
        return not self.stopped


def example_source(task: KernelTask) -> str:
    """One kernel of the task's category for the prompt: a seed kernel, else the built-in generator's."""
    from torch_ascendgen.cache import SeedStore
    from torch_ascendgen.errors import UnsupportedFunction
    from torch_ascendgen.generators.builtin.generator import generate_builtin as generate

    seeds = SeedStore().all(task.category)
    if seeds:
        return seeds[0].source
    try:
        return generate(task, 1)[0].source
    except UnsupportedFunction:
        fallback = SeedStore().all()
        return fallback[0].source if fallback else ""


# The repair message's stage (prompts.repair_message) for each way a candidate fails.
_STAGES = {FailureKind.SCREEN: "screen", FailureKind.BUILD: "build", FailureKind.AUDIT: "simulator",
           FailureKind.DECLINED: "simulator", FailureKind.RUN: "simulator", FailureKind.CRASH: "simulator",
           FailureKind.TIMEOUT: "simulator", FailureKind.BUDGET: "simulator", FailureKind.MODIFIED_INPUT: "verify",
           FailureKind.WRONG: "verify"}


def _stage(record: CandidateRecord) -> str:
    """Where a record failed: "build", "simulator" or "verify" (from its failure kind; "verify" when it passed)."""
    return _STAGES[record.failure_kind] if record.failure_kind is not None else "verify"


def _partial_failure(record: CandidateRecord) -> str:
    """What a kernel right at some shapes and wrong at others is told: where it passed, where not and why."""
    passed = "; ".join(str([list(s) for s in shapes]) for shapes in dict.fromkeys(record.verdict.passed_shapes))
    failed = "\n".join(f"- at input shapes {[list(s) for s in shapes]}: {reason}"
                        for shapes, reason in record.failed_shapes)
    return (f"It is correct at input shapes {passed}, so it is kept for those shapes only. It fails at these "
            f"shapes, where the original function runs instead:\n{failed}\nSizes need not divide evenly by the "
            "block count, the tile or the buffer count: handle the last block's and the last tile's tails.")


def traced_bytes(task: KernelTask) -> int:
    """Bytes of the inputs and outputs at the traced shapes (output symbols bound from the inputs)."""
    binding: dict = {}
    for spec, shape in zip(task.inputs, task.traced_shapes):
        binding.update((dim, size) for dim, size in zip(spec.shape, shape) if isinstance(dim, str))
    total = 0
    for spec, shape in [*zip(task.inputs, task.traced_shapes),
                        *((s, [binding.get(d, 1) if isinstance(d, str) else d for d in s.shape])
                          for s in task.outputs)]:
        count = 1
        for size in shape:
            count *= int(size)
        total += count * spec.dtype.itemsize
    return total
