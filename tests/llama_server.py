"""A real OpenAI-compatible server for tests and benchmarks: llama.cpp's (``python -m llama_cpp.server``,
from the ``llama-cpp-python[server]`` package) serving a tiny random-weight model written here with ``gguf``.

    model = write_noise_model(tmp_dir / "noise.gguf")
    with LlamaServer(model) as server:            # waits until GET /v1/models answers
        client = openai.OpenAI(base_url=server.url, api_key="EMPTY")
        ...
        server.kill()                              # SIGKILL, e.g. while a request is in flight

The model is a llama-architecture network (2 layers, 64-wide) with a SentencePiece-style vocabulary: the
control tokens, the 256 byte tokens (so any text tokenizes), printable ASCII and a few hundred common
words of English and C++ (so a prompt is a few thousand tokens, not one per character), and a chat
template. Its replies are noise that depends on the whole conversation. The end-of-sequence token can never
win: every hidden state carries a large constant component that no block writes to and that the output row
of ``</s>`` points away from, so a generation always runs to ``max_tokens`` (``finish_reason == "length"``).
Nothing is downloaded.
"""

from __future__ import annotations

import ctypes
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import gguf
import numpy as np

__all__ = ["LlamaServer", "MODEL_ALIAS", "write_noise_model"]

MODEL_ALIAS = "tiny-noise-llama"
_EMBEDDING = 64
_HEADS = 4
_LAYERS = 2
_FEED_FORWARD = 128
_CONTEXT = 16384  # our kernel prompts are a few thousand tokens; repairs add more
_CHAT_TEMPLATE = ("{% for message in messages %}<|{{ message['role'] }}|>\n{{ message['content'] }}</s>\n"
                  "{% endfor %}{% if add_generation_prompt %}<|assistant|>\n{% endif %}")
_WORDS = """
the a an of to in and or is are be it for on with as by at from that this which not no if then else when
each one two all any only must your you kernel tile tiles tiling data input inputs output outputs shape
shapes size sizes length block blocks core cores buffer buffers queue queues local global memory copy
vector cube reduce sum max min mean row rows column columns float half int bytes element elements
count offset total loop first last next reply code source function return result results error errors
line file files compile build run verify wrong expected got fails failed passed test value values type
template typename class struct public private static const constexpr inline void bool char unsigned
signed uint8_t uint16_t uint32_t uint64_t int32_t int64_t size_t auto include define namespace using
sizeof nullptr true false while for do break continue switch case default extern operator
AscendC LocalTensor GlobalTensor TPipe TQue TBuf DataCopy DataCopyPad Add Sub Mul Div Exp Ln Relu Abs
Duplicate Muls Adds Cast ReduceSum ReduceMax SetGlobalBuffer InitBuffer AllocTensor FreeTensor EnQue
DeQue GetBlockIdx GetBlockNum Init Process CopyIn Compute CopyOut TilingData GET_TILING_DATA GM_ADDR
__aicore__ __global__ tiling_data aten Tensor torch
""".split()


def write_noise_model(path: Path, seed: int = 0) -> Path:
    """A tiny llama model with random weights at ``path`` (GGUF, float32, about 1 MB)."""
    rng = np.random.default_rng(seed)
    tokens, scores, types = _vocabulary()
    writer = gguf.GGUFWriter(str(path), "llama")
    _write_hyperparameters(writer)
    _write_tokenizer(writer, tokens, scores, types)
    for name, tensor in _weights(rng, len(tokens)).items():
        writer.add_tensor(name, tensor)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def _write_hyperparameters(writer: gguf.GGUFWriter) -> None:
    writer.add_name(MODEL_ALIAS)
    writer.add_context_length(_CONTEXT)
    writer.add_embedding_length(_EMBEDDING)
    writer.add_block_count(_LAYERS)
    writer.add_feed_forward_length(_FEED_FORWARD)
    writer.add_head_count(_HEADS)
    writer.add_head_count_kv(_HEADS)
    writer.add_rope_dimension_count(_EMBEDDING // _HEADS)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)


def _write_tokenizer(writer: gguf.GGUFWriter, tokens: list[str], scores: list[float], types: list[int]) -> None:
    writer.add_tokenizer_model("llama")  # SentencePiece: "▁" marks a space, <0xNN> tokens cover any byte
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)
    writer.add_chat_template(_CHAT_TEMPLATE)


