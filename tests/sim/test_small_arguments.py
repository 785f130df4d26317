"""log1p, expm1 and what is made of them (softplus, elu) keep float32's relative precision at tiny arguments and
their values at the edges (-1, 0, +-inf, NaN, far below 0), in the templates and in the general lowering alike: a
value computed as Ln(1 + x) is 0 below 6e-8, and a decay exp(-A * softplus(z)) is then NaN where eager's is 0."""

import pytest
import torch
import torch.nn.functional as F

from generated_kernels import build_cases
from torch_ascendgen.generators.builtin.generator import generate_builtin
from torch_ascendgen.generators.builtin.loops import generate_loops
from torch_ascendgen.targets.runtime import ContractKernel

EDGES = torch.tensor([0.0, 1e-10, -1e-10, 3e-8, -3e-8, 1e-5, -1e-5, 0.3, -0.3, -0.5, -1.0, -2.0, 20.0, -20.0, -100.0,
                      100.0, 1e30, -1e-30, float("inf"), float("-inf"), float("nan")])
FUNCTIONS = {
    "log1p": torch.log1p,
    "expm1": torch.expm1,
    "softplus": F.softplus,
    "elu": F.elu,
    "decay_of_softplus": lambda x: torch.exp(-F.softplus(x) * 1e38 * 10),  # 0 * inf if softplus underflows to 0
}


def _inputs() -> torch.Tensor:
    torch.manual_seed(0)
    return torch.cat([EDGES, torch.randn(43) * 3]).reshape(4, 16)


def _strided(function):
    return lambda x: function(x[:, ::2])  # a strided view: the templates decline, the general lowering takes it


@pytest.fixture(scope="module")
def kernels():
    cases = {f"templates/{name}": (function, [_inputs().flatten()]) for name, function in FUNCTIONS.items()}
    cases |= {f"loops/{name}": (_strided(function), [_inputs()]) for name, function in FUNCTIONS.items()}
    built = build_cases({k: v for k, v in cases.items() if k.startswith("templates/")},
                        lambda task: generate_builtin(task, 1)[0])
    built |= build_cases({k: v for k, v in cases.items() if k.startswith("loops/")},
                         lambda task: generate_loops(task, 1, 176 * 1024)[0])
    return cases, built


@pytest.mark.parametrize("route", ["templates", "loops"])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_small_arguments_keep_their_relative_precision(kernels, route, name):
    cases, built = kernels
    function, inputs = cases[f"{route}/{name}"]
    task, kernel = built[f"{route}/{name}"]
    (got,) = ContractKernel(kernel, task, "Ascend910B2")(*inputs)
    # atol: one step of the smallest subnormals (exp far below 0 is subnormal)
    torch.testing.assert_close(got, function(*inputs), rtol=2e-6, atol=1e-44, equal_nan=True)
