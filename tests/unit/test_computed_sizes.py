"""Views and ops whose sizes the function computes: the task writes each output size as size text over the input
symbols and keeps the trace's guards, so that one task serves every shape its guards take, and the run time
computes the outputs' shapes from the inputs' as the function itself would."""

import pytest
import torch
import torch.nn.functional as F

from torch_ascendgen.capture import capture
from torch_ascendgen.targets.runtime import output_shapes


def halves(x):
    a, b = x.chunk(2, -1)
    return a * torch.sigmoid(b)


def split_three(x):
    a, b = x.split([3, x.shape[-1] - 3], -1)
    return a.sum(-1, keepdim=True) + b


CASES = {  # name: (function, traced inputs, other inputs its guards take)
    "chunk": (halves, [(4, 8)], [(3, 10)]),
    "split": (split_three, [(4, 8)], [(5, 9)]),
    "reshape with arithmetic": (lambda x: x.reshape(x.shape[0] * 2, -1) + 1, [(4, 8)], [(3, 6)]),
    "half the last size": (lambda x: x[..., : x.shape[-1] // 2] * 2, [(4, 8)], [(2, 5)]),
    "cat": (lambda x, y: torch.cat([x, y], 0) * 2, [(4, 8), (3, 8)], [(2, 5), (6, 5)]),
    "cat then add": (lambda x, y, z: torch.cat([x, y], 0) + z, [(4, 8), (3, 8), (7, 8)], [(2, 5), (6, 5), (8, 5)]),
    "pad": (lambda x: F.pad(x, (1, 2)) * 2, [(4, 8)], [(3, 5)]),
    "interpolate": (lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), [(1, 3, 5, 6)], [(1, 2, 7, 3)]),
    "view with -1": (lambda x: x.view(-1, 4).sum(-1), [(3, 8)], [(5, 12)]),
}


@pytest.mark.parametrize("name", CASES)
def test_computed_output_sizes_are_evaluated_at_new_shapes_as_the_function_computes_them(name):
    function, traced, other = CASES[name]
    task = capture(function, [torch.randn(s) for s in traced])
    assert not task.specialized
    inputs = [torch.randn(s) for s in other]
    binding = task.call.binding(inputs)
    assert binding is not None, f"{name}: guards {task.guards} refuse {other}"
    expected = function(*inputs)
    expected = [expected] if isinstance(expected, torch.Tensor) else list(expected)
    assert output_shapes(task, [s for s in other]) == [tuple(e.shape) for e in expected]


def test_a_shape_the_guards_refuse_is_not_taken():
    task = capture(halves, [torch.randn(4, 8)])
    assert any("//" in guard for guard in task.guards)
    assert task.call.binding([torch.randn(4, 7)]) is None  # an odd size: chunk gives unequal halves
    with pytest.raises(ValueError, match="made for shapes where"):
        output_shapes(task, [(4, 7)])


def test_size_arithmetic_stays_in_the_graph_with_canonical_names():
    task = capture(halves, [torch.randn(4, 8)])
    ops = [line.split(" = ")[1].split("(")[0] for line in task.graph_text.splitlines() if line.startswith("%")]
    assert "aten.sym_size.int" in ops and "operator.floordiv" in ops and "operator.sub" in ops
    sizes = [n for n in task.graph.graph.nodes if n.op == "call_function" and "sym_size" in str(n.target)]
    assert sizes  # the nodes that compute sizes are kept for the generator (Inductor evaluates them)
    renamed = capture(lambda t: halves(t), [torch.randn(6, 12)])
    assert renamed.key == task.key


def test_guards_are_part_of_the_key():
    plain = capture(lambda x: x * 2, [torch.randn(4, 8)])
    even = capture(lambda x: x * 2 if x.shape[-1] % 2 == 0 else x + 1, [torch.randn(4, 8)])
    assert even.guards == ("s1 % 2 == 0",) and plain.guards == ()
    assert even.key != plain.key and even.graph_text.endswith("guard: s1 % 2 == 0")


def test_a_data_dependent_output_size_is_written_by_its_name_and_marks_the_task():
    masked = capture(lambda x: x[x > 0] * 2, [torch.randn(4, 8)])
    (size,) = masked.outputs[0].shape
    assert masked.data_dependent and isinstance(size, str) and not size.startswith("s")  # u0: no input gives it
    inside = capture(lambda ids, bias: bias + torch.bincount(ids.flatten(), minlength=64).float().sign(),
                     [torch.randint(0, 64, (16, 2)), torch.randn(64)])  # an unbacked size inside the graph
    assert inside.data_dependent and inside.outputs[0].shape == ("s2",)
    assert not capture(lambda x: x * 2, [torch.randn(4, 8)]).data_dependent