def _vocabulary() -> tuple[list[str], list[float], list[int]]:
    """Tokens, scores and types: control tokens, bytes, characters, then every prefix of every word (with and
    without the leading "▁"), so SentencePiece's pairwise merges can reach each whole word."""
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{byte:02X}>" for byte in range(256)]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL] + [gguf.TokenType.BYTE] * 256
    pieces = ["▁"] + [chr(code) for code in range(33, 127)]
    for word in _WORDS:
        pieces += [prefix + word[:end] for prefix in ("▁", "") for end in range(1, len(word) + 1)]
    pieces = list(dict.fromkeys(pieces))
    scores = [0.0] * len(tokens) + [float(len(piece)) for piece in pieces]  # longer pieces merge first
    return tokens + pieces, scores, types + [gguf.TokenType.NORMAL] * len(pieces)


def _weights(rng: np.random.Generator, vocabulary: int) -> dict[str, np.ndarray]:
    """Random weights, large enough that a reply depends on the whole context. numpy shapes are GGML's
    dimensions reversed: token_embd is (vocabulary, embedding), a projection (out, in)."""

    def noise(*shape: int, scale: float = 0.2) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    def writing_past_dimension_0(*shape: int) -> np.ndarray:  # no block moves the constant component
        projection = noise(*shape)
        projection[0, :] = 0.0
        return projection

    ones = np.ones(_EMBEDDING, dtype=np.float32)
    embedding = noise(vocabulary, _EMBEDDING, scale=1.0)
    embedding[:, 0] = 8.0  # the constant component every hidden state keeps
    output = noise(vocabulary, _EMBEDDING, scale=0.15)
    output[:, 0] = 0.0
    output[:3, 0] = -20.0  # <unk>, <s>, </s>: never sampled, so replies always run to max_tokens
    weights = {"token_embd.weight": embedding, "output_norm.weight": ones, "output.weight": output}
    for layer in range(_LAYERS):
        block = f"blk.{layer}"
        weights.update({
            f"{block}.attn_norm.weight": ones, f"{block}.ffn_norm.weight": ones,
            f"{block}.attn_q.weight": noise(_EMBEDDING, _EMBEDDING),
            f"{block}.attn_k.weight": noise(_EMBEDDING, _EMBEDDING),
            f"{block}.attn_v.weight": noise(_EMBEDDING, _EMBEDDING),
            f"{block}.attn_output.weight": writing_past_dimension_0(_EMBEDDING, _EMBEDDING),
            f"{block}.ffn_gate.weight": noise(_FEED_FORWARD, _EMBEDDING),
            f"{block}.ffn_up.weight": noise(_FEED_FORWARD, _EMBEDDING),
            f"{block}.ffn_down.weight": writing_past_dimension_0(_EMBEDDING, _FEED_FORWARD),
        })
    return weights


class LlamaServer:
    """``python -m llama_cpp.server`` on a free loopback port, serving ``model`` as ``MODEL_ALIAS``. Start it from
    a thread that outlives it (the main thread): the server is killed when the starting thread ends."""

    def __init__(self, model: Path, log: Path | None = None, startup_timeout_s: float = 60.0):
        self.model = Path(model)
        self.port = _free_port()
        self.log = Path(log) if log else self.model.with_suffix(f".{self.port}.log")
        self.startup_timeout_s = startup_timeout_s
        self._process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        """The base URL an OpenAI client takes (ends in /v1)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LlamaServer:
        command = [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model), "--model_alias", MODEL_ALIAS,
                   "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(_CONTEXT), "--n_batch", "512",
                   "--n_threads", "1", "--n_threads_batch", "1", "--logits_all", "False", "--verbose", "False"]
        with open(self.log, "wb") as log:
            self._process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                             preexec_fn=_die_with_parent)
        self._wait_until_listing()
        return self

    def _wait_until_listing(self) -> None:
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"llama.cpp's server exited with {self._process.returncode} before it served; "
                                   f"its log:\n{self.log.read_text(errors='replace')[-3000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/models", timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"llama.cpp's server did not answer {self.url}/models within {self.startup_timeout_s:g} s; "
                           f"its log:\n{self.log.read_text(errors='replace')[-3000:]}")

    def kill(self) -> None:
        """SIGKILL: the server stops at once, mid-request or not."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait(timeout=10)

    def close(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.unlink(missing_ok=True)

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL when the thread that started it ends (a killed test run leaves no
    server behind). Linux's prctl(PR_SET_PDEATHSIG); a no-op where libc has no prctl."""
    prctl = getattr(ctypes.CDLL(None), "prctl", None)
    if prctl is not None:
        prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
