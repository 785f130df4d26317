"""Serving model-written kernels (serve.py): they run in a sandboxed worker, never in the caller's process.

Model entries are written into the cache directly (what a model's search publishes: meta "generator" "llm:...",
"llm" with "winner_is_model"), with kernels edited from the built-in generator's: correct, crashing or hanging
on a magic input value or shape, or right only on the verification seed's data. One test runs the real model
path with the scripted server; one the NPU's serving glue (serve_npu.py) with the NPU stood in."""

import dataclasses
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch

from fake_openai import FakeOpenAIServer, reply
from torch_ascendgen import AscendGenWarning, ascend_kernel
from torch_ascendgen.cache import CacheEntry, KernelCache
from torch_ascendgen.capture import capture
from torch_ascendgen.errors import KernelCrashError, KernelTimeoutError, UnsupportedFunction
from torch_ascendgen.evaluate.verify import make_input_sets, verify_loaded
from torch_ascendgen.generators.builtin.generator import VERSION as BUILTIN_VERSION
from torch_ascendgen.generators.builtin.generator import generate_builtin
from torch_ascendgen.pipeline import _builtin_key, _load
from torch_ascendgen.targets.runtime import ContractKernel
from torch_ascendgen.targets.sim.build import SimBuild
from torch_ascendgen.targets.sim.serving import ServedKernel, serving_worker
from torch_ascendgen.targets.sim.simulator import SimKernel
from torch_ascendgen.targets.target import Target, resolve_target
from torch_ascendgen.trust import untrusted

SHAPE = (8, 1000)
# scale_add is elementwise: one 1-D task (and key) at every rank, so its kernels take flat tensors (``flat``); each
# test plants its own kernel (one op per source and key: runtime.kernel_op) in its own cache directory.
HOSTILE_SHAPE, TILING_SHAPE, SEED_SHAPE = (8, 10, 100), (2, 2, 4, 500), (8000,)
SIM = resolve_target("sim", None, [torch.device("cpu")])
CRASH, SPIN = 12345.0, 54321.0  # first input values on which the adversarial kernel traps or spins


def scale_add(x, y):
    return x * 2 + y


def inputs(shape=SHAPE, first=None):
    x, y = torch.randn(shape), torch.randn(shape)
    if first is not None:
        x.view(-1)[0] = first
    return x, y


def flat(*tensors):
    """The tensors as a kernel of scale_add's (1-D) task takes them."""
    return [t.reshape(-1) for t in tensors]


def edit(source: str, old: str, new: str) -> str:
    assert old in source, old
    return source.replace(old, new, 1)


def probing(source: str, decide: str) -> str:
    """The kernel with ``scale_`` (the factor of in0) decided in Init from ``first``, in0's first element read
    through a GlobalTensor, and ``bits``, its bit pattern."""
    source = edit(source, "Muls(calc[0 * TILE], in0, 2.0f, count);", "Muls(calc[0 * TILE], in0, scale_, count);")
    source = edit(source, "    uint32_t tile_ = 0;\n", "    uint32_t tile_ = 0;\n    float scale_ = 2.0f;\n")
    return edit(source, "        tile_ = t.tile;\n", "        tile_ = t.tile;\n"
                "        GlobalTensor<float> probe;\n        probe.SetGlobalBuffer((__gm__ float*)in0, 1);\n"
                "        GlobalTensor<uint32_t> probeBits;\n"
                "        probeBits.SetGlobalBuffer((__gm__ uint32_t*)in0, 1);\n"
                "        float first = probe.GetValue(0);\n        uint32_t bits = probeBits.GetValue(0);\n"
                "        (void)first; (void)bits;\n" + decide)


def task_for(shape):
    return capture(scale_add, list(inputs(shape)), name="scale_add")


def verification_bits(task) -> list[int]:
    """in0's first element's bits in every input set verification draws with the fixed seed 0."""
    sets = make_input_sets(task.inputs, task.traced_shapes, generic=True, seed=0, outputs=task.outputs)
    return sorted({int(s.tensors[0].reshape(-1)[:1].view(torch.int32).item()) & 0xFFFFFFFF for s in sets})


@pytest.fixture(scope="session")
def kernels():
    """name -> (source, library): built once per content (the build cache is shared by the suite)."""
    task = task_for(SHAPE)
    good = edit(generate_builtin(task, 1)[0].source, "MIN_BLOCK = 2048", "MIN_BLOCK = 1024")
    known = " || ".join(f"bits == {b}u" for b in verification_bits(task_for(SEED_SHAPE)))
    sources = {
        "good": good,
        "hostile": probing(good, f"        if (first == {CRASH:.1f}f) __builtin_trap();\n"
                                 f"        if (first == {SPIN:.1f}f) {{ volatile int spin = 1; while (spin) {{}} }}\n"),
        "tiling_crash": edit(good, "    if (total == 0 || total > 0xFFFFFFFFull) return 0;\n",
                             "    if (total == 0 || total > 0xFFFFFFFFull) return 0;\n"
                             "    if (dims[0] == 7) __builtin_trap();\n"),
        "seed_aware": probing(good, f"        scale_ = ({known}) ? 2.0f : 2.01f;\n"),
    }
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        libraries = dict(zip(sources, pool.map(lambda s: SIM.build(s, task).library, sources.values())))
    return {name: (sources[name], libraries[name]) for name in sources}, task


