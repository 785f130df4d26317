"""The one-shot examples the model prompts ship (generators/llm/examples) build and are correct on the simulator,
read the way a model's reply is read: the op_project example as a reply of three files under their paths, the
MultiKernelBench example as its ```python block of six strings (its attribute value from ModelNew in attrs.json)."""

from __future__ import annotations

import json

import pytest
import torch

from torch_ascendgen.generators.llm import prompts
from torch_ascendgen.generators.llm.formats import parse_reply, screen_reply
from torch_ascendgen.targets.sim.op_project import OpProject

SHAPES = [(8, 100), (3,), (1,), (4, 1000, 33), (48 * 16 + 5,)]  # tails, a single element, more blocks than cores


def _project(reply: str, fmt: str) -> tuple[OpProject, dict]:
    parsed = parse_reply(reply, "stop", fmt)
    screen_reply(parsed)
    files = parsed.files
    attrs = json.loads(files.get("attrs.json", "{}"))
    project = OpProject.from_sources(files["op_host/add_custom_tiling.h"], files["op_host/add_custom.cpp"],
                                     files["op_kernel/add_custom.cpp"], name="add_custom")
    return project, attrs


@pytest.fixture(scope="module")
def op_project_example():
    project, attrs = _project(prompts.project_reply(prompts.example_files()), "op_project")
    assert attrs == {}
    with project:  # its calls share one child
        yield project


@pytest.fixture(scope="module")
def multikernelbench_example():
    reply = f"```python\n{prompts._example_text('add_custom_multikernelbench.txt')}```"
    project, attrs = _project(reply, "multikernelbench")
    with project:
        yield project, attrs


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_the_op_project_example_is_torch_add_with_alpha(op_project_example, dtype):
    for shape in SHAPES:
        x, y = torch.randn(shape).to(dtype), torch.randn(shape).to(dtype)
        torch.testing.assert_close(op_project_example(x, y), torch.add(x, y, alpha=0.5))  # the default: 0.5
        torch.testing.assert_close(op_project_example(x, y, alpha=-2.0), torch.add(x, y, alpha=-2.0))


def test_the_op_project_example_keeps_inf_and_nan(op_project_example):
    x = torch.tensor([float("inf"), float("nan"), 1.0, -float("inf"), 0.0])
    y = torch.tensor([1.0, 2.0, float("nan"), 3.0, float("inf")])
    torch.testing.assert_close(op_project_example(x, y), torch.add(x, y, alpha=0.5), equal_nan=True)


def test_the_multikernelbench_example_with_its_attribute_from_model_new(multikernelbench_example):
    project, attrs = multikernelbench_example
    assert attrs == {"alpha": 0.5}
    for shape in SHAPES[:3]:
        x, y = torch.randn(shape), torch.randn(shape)
        torch.testing.assert_close(project(x, y, **attrs), torch.add(x, y, alpha=0.5))
