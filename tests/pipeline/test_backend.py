"""The torch.compile backend: torch.compile(model, backend="ascendgen") on small real models.

Kernels are built once per session: every test compiles into one session-scoped kernel cache (the
simulator builds themselves are shared with the rest of the suite), so a region compiled by one test
is a cache hit for the next.
"""

from __future__ import annotations

import json
import logging
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import torch_ascendgen.pipeline as pipeline
from backend_models import MLP, RMSNorm
from torch_ascendgen import ascend_kernel, last_report, reports
from torch_ascendgen.frontends.dynamo.options import parse_options

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def kernel_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("backend_kernels")


@pytest.fixture
def options(kernel_cache) -> dict:
    return {"variants": 1, "progress": False, "cache_dir": str(kernel_cache)}


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def no_generation(*args, **kwargs):
    raise AssertionError("a kernel was generated where the cache should have had it")


# ---- models --------------------------------------------------------------------------------------------


class Block(nn.Module):
    """Pre-norm attention with a residual, then the final norm (the residual add feeds it)."""

    def __init__(self, d=64, heads=4):
        super().__init__()
        self.norm, self.final = RMSNorm(d), RMSNorm(d)
        self.qkv, self.proj, self.heads = nn.Linear(d, 3 * d, bias=False), nn.Linear(d, d, bias=False), heads

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        scores = torch.softmax((q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // self.heads)), dim=-1)
        y = (scores @ v).transpose(1, 2).reshape(b, t, d)
        return self.final(x + self.proj(y))


class LossHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 16)

    def forward(self, x, target):
        return F.smooth_l1_loss(self.fc(x), target)


class Unsupported(nn.Module):
    """Convolution, pooling, sort and integer indexing: nothing here the backend claims but the tanh-mul (its
    partitioner leaves sorting eager)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        y = F.max_pool2d(F.relu(self.conv(x)), 2)
        values, order = torch.sort(y.flatten(1), dim=-1)
        return torch.tanh(values) * values + order.float().mean()


def region_ops(report) -> list[list[str]]:
    return [region.ops for region in report.kernels]


# ---- tests ---------------------------------------------------------------------------------------------


def test_the_backend_is_registered_by_the_entry_point_in_a_fresh_process(tmp_path):
    code = "import torch._dynamo; print('ascendgen' in torch._dynamo.list_backends())"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.stdout.strip() == "True", done.stderr[-2000:]


def test_options_are_the_decorators_and_unknown_ones_are_refused(options):
    settings = parse_options({**options, "rtol": 1e-4, "atol": 1e-5, "min_region_ops": 3, "report": True})
    assert settings.options.variants == 1 and settings.options.tolerance.rtol == 1e-4
    assert settings.min_region_ops == 3 and settings.report
    with pytest.raises(ValueError, match="unknown option.*'tile_size'"):
        parse_options({"tile_size": 4})
    with pytest.raises(ValueError, match="both rtol and atol"):
        parse_options({"rtol": 1e-3})
    compiled = torch.compile(MLP().eval(), backend="ascendgen", options={"varaints": 2})
    with torch.no_grad(), pytest.raises(Exception, match="unknown option.*'varaints'"):
        compiled(torch.randn(4, 64))


def test_decorated_function_and_backend_region_share_one_cache_entry(options, monkeypatch):
    @ascend_kernel(**options)
    def bias_gelu(x, bias):
        return F.gelu(x + bias)

    with torch.no_grad():
        bias_gelu(torch.randn(8, 128), torch.randn(128))
    (decorated,) = bias_gelu.kernels()

    class BiasGelu(nn.Module):
        def __init__(self):
            super().__init__()
            self.bias = nn.Parameter(torch.randn(128))

        def forward(self, x):
            return F.gelu(x + self.bias)

    monkeypatch.setattr(pipeline, "_search_with_progress", no_generation)  # it must find the decorator's kernel
    model = BiasGelu().eval()
    compiled = torch.compile(model, backend="ascendgen", options=options)
    x = torch.randn(8, 128)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x))
    (region,) = last_report().kernels
    assert region.ops == ["aten.add.Tensor", "aten.gelu.default"]
    assert region.key == decorated.runner.task.key and region.origin == "cache"


def test_mlp_first_linear_bias_and_activation_become_one_kernel_and_the_second_linear_stays_eager(options):
    torch.manual_seed(0)
    model = MLP().eval()
    compiled = torch.compile(model, backend="ascendgen", options=options)
    before = len(reports())
    with torch.no_grad():
        for shape in [(8, 64), (5, 64), (33, 64), (1, 64), (3, 16, 64), (2, 7, 64)]:  # batch sizes, then 3-D
            for _ in range(2):
                x = torch.randn(*shape)
                torch.testing.assert_close(compiled(x), model(x))
    first = reports()[before]
    (ops,) = region_ops(first)  # the product, its bias and GELU (generators/builtin/matmul.py); views around them
    assert [op for op in ops if "view" not in op and "permute" not in op] == \
        ["aten.mm.default", "aten.add.Tensor", "aten.gelu.default"]
    assert first.kernels[0].kernel_ns and first.kernels[0].eager_ns > first.kernels[0].kernel_ns
    # every later graph (other batch sizes, dynamic shapes, 3-D) has the bias and GELU in a kernel: with the product
    # where the region's views take no symbolic sizes, else alone (the product eager)
    for report in reports()[before + 1:]:
        assert any({"aten.add.Tensor", "aten.gelu.default"} <= set(ops) for ops in region_ops(report))


def test_transformer_block_norms_softmax_and_residual_run_as_kernels(options):
    torch.manual_seed(0)
    model = Block().eval()
    compiled = torch.compile(model, backend="ascendgen", options=options)
    before = len(reports())
    with torch.no_grad():
        for shape in [(2, 16, 64), (3, 16, 64), (5, 9, 64)]:
            x = torch.randn(*shape)
            torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-5)
    kernels = [ops for report in reports()[before:] for ops in region_ops(report)]
    norms = [ops for ops in kernels if "aten.rsqrt.default" in ops and "aten.mean.dim" in ops]
    assert norms and any(ops.count("aten.add.Tensor") == 2 for ops in norms)  # the residual add joins the final norm
    assert any("aten._softmax.default" in ops and "aten.mul.Tensor" in ops for ops in kernels)  # the scaled softmax


def test_loss_head_reduces_in_one_kernel(options):
    torch.manual_seed(0)
    model = LossHead().eval()
    compiled = torch.compile(model, backend="ascendgen", options=options)
    before = len(reports())
    with torch.no_grad():
        for batch in (8, 5, 64):
            x, target = torch.randn(batch, 32), torch.randn(batch, 16)
            torch.testing.assert_close(compiled(x, target), model(x, target))
    assert any("aten.mean.default" in ops for report in reports()[before:] for ops in region_ops(report))


def test_a_model_of_unsupported_ops_runs_correctly(options, caplog):
    torch.manual_seed(0)
    model = Unsupported().eval()
    compiled = torch.compile(model, backend="ascendgen", options=options)
    with torch.no_grad(), caplog.at_level(logging.INFO, logger="torch_ascendgen"):
        for batch in (2, 3):
            x = torch.randn(batch, 3, 8, 8)
            torch.testing.assert_close(compiled(x), model(x))
    kernels = region_ops(last_report())
    assert any("aten.tanh.default" in ops for ops in kernels), last_report().text()  # the supported part
    for ops in kernels:
        assert not {"aten.convolution.default", "aten.sort.default", "aten.max_pool2d_with_indices.default"} & set(ops)


def test_a_region_without_a_verified_kernel_stays_eager_with_one_log_line(options, caplog, monkeypatch):
    def refuse(task, variants):
        from torch_ascendgen.errors import UnsupportedFunction
        raise UnsupportedFunction("refused by the test")

    monkeypatch.setattr(pipeline, "generate", refuse)
    options = {**options, "cache_dir": str(Path(options["cache_dir"]) / "empty")}  # nothing cached: it must generate
    model = MLP().eval()
    compiled = torch.compile(model, backend="ascendgen", options=options)
    x = torch.randn(4, 64)
    with torch.no_grad(), caplog.at_level(logging.INFO, logger="torch_ascendgen"):
        torch.testing.assert_close(compiled(x), model(x))
    lines = [r.getMessage() for r in caplog.records if "stays eager" in r.getMessage()]
    assert len(lines) == 1 and "refused by the test" in lines[0]
    assert not last_report().kernels


def test_small_regions_stay_eager_under_min_region_ops(options, caplog):
    model = MLP().eval()
    compiled = torch.compile(model, backend="ascendgen", options={**options, "min_region_ops": 4})
    x = torch.randn(4, 64)
    with torch.no_grad(), caplog.at_level(logging.INFO, logger="torch_ascendgen"):
        torch.testing.assert_close(compiled(x), model(x))
    (region,) = last_report().regions  # mm, the bias add and GELU: 3 ops (views are free)
    assert not region.kernel and "min_region_ops=4" in region.reason


def test_graphs_that_need_autograd_run_unchanged(options, caplog):
    model = MLP()
    compiled = torch.compile(model, backend="ascendgen", options=options)
    x = torch.randn(4, 64)
    with caplog.at_level(logging.WARNING, logger="torch_ascendgen"):
        out = compiled(x)
    out.sum().backward()
    assert model.up.weight.grad is not None
    assert "inference-only" in last_report().passthrough
    assert any("require grad" in r.getMessage() for r in caplog.records)


def test_the_report_option_prints_the_report(options, capsys):
    model = MLP().eval()
    compiled = torch.compile(model, backend="ascendgen", options={**options, "report": True})
    with torch.no_grad():
        compiled(torch.randn(4, 64))
    printed = capsys.readouterr().out
    assert "1 of 1 region(s) became kernels" in printed and "gelu" in printed and "vs eager" in printed


SECOND_PROCESS = """
import json, torch
import torch_ascendgen.pipeline as pipeline
from torch_ascendgen import reports
sys_path = {tests!r}
import sys; sys.path[:0] = [sys_path, sys_path + "/pipeline"]
from test_backend import MLP, Block, LossHead

def no_generation(*args, **kwargs):
    raise AssertionError("generated in the second process")

pipeline._search_with_progress = no_generation  # no candidate is built or run: every kernel comes from the cache
options = {{"variants": 1, "progress": False, "cache_dir": {cache!r}}}
torch.manual_seed(0)
with torch.no_grad():
    for model, inputs in ((MLP(), (torch.randn(8, 64),)), (Block(), (torch.randn(2, 16, 64),)),
                          (LossHead(), (torch.randn(8, 32), torch.randn(8, 16)))):
        model.eval()
        torch.testing.assert_close(torch.compile(model, backend="ascendgen", options=options)(*inputs), model(*inputs),
                                   rtol=1e-4, atol=1e-5)
print(json.dumps([[r.origin for r in report.kernels] for report in reports()]))
"""


def test_a_second_process_reuses_the_cache_without_generating(options, kernel_cache, tmp_path):
    with torch.no_grad():  # this process: make sure every kernel the child needs is in the cache
        for model, inputs in ((MLP(), (torch.randn(8, 64),)), (Block(), (torch.randn(2, 16, 64),)),
                              (LossHead(), (torch.randn(8, 32), torch.randn(8, 16)))):
            torch.compile(model.eval(), backend="ascendgen", options=options)(*inputs)
    code = textwrap.dedent(SECOND_PROCESS.format(tests=str(ROOT / "tests"), cache=str(kernel_cache)))
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    origins = json.loads(done.stdout.strip().splitlines()[-1])
    assert sum(map(len, origins)) >= 4 and all(o == "cache" for graph in origins for o in graph)


# ---- cases from review: never a wrong result, never a crash -----------------------------------------------


def test_a_two_dimensional_addmm_bias_is_not_moved_past_a_view(options):
    def f(x, w, bias):
        return (torch.addmm(bias, x, w).view(8, 1, 16) * 2).relu()

    x, w, bias = torch.randn(8, 32), torch.randn(32, 16), torch.randn(8, 16)
    compiled = torch.compile(f, backend="ascendgen", options={**options, "min_region_ops": 1})
    with torch.no_grad():
        out = compiled(x, w, bias)
    assert out.shape == (8, 1, 16)
    torch.testing.assert_close(out, f(x, w, bias))


def test_a_permuted_input_gets_eager_strides_and_values(options):
    def f(x):
        return torch.sin((x * 2).relu().as_strided((8,), (1,)))

    compiled = torch.compile(f, backend="ascendgen", options=options)
    with torch.no_grad():
        for x in (torch.randn(8, 8).t(), torch.randn(8, 8)):
            torch.testing.assert_close(compiled(x), f(x))


def test_two_regions_that_feed_each_other_through_eager_ops_do_not_break_the_graph(options):
    def f(x, y):
        a1, b1 = x * 2, y * 3
        b2 = b1 + a1[0]
        a3 = a1 * b1.sin()
        return b2, a3

    x, y = torch.randn(8, 16), torch.randn(16)
    compiled = torch.compile(f, backend="ascendgen", options={**options, "min_region_ops": 1})
    with torch.no_grad():
        for got, expected in zip(compiled(x, y), f(x, y)):
            torch.testing.assert_close(got, expected)
    report = last_report()
    assert any("feed each other" in region.reason for region in report.regions if not region.kernel)


def test_a_failing_cache_write_at_a_new_shape_runs_the_region_eagerly(options, monkeypatch):
    def f(x):
        return (x * 2).relu() + 1

    compiled = torch.compile(f, backend="ascendgen", options=options, dynamic=True)
    with torch.no_grad():
        first = torch.randn(8, 8)
        torch.testing.assert_close(compiled(first), f(first))

        def disk_full(*args, **kwargs):
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(pipeline, "record_verified_shape", disk_full)
        x = torch.randn(6, 6)
        torch.testing.assert_close(compiled(x), f(x))