def plant(cache_dir: Path, kernels, name: str, shape=SHAPE, generator: str = "llm:fake-kernel-model",
          winner_is_model: bool = True) -> CacheEntry:
    """A model's entry for scale_add at ``shape``'s rank under the built-in key (what compile_task finds first)."""
    table, _ = kernels
    task = task_for(shape)
    source, library = table[name]
    meta = {"generator": generator, "llm": {"model": "fake-kernel-model", "winner_is_model": winner_is_model},
            "verified_shapes": [[list(shape), list(shape)]], "task": task.graph_text}
    return KernelCache(cache_dir / "kernels").publish(_builtin_key(task, SIM),
                                                      {"kernel.cpp": source.encode(), "kernel.so": library}, meta)


def decorated(cache_dir: Path, strict: bool = False):
    return ascend_kernel(scale_add, generator="builtin", variants=1, cache_dir=cache_dir, progress=False,
                         strict=strict)


def mapped(path: Path, pid: str = "self") -> bool:
    with open(f"/proc/{pid}/maps") as maps:
        return any(line.rstrip().endswith(str(path)) for line in maps)


def test_a_model_kernel_is_served_with_the_in_process_results_and_never_mapped_here(kernels, tmp_path):
    entry = plant(tmp_path, kernels, "good")
    fast = decorated(tmp_path)
    x, y = inputs()
    got = fast(x, y)
    torch.testing.assert_close(got, scale_add(x, y))
    (compiled,) = fast.kernels()
    assert isinstance(compiled.runner, ServedKernel) and compiled.runner.rechecked
    in_process = ContractKernel(SimKernel(SimBuild("ascendgen_kernel", entry.key, entry.directory,
                                                   kernels[0]["good"][1], 0.0, True), entry.source, "kernel.cpp"),
                                compiled.runner.task, compiled.runner.soc)
    for shape in [SHAPE, (3, 1000)]:  # a new shape: verified in the worker too
        x, y = inputs(shape)
        assert torch.equal(fast(x, y).reshape(-1), compiled.runner(*flat(x, y))[0])
        x2, y2 = flat(x.clone(), y.clone())
        assert torch.equal(compiled.runner(*flat(x, y))[0], _in_child_of_this_test(in_process, x2, y2))
    assert not mapped(entry.library) and not mapped(kernels[0]["good"][1])
    assert mapped(entry.library, str(serving_worker().pid))  # it was loaded, there


def _in_child_of_this_test(kernel: ContractKernel, x, y):
    """The in-process result, computed in a child of pytest (this process must not load the library)."""
    from torch_ascendgen.evaluate.verify import InputSet
    from torch_ascendgen.targets.sim.candidate import run_candidate

    portable = dataclasses.replace(kernel.task, graph=None, output_tree=None)
    with SIM.candidate_worker() as worker:
        (run,) = worker.call(run_candidate, kernel.kernel.build, kernel.kernel.source, portable,
                             [InputSet("x", (x, y))], kernel.soc, timeout=60)
    return run.outputs[0]


def test_a_crash_in_the_launch_falls_back_then_the_next_call_works_in_a_new_worker(kernels, tmp_path):
    plant(tmp_path, kernels, "hostile", HOSTILE_SHAPE)
    fast = decorated(tmp_path)
    x, y = inputs(HOSTILE_SHAPE)
    torch.testing.assert_close(fast(x, y), scale_add(x, y))
    runner = fast.kernels()[0].runner
    starts = serving_worker().starts
    x, y = inputs(HOSTILE_SHAPE, first=CRASH)
    with pytest.warns(AscendGenWarning, match="crashed its child process.*SIGILL"):
        torch.testing.assert_close(fast(x, y), scale_add(x, y))
    x, y = inputs(HOSTILE_SHAPE)
    torch.testing.assert_close(runner(*flat(x, y))[0], scale_add(x, y).reshape(-1))
    assert serving_worker().starts == starts + 1


