"""Every setting read from the environment, declared once, typed, with its default.

Nothing else in the package reads ``os.environ``. Tests override a setting with
``monkeypatch.setenv``: values are read when asked for, never cached at import.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

CACHE_DIR_ENV = "TORCH_ASCENDGEN_CACHE_DIR"
CXX_ENV = "TORCH_ASCENDGEN_CXX"
SOC_ENV = "TORCH_ASCENDGEN_SOC"
BUILD_TIMEOUT_ENV = "TORCH_ASCENDGEN_BUILD_TIMEOUT"
RUN_TIMEOUT_ENV = "TORCH_ASCENDGEN_RUN_TIMEOUT"
SEARCH_WORKERS_ENV = "TORCH_ASCENDGEN_SEARCH_WORKERS"
VARIANTS_ENV = "TORCH_ASCENDGEN_VARIANTS"
TARGET_ENV = "TORCH_ASCENDGEN_TARGET"
GENERATOR_ENV = "TORCH_ASCENDGEN_GENERATOR"
STRICT_ENV = "TORCH_ASCENDGEN_STRICT"
PROGRESS_ENV = "TORCH_ASCENDGEN_PROGRESS"
SHARED_CACHE_ENV = "TORCH_ASCENDGEN_SHARED_CACHE_DIRS"
RUN_MEMORY_ENV = "TORCH_ASCENDGEN_RUN_MEMORY_GB"
SANDBOX_ENV = "TORCH_ASCENDGEN_SANDBOX"
VERIFY_MEMORY_ENV = "TORCH_ASCENDGEN_VERIFY_MEMORY_GB"
SIGNATURE_BUDGET_ENV = "TORCH_ASCENDGEN_SIGNATURE_BUDGET_S"


def _get(name: str, default: str) -> str:
    value = os.environ.get(name, "").strip()
    return value or default


def cache_dir() -> Path:
    """Root of everything torch_ascendgen writes: builds, the runtime module, kernels."""
    return Path(_get(CACHE_DIR_ENV, platformdirs.user_cache_dir("torch_ascendgen"))).expanduser()


def cxx() -> str:
    """The C++ compiler that builds simulator kernels and the runtime module."""
    return _get(CXX_ENV, _get("CXX", "g++"))


def default_soc() -> str:
    """The SoC the simulator models when the caller names none."""
    return _get(SOC_ENV, "Ascend910B2")


def build_timeout_s() -> float:
    return float(_get(BUILD_TIMEOUT_ENV, "180"))


def run_timeout_s() -> float:
    """Time limit for one isolated run in a child process (a search candidate: all its input sets)."""
    return float(_get(RUN_TIMEOUT_ENV, "60"))


def search_workers() -> int:
    """Candidate builds (compiler processes) run at once; the candidates then run one after another in
    one child process."""
    return max(1, int(_get(SEARCH_WORKERS_ENV, str(min(2, os.cpu_count() or 1)))))


def variants() -> int:
    """Kernel variants the built-in generator proposes per function."""
    return max(1, int(_get(VARIANTS_ENV, "4")))


def target() -> str:
    """"auto" (NPU when the inputs are on one, else the simulator), "sim" or "npu"."""
    return _get(TARGET_ENV, "auto")


def generator() -> str:
    return _get(GENERATOR_ENV, "auto")


def strict() -> bool:
    """Raise instead of falling back to the original function."""
    return _get(STRICT_ENV, "0").lower() in ("1", "true", "yes", "on")


def progress() -> bool:
    """Show a progress bar while a first call generates kernels."""
    return _get(PROGRESS_ENV, "1").lower() not in ("0", "false", "no", "off")


def shared_cache_dirs() -> list[Path]:
    """Read-only kernel caches consulted before the writable one (os.pathsep-separated)."""
    value = _get(SHARED_CACHE_ENV, "")
    return [Path(part).expanduser() for part in value.split(os.pathsep) if part]


def run_memory_bytes() -> int:
    """Address-space limit of an isolated kernel run's child (0: none). A child that imported torch
    and ran 48 blocks peaks near 2 GB, so the default is half the machine's memory, 4 to 8 GB."""
    value = _get(RUN_MEMORY_ENV, "")
    if value:
        return int(float(value) * (1 << 30))
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return int(min(8 << 30, max(4 << 30, physical // 2)))


def sandbox() -> str:
    """The kernel-enforced sandbox of the child that runs candidate kernels (confinement.py): "auto" applies
    every protection the kernel has (missing ones are reported by `python -m torch_ascendgen doctor`); "off"
    leaves only the resource limits, for debugging."""
    value = _get(SANDBOX_ENV, "auto").lower()
    if value not in ("auto", "off"):
        raise ValueError(f"{SANDBOX_ENV}={value!r}: use auto (the default) or off (debugging only)")
    return value


def verify_memory_bytes() -> int:
    """Memory verification may use in this process for one signature (input sets, the candidate's outputs, the
    reference's, the float64 exact run). The input sets are planned to fit; a signature whose traced shapes alone
    do not fit runs as the original function. Default: a quarter of the machine's memory, at most 4 GB."""
    value = _get(VERIFY_MEMORY_ENV, "")
    if value:
        return int(float(value) * (1 << 30))
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return int(min(4 << 30, physical // 4))


def signature_budget_s() -> float:
    """Wall time one search (the candidates for one signature) may take; once over it no further candidate is
    evaluated (the best correct one so far wins, if any). 0: no limit."""
    return float(_get(SIGNATURE_BUDGET_ENV, "300"))


# ---- the model generator (an OpenAI-compatible server such as `vllm serve MODEL`) -------------------

LLM_URL_ENV = "TORCH_ASCENDGEN_LLM_URL"
LLM_MODEL_ENV = "TORCH_ASCENDGEN_LLM_MODEL"
LLM_API_KEY_ENV = "TORCH_ASCENDGEN_LLM_API_KEY"
LLM_SAMPLES_ENV = "TORCH_ASCENDGEN_LLM_SAMPLES"
LLM_TEMPERATURE_ENV = "TORCH_ASCENDGEN_LLM_TEMPERATURE"
LLM_MAX_TOKENS_ENV = "TORCH_ASCENDGEN_LLM_MAX_TOKENS"
LLM_SEED_ENV = "TORCH_ASCENDGEN_LLM_SEED"
LLM_TIMEOUT_ENV = "TORCH_ASCENDGEN_LLM_TIMEOUT"
LLM_RETRIES_ENV = "TORCH_ASCENDGEN_LLM_RETRIES"
LLM_CONCURRENCY_ENV = "TORCH_ASCENDGEN_LLM_CONCURRENCY"
LLM_ROUNDS_ENV = "TORCH_ASCENDGEN_LLM_ROUNDS"
LLM_OPT_ROUNDS_ENV = "TORCH_ASCENDGEN_LLM_OPT_ROUNDS"
LLM_TOKEN_BUDGET_ENV = "TORCH_ASCENDGEN_LLM_TOKEN_BUDGET"
LLM_WALL_BUDGET_ENV = "TORCH_ASCENDGEN_LLM_WALL_BUDGET"
LLM_FORMAT_ENV = "TORCH_ASCENDGEN_LLM_FORMAT"
LLM_FORMATS = ("contract", "op_project", "multikernelbench")


def llm_url() -> str:
    """Base URL of the OpenAI-compatible server, e.g. "http://127.0.0.1:8000/v1" ("": no model configured)."""
    return _get(LLM_URL_ENV, "")


def llm_model() -> str:
    """The served model's name ("": ask the server's /v1/models and take the first)."""
    return _get(LLM_MODEL_ENV, "")


def llm_api_key() -> str:
    return _get(LLM_API_KEY_ENV, "EMPTY")


def llm_samples() -> int:
    """Replies asked for per task (the request's ``n``)."""
    return max(1, int(_get(LLM_SAMPLES_ENV, "2")))


def llm_temperature() -> float:
    return float(_get(LLM_TEMPERATURE_ENV, "0.6"))


def llm_max_tokens() -> int:
    return max(1, int(_get(LLM_MAX_TOKENS_ENV, "4096")))


def llm_seed() -> int:
    return int(_get(LLM_SEED_ENV, "0"))


def llm_timeout_s() -> float:
    """Time limit of one request to the model."""
    return float(_get(LLM_TIMEOUT_ENV, "120"))


def llm_retries() -> int:
    """Retries of a request that failed with a 5xx, a lost connection or a timeout."""
    return max(0, int(_get(LLM_RETRIES_ENV, "3")))


def llm_concurrency() -> int:
    """Requests in flight at once to one server, across threads."""
    return max(1, int(_get(LLM_CONCURRENCY_ENV, "2")))


def llm_rounds() -> int:
    """Repair rounds per sample: a failing kernel goes back with its exact failure this many times."""
    return max(0, int(_get(LLM_ROUNDS_ENV, "3")))


def llm_opt_rounds() -> int:
    """Optimisation rounds once a sample is correct: the model is asked to beat the current best."""
    return max(0, int(_get(LLM_OPT_ROUNDS_ENV, "1")))


def llm_token_budget() -> int:
    """Tokens (prompt and completion) one task may spend on the model."""
    return max(1, int(_get(LLM_TOKEN_BUDGET_ENV, "200000")))


def llm_wall_budget_s() -> float:
    """Wall time one task may spend in the model's loop (requests, builds, runs)."""
    return float(_get(LLM_WALL_BUDGET_ENV, "600"))


def llm_format() -> str:
    """The reply format the prompt asks the model for: "contract" (our one-file kernel), "op_project"
    (NPUKernelBench's operator project: models fine-tuned on it, e.g. KernelGen-LM) or "multikernelbench"
    (MultiKernelBench's six Python strings). Replies in another format are still read."""
    value = _get(LLM_FORMAT_ENV, "contract").lower().replace("-", "_")
    if value not in LLM_FORMATS:
        raise ValueError(f"{LLM_FORMAT_ENV}={value!r} is not a reply format; use one of {', '.join(LLM_FORMATS)}")
    return value


# ---- the NPU target: where CANN and its bisheng compiler are ----------------------------------------

ASCEND_HOME_PATH_ENV = "ASCEND_HOME_PATH"        # exported by CANN's set_env.sh
ASCEND_TOOLKIT_HOME_ENV = "ASCEND_TOOLKIT_HOME"  # exported by set_env.sh of CANN 8.3 and older
ASCEND_ROOTS_ENV = "TORCH_ASCENDGEN_ASCEND_ROOTS"
BISHENG_ENV = "TORCH_ASCENDGEN_BISHENG"
ASCEND_PROCESS_LOG_PATH_ENV = "ASCEND_PROCESS_LOG_PATH"  # where CANN's runtime writes its logs


def _optional_path(name: str) -> Path | None:
    value = _get(name, "")
    return Path(value).expanduser() if value else None


def ascend_home_path() -> Path | None:
    """The CANN toolkit's home as set_env.sh exports it (``<root>/cann`` on CANN 8.5 and newer,
    ``<root>/ascend-toolkit/latest`` before); None when unset."""
    return _optional_path(ASCEND_HOME_PATH_ENV)


def ascend_toolkit_home() -> Path | None:
    """The older name of the same directory (set_env.sh of CANN 8.3 and older); None when unset."""
    return _optional_path(ASCEND_TOOLKIT_HOME_ENV)


def ascend_install_roots() -> list[Path]:
    """Directories CANN's installer puts toolkits under (its --install-path), searched when neither
    variable above is set: root's default /usr/local/Ascend, then a non-root user's ~/Ascend
    (os.pathsep-separated)."""
    value = _get(ASCEND_ROOTS_ENV, os.pathsep.join(("/usr/local/Ascend", "~/Ascend")))
    return [Path(part).expanduser() for part in value.split(os.pathsep) if part]


def ascend_log_dir() -> Path:
    """Where CANN's runtime writes the logs of a process on the NPU (the NPU worker child may write there)."""
    return _optional_path(ASCEND_PROCESS_LOG_PATH_ENV) or Path("~/ascend/log").expanduser()


def bisheng_override() -> Path | None:
    """The bisheng compiler to use instead of the toolkit's own (a path, or a name looked up on PATH)."""
    return _optional_path(BISHENG_ENV)


# ---- the torch.compile backend ---------------------------------------------------------------------

MIN_REGION_OPS_ENV = "TORCH_ASCENDGEN_MIN_REGION_OPS"
COMPILE_REPORT_ENV = "TORCH_ASCENDGEN_COMPILE_REPORT"


def min_region_ops() -> int:
    """A graph region with fewer ATen ops stays eager: a kernel of one elementwise op moves the bytes eager
    moves, plus a launch."""
    return int(_get(MIN_REGION_OPS_ENV, "2"))


def compile_report() -> bool:
    """Print each compiled graph's report (regions made kernels, regions left eager and why, times)."""
    return _get(COMPILE_REPORT_ENV, "0").lower() in ("1", "true", "yes", "on")


# ---- verification's random values ------------------------------------------------------------------

VERIFY_SEED_ENV = "TORCH_ASCENDGEN_VERIFY_SEED"


def verify_seed() -> int | None:
    """The seed every verification draws its input values from, to reproduce a failure (its reason and the cache
    entry's ``verify_seed`` name the one used); None (unset): a fresh secret seed for every verification, so that
    a kernel cannot know the values it will be checked on."""
    value = _get(VERIFY_SEED_ENV, "")
    return int(value) if value else None
