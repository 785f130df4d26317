"""@ascend_kernel on the functions porting engineers write (issue 15): one kernel for every rank of an elementwise
chain, guards that let a kernel serve every shape they take, constants the function makes, empty and 0-dim
tensors. Each test builds its kernels once (variants=1; the simulator's build cache is shared by the session)."""

import warnings

import pytest
import torch
import torch.nn.functional as F

from torch_ascendgen import AscendGenWarning, ascend_kernel
from torch_ascendgen.frontends import dispatch


def gated(x, y):
    return F.gelu(x, approximate="tanh") * y - 0.25


def even_or_odd(x):
    return x * 3 if x.shape[-1] % 2 == 0 else x - 1


@pytest.fixture
def counted(monkeypatch):
    """How often dispatch captured a function, searched for a kernel, and launched one (simulator launches)."""
    from torch_ascendgen.targets.sim.simulator import SimKernel

    counts = {"captures": 0, "searches": 0, "launches": 0}

    def count(name, real):
        def wrapper(*args, **kwargs):
            counts[name] += 1
            return real(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(dispatch, "capture", count("captures", dispatch.capture))
    monkeypatch.setattr(dispatch, "compile_task", count("searches", dispatch.compile_task))
    monkeypatch.setattr(SimKernel, "launch", count("launches", SimKernel.launch))
    return counts


def _strict(function, tmp_path):
    return ascend_kernel(function, variants=1, cache_dir=tmp_path, progress=False, strict=True)


def test_an_elementwise_chain_at_ranks_0_to_8_is_one_kernel_searched_once(tmp_path, counted):
    fast = _strict(gated, tmp_path)
    shapes = [(), (5,), (2, 3), (2, 3, 1), (2, 1, 3, 4), (2, 3, 1, 4, 5), (2, 3, 1, 2, 5, 2), (2, 3, 2, 1, 2, 2, 3),
              (2, 1, 2, 3, 2, 1, 2, 3)]
    for shape in shapes:
        x, y = torch.randn(shape), torch.randn(shape)
        out = fast(x, y)
        assert out.shape == x.shape
        torch.testing.assert_close(out, gated(x, y))
    (kernel,) = fast.kernels()
    assert counted["searches"] == 1 and counted["captures"] == len(shapes)  # a trace per rank, one search
    assert kernel.entry.meta["inputs"] == ["f32[s0]", "f32[s0]"]
    before = counted["captures"]
    x, y = torch.randn(3, 7, 1), torch.randn(3, 7, 1)  # new sizes, a rank and pattern seen before: no new trace
    torch.testing.assert_close(fast(x, y), gated(x, y))
    assert counted["captures"] == before and len(fast.kernels()) == 1
    launches = counted["launches"]
    torch.testing.assert_close(fast(x, y), gated(x, y))
    assert counted["launches"] == launches + 1  # the kernel ran, not the original


def test_a_kernel_serves_every_shape_its_guards_take_and_other_shapes_are_traced_again(tmp_path, counted):
    fast = _strict(even_or_odd, tmp_path)
    for shape in ((4, 8), (6, 10), (3, 2)):
        x = torch.randn(shape)
        torch.testing.assert_close(fast(x), x * 3)
    assert counted["captures"] == 1 and len(fast.kernels()) == 1
    assert "guard: s1 % 2 == 0" in fast.kernels()[0].entry.meta["task"]
    x = torch.randn(4, 7)  # an odd size breaks the guard: traced again, the other branch's kernel
    torch.testing.assert_close(fast(x), x - 1)
    assert counted["captures"] == 2 and len(fast.kernels()) == 2


def test_constants_the_function_makes_are_inputs_of_its_kernel(tmp_path, counted):
    def scale_shift(x):
        return x * torch.tensor(2.0) + torch.tensor([0.5])

    def per_column(x):
        return x * torch.tensor([1.0, -2.0, 3.0, 0.5, 4.0, -1.0])

    for function, shapes in ((scale_shift, [(4, 6), (3, 5, 2)]), (per_column, [(4, 6), (9, 6)])):
        fast = _strict(function, tmp_path)
        for shape in shapes:
            x = torch.randn(shape)
            torch.testing.assert_close(fast(x), function(x))
        (kernel,) = fast.kernels()
        assert "= constant " in kernel.entry.meta["task"]
    assert counted["launches"] >= 4


def test_empty_tensors_get_empty_outputs_without_a_launch_and_0_dim_ones_run_the_kernel(tmp_path, counted):
    fast = _strict(gated, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AscendGenWarning)
        out = fast(torch.randn(0, 64), torch.randn(64))
        assert out.shape == (0, 64) and out.dtype == torch.float32
        half = fast(torch.randn(3, 0, 2).half(), torch.randn(2).half())
        assert half.shape == (3, 0, 2) and half.dtype == torch.float16
        assert counted["launches"] == 0 and counted["searches"] == 0
        assert fast.route(torch.randn(0, 64), torch.randn(64)) == ("original", "")  # quietly: nothing to compute
        x, y = torch.tensor(0.5), torch.tensor(-2.0)
        torch.testing.assert_close(fast(x, y), gated(x, y))
        assert counted["launches"] >= 1 and counted["searches"] == 1


def rmsnorm_backward(grad, x, weight):
    rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
    normed = x * rms
    grad_weight = (grad * normed).sum(0)
    grad_normed = grad * weight
    grad_x = rms * (grad_normed - normed * (grad_normed * normed).mean(-1, keepdim=True))
    return grad_x, grad_weight


def test_empty_inputs_with_non_empty_outputs_get_a_kernel_of_their_own(tmp_path, counted):
    fast = _strict(lambda x: x.sum(-1) * 2 + 1, tmp_path)
    assert torch.equal(fast(torch.randn(3, 0)), torch.ones(3))
    assert fast.route(torch.randn(3, 0)) == ("kernel", "")
    assert counted["launches"] >= 1  # the kernel writes the sum's identity: the original is not what ran
    backward = _strict(rmsnorm_backward, tmp_path)
    args = torch.randn(0, 48), torch.randn(0, 48), torch.randn(48)
    grad_x, grad_weight = backward(*args)
    assert grad_x.shape == (0, 48) and torch.equal(grad_weight, torch.zeros(48))
    assert backward.route(*args) == ("kernel", "")
    full = torch.randn(5, 48), torch.randn(5, 48), torch.randn(48)  # a non-empty call is its own task
    for got, want in zip(backward(*full), rmsnorm_backward(*full)):
        torch.testing.assert_close(got, want)


def test_empty_outputs_have_eager_shapes_even_where_its_meta_shapes_differ(tmp_path):
    def shuffle_and_back(x):  # eager returns an empty input's shape from pixel_unshuffle, its meta function does not
        up = F.pixel_shuffle(x, 2)
        return up, F.pixel_unshuffle(up, 2)

    got = _strict(shuffle_and_back, tmp_path)(torch.randn(0, 4, 2, 2))
    assert [t.shape for t in got] == [t.shape for t in shuffle_and_back(torch.randn(0, 4, 2, 2))]


def test_a_function_that_fails_on_empty_inputs_fails_as_without_us(tmp_path):
    reshaped = ascend_kernel(lambda x: x.reshape(x.shape[0], -1) * 2, cache_dir=tmp_path, progress=False)
    with pytest.raises(RuntimeError, match="cannot reshape"):  # the function's own error, as without us
        reshaped(torch.randn(0, 4))