def test_strict_mode_raises_the_crash_and_a_hang_is_stopped(kernels, tmp_path, monkeypatch):
    plant(tmp_path, kernels, "hostile", HOSTILE_SHAPE)
    fast = decorated(tmp_path, strict=True)
    x, y = inputs(HOSTILE_SHAPE)
    torch.testing.assert_close(fast(x, y), scale_add(x, y))
    with pytest.raises(KernelCrashError, match="serving worker"):
        fast(*inputs(HOSTILE_SHAPE, first=CRASH))
    monkeypatch.setenv("TORCH_ASCENDGEN_RUN_TIMEOUT", "2")
    runner = fast.kernels()[0].runner
    with pytest.raises(KernelTimeoutError, match="did not finish within 2.0 s"):
        runner(*flat(*inputs(HOSTILE_SHAPE, first=SPIN)))
    x, y = inputs(HOSTILE_SHAPE)
    torch.testing.assert_close(runner(*flat(x, y))[0], scale_add(x, y).reshape(-1))


def test_a_crash_in_the_tiling_function_falls_back_and_other_shapes_still_run(kernels, tmp_path):
    plant(tmp_path, kernels, "tiling_crash", TILING_SHAPE)
    fast = decorated(tmp_path)
    x, y = inputs(TILING_SHAPE)
    torch.testing.assert_close(fast(x, y), scale_add(x, y))
    x, y = inputs((7,))  # 7 elements: the crashing tiling's dims[0]
    with pytest.warns(AscendGenWarning, match="crashed its child process"):
        torch.testing.assert_close(fast(x, y), scale_add(x, y))
    x, y = inputs((5, *TILING_SHAPE[1:]))
    assert isinstance(fast.kernels()[0].runner, ServedKernel)
    torch.testing.assert_close(fast.kernels()[0].runner(*flat(x, y))[0], scale_add(x, y).reshape(-1))


def test_two_threads_share_the_worker(kernels, tmp_path):
    plant(tmp_path, kernels, "good")
    fast = decorated(tmp_path)
    fast(*inputs())
    runner = fast.kernels()[0].runner
    failures = []

    def hammer(seed: int) -> None:
        generator = torch.Generator().manual_seed(seed)
        for _ in range(30):
            x, y = torch.randn(SHAPE, generator=generator), torch.randn(SHAPE, generator=generator)
            if not torch.equal(runner(*flat(x, y))[0], fast(x, y).reshape(-1)) or \
                    not torch.allclose(fast(x, y), scale_add(x, y)):
                failures.append(seed)

    threads = [threading.Thread(target=hammer, args=(seed,)) for seed in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures


def test_a_kernel_right_only_on_the_verification_seeds_data_is_caught_before_first_use(kernels, tmp_path):
    source, library = kernels[0]["seed_aware"]
    task = task_for(SEED_SHAPE)
    sets = make_input_sets(task.inputs, task.traced_shapes, generic=True, seed=0, outputs=task.outputs)
    served = ServedKernel(library, source, "seed-aware", task, SIM.soc)
    assert verify_loaded(scale_add, served, sets, None).ok  # what a fixed-seed verification saw
    plant(tmp_path, kernels, "seed_aware", SEED_SHAPE)
    fast = decorated(tmp_path)
    x, y = inputs(SEED_SHAPE)
    with pytest.warns(AscendGenWarning, match="failed the check on fresh data in the serving process"):
        torch.testing.assert_close(fast(x, y), scale_add(x, y))
    assert not fast.kernels()


def test_which_entries_are_untrusted(kernels):
    table, task = kernels
    ours = generate_builtin(task, 1)[0].source

    def entry(generator, source=ours, llm=None):
        meta = {"generator": generator, **({"llm": llm} if llm is not None else {})}
        return CacheEntry("k", Path("/nowhere"), source, None, meta)

    assert untrusted(entry("llm:m", llm={"winner_is_model": True}), task, False) == "a model wrote it ('llm:m')"
    assert untrusted(entry(BUILTIN_VERSION, llm={"winner_is_model": False}), task, False) == ""
    assert untrusted(entry(BUILTIN_VERSION), task, False) == "" and untrusted(entry("seed"), task, False) == ""
    assert "a model wrote it" in untrusted(entry(BUILTIN_VERSION, llm={"model": "m"}), task, False)
    assert "not the built-in generator" in untrusted(entry("llm:m"), task, False)
    assert "not the built-in generator" in untrusted(entry(None), task, False)
    assert untrusted(entry(BUILTIN_VERSION), task, True) == ""  # shared, and our generator's source
    assert "shared cache" in untrusted(entry(BUILTIN_VERSION, table["good"][0]), task, True)


def test_a_shared_entry_claiming_to_be_built_in_is_served_and_a_real_one_is_rebuilt_here(kernels, tmp_path):
    table, task = kernels
    shared = tmp_path / "shared"
    forged = plant(shared, kernels, "good", generator=BUILTIN_VERSION, winner_is_model=False)
    own = KernelCache(tmp_path / "own")
    assert isinstance(_load(forged, task, SIM, own)[0], ServedKernel)
    ours = generate_builtin(task, 1)[0].source
    real = KernelCache(shared / "real").publish("r" * 64, {"kernel.cpp": ours.encode(), "kernel.so": table["good"][1]},
                                                {"generator": BUILTIN_VERSION})
    runner, _ = _load(real, task, SIM, own)
    assert isinstance(runner, ContractKernel) and runner.kernel.build.library != real.library


class StandInNpuWorker:
    """Target.candidate_worker's sandboxed NPU child, stood in: each call runs here, with ``inside`` set."""

    def __init__(self):
        self.inside = False
        self.calls = []

    def call(self, function, *args, timeout, what):
        self.calls.append(function.__name__)
        self.inside = True
        try:
            return function(*args)
        finally:
            self.inside = False

    def __exit__(self, *exc_info):
        pass


def test_on_the_npu_a_model_kernel_is_loaded_tiled_and_run_only_in_its_worker(kernels, tmp_path, monkeypatch):
    """serve_npu's glue with the NPU stood in (as test_npu_glue does for the candidate child): the device is the
    CPU and the NPU runtime's kernel is the simulator's; the worker runs its calls here but flags them."""
    from torch_ascendgen.records import ENTRY
    from torch_ascendgen.targets.npu import cann
    from torch_ascendgen.targets.npu import device as npu_device
    from torch_ascendgen.targets.npu import runtime as npu_runtime
    from torch_ascendgen.targets.npu import serving as serve_npu
    from torch_ascendgen.targets.npu.serving import NpuServedKernel
    from torch_ascendgen.targets.runtime import ShapeDeclined
    from torch_ascendgen.trust import recheck

    entry = plant(tmp_path, kernels, "good")
    worker, loaded = StandInNpuWorker(), []

    class SimulatedNpuKernel:
        def __init__(self, build, task, soc):
            loaded.append(worker.inside)
            self.kernel = ContractKernel(SimKernel(SimBuild(ENTRY, build.key, build.directory, build.library, 0.0,
                                                            True), entry.source, "kernel.cpp"), task, soc)

        def plan(self, inputs):
            return self.kernel.plan(inputs)

        def __call__(self, *inputs):
            return self.kernel(*inputs)

    class FakeNpu:
        def set_device(self, device):
            pass

        def synchronize(self, device=None):
            pass

    monkeypatch.setattr(npu_device, "candidate_worker", lambda target: worker)
    monkeypatch.setattr(serve_npu, "_WORKERS", {})
    monkeypatch.setattr(serve_npu, "_KERNELS", {})
    monkeypatch.setattr(npu_runtime, "NpuKernel", SimulatedNpuKernel)
    monkeypatch.setattr(cann, "torch_npu_module", lambda: object())
    monkeypatch.setattr(torch, "npu", FakeNpu(), raising=False)
    monkeypatch.setattr(Target, "device", property(lambda self: torch.device("cpu")))

    runner, _ = _load(entry, kernels[1], Target("npu", "Ascend910B2", 0), KernelCache(tmp_path / "kernels"))
    assert isinstance(runner, NpuServedKernel) and loaded == [] and worker.calls == []
    x, y = flat(*inputs())
    torch.testing.assert_close(runner(x, y), (scale_add(x, y),), rtol=0, atol=0)
    recheck(runner, scale_add, [x.shape, y.shape], None)
    assert runner.rechecked and loaded == [True]  # loaded once, inside a worker call
    assert set(worker.calls) == {"_in_worker_plan", "_in_worker_run"}
    with pytest.raises(ShapeDeclined):  # a dimension above 2**32 elements in all: its tiling declines
        runner.plan([torch.empty(()).expand(1 << 32)] * 2)


def test_a_kernel_from_the_model_path_is_served(tmp_path, monkeypatch):
    for name, value in {"SAMPLES": "1", "ROUNDS": "1", "OPT_ROUNDS": "0", "TIMEOUT": "5", "RETRIES": "2"}.items():
        monkeypatch.setenv(f"TORCH_ASCENDGEN_LLM_{name}", value)
    task = capture(scale_add, list(inputs()), name="scale_add")
    good = edit(generate_builtin(task, 1)[0].source, "MIN_BLOCK = 2048", "MIN_BLOCK = 1024")
    with FakeOpenAIServer([reply(f"```cpp\n{good}```\n")]) as server:
        fast = ascend_kernel(scale_add, generator="llm", llm_url=server.url, variants=1, cache_dir=tmp_path,
                             progress=False)
        x, y = inputs()
        torch.testing.assert_close(fast(x, y), scale_add(x, y))
    (compiled,) = fast.kernels()
    assert compiled.entry.meta["llm"]["winner_is_model"] and isinstance(compiled.runner, ServedKernel)
    assert not mapped(compiled.entry.library)
