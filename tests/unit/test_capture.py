"""Capture: the same computation gives the same task; what cannot be a kernel says why."""

import pytest
import torch

from torch_ascendgen.capture import capture
from torch_ascendgen.errors import UnsupportedFunction


def rms_norm(x, weight):
    variance = x.float().pow(2).mean(-1, keepdim=True)
    return (x * torch.rsqrt(variance + 1e-6)).to(x.dtype) * weight


def rms_norm_renamed(hidden, gamma):
    var = hidden.float().pow(2).mean(-1, keepdim=True)
    return (hidden * torch.rsqrt(var + 1e-6)).to(hidden.dtype) * gamma


def test_the_same_computation_gives_the_same_key_whatever_the_names_and_sizes():
    a = capture(rms_norm, [torch.randn(4, 64).half(), torch.randn(64).half()])
    b = capture(rms_norm_renamed, [torch.randn(9, 128).half(), torch.randn(128).half()])
    assert a.key == b.key and a.graph_text == b.graph_text
    assert a.inputs[0].shape == ("s0", "s1") and a.inputs[1].shape == ("s1",)
    assert a.outputs[0].dtype == torch.float16 and a.category == "norm" and not a.specialized


def test_anything_that_changes_the_kernel_changes_the_key():
    base = capture(rms_norm, [torch.randn(4, 64).half(), torch.randn(64).half()])
    other_dtype = capture(rms_norm, [torch.randn(4, 64), torch.randn(64)])
    per_channel = capture(rms_norm, [torch.randn(2, 4, 64).half(), torch.randn(4, 1).half()])
    broadcast = capture(rms_norm, [torch.randn(4, 1).half(), torch.randn(1).half()])
    other_eps = capture(lambda x, w: rms_norm(x, w) * 1.0001, [torch.randn(4, 64).half(), torch.randn(64).half()])
    keys = {t.key for t in (base, other_dtype, per_channel, broadcast, other_eps)}
    assert len(keys) == 5
    assert broadcast.inputs[0].shape == ("s0", 1)


def test_a_size_the_computation_divides_is_guarded_not_specialised():
    task = capture(lambda x: x.view(-1, 4).sum(-1), [torch.randn(3, 8)])
    assert not task.specialized and "s0*s1 % 4 == 0" in task.guards
    assert task.outputs[0].shape == ("s0*s1 // 4",) and "guard: s0*s1 % 4 == 0" in task.graph_text
    again = capture(lambda x: x.view(-1, 4).sum(-1), [torch.randn(5, 8)])
    assert task.key == again.key  # one kernel for every shape the guards take
    assert task.call.binding([torch.randn(7, 12)]) == {"s0": 7, "s1": 12}
    assert task.call.binding([torch.randn(7, 6)]) is None  # 42 elements: not rows of 4; traced again


def test_what_size_text_cannot_write_is_specialised_to_the_traced_shapes():
    def ratio(x):
        return x * 2 if x.shape[0] / x.shape[1] > 0.5 else x * 3  # a guard on a float ratio

    task = capture(ratio, [torch.randn(6, 8)])
    assert task.specialized and task.inputs[0].shape == (6, 8) and task.guards == ()
    assert task.call.binding([torch.randn(6, 8)]) == {} and task.call.binding([torch.randn(6, 9)]) is None


def test_in_place_ops_on_its_own_intermediates_become_out_of_place():
    in_place = capture(lambda x: (x * 2).add_(1).clamp_min_(0), [torch.randn(3, 4)])
    out_of_place = capture(lambda x: (x * 2 + 1).clamp_min(0), [torch.randn(5, 6)])
    assert in_place.key == out_of_place.key


def test_a_decomposition_that_clamps_in_place_is_captured_without_mutation():
    task = capture(lambda a, b: (1 - torch.nn.functional.cosine_similarity(a, b, dim=1)).mean(),
                   [torch.randn(4, 8), torch.randn(4, 8)])
    assert "clamp.Tensor" in task.graph_text and "_(" not in task.graph_text and not task.specialized


@pytest.mark.parametrize("function, reason", [
    (lambda x: x.add_(1), "in place"),
    (lambda x: x[0].mul_(2).sum(), "in place"),
    (lambda x: x.view(-1).add_(1).sum(), "in place"),
    (lambda x: x, "returns views of its inputs"),
    (lambda x: x.view(-1), "returns views of its inputs"),
    (lambda x: (x.view(-1), x * 2), "returns some of its inputs"),
    (lambda x: x.sum().item(), "non-tensor"),
])
def test_what_cannot_be_a_kernel_says_why(function, reason):
    with pytest.raises(UnsupportedFunction, match=reason):
        capture(function, [torch.randn(3)])


def test_a_function_of_views_only_is_nothing_to_compute_and_runs_quietly(tmp_path):
    import warnings

    from torch_ascendgen import AscendGenWarning, ascend_kernel
    from torch_ascendgen.errors import NothingToCompute

    def heads(x):  # qkv split into heads: views, no copy in eager
        return x.view(x.shape[0], 3, -1).unbind(1)

    with pytest.raises(NothingToCompute):
        capture(heads, [torch.randn(4, 12)])
    fast = ascend_kernel(heads, strict=True, cache_dir=tmp_path, progress=False)
    x = torch.randn(4, 12)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AscendGenWarning)
        q, k, v = fast(x)
    assert q.data_ptr() == x.data_ptr() and torch.equal(v, x.view(4, 3, 4)[:, 2])  # eager's own views
    assert fast.route(x) == ("original", "")


def test_nll_loss_takes_byte_targets_as_eager_does():
    logits, target = torch.randn(8, 5).log_softmax(-1), torch.randint(0, 5, (8,), dtype=torch.uint8)
    task = capture(lambda x, t: torch.nn.functional.nll_loss(x, t), [logits, target])
    assert task.inputs[1].dtype == torch.uint8 and "gather" in task.graph_text


def test_a_closed_over_tensor_is_never_modified():
    total = torch.zeros(3)
    with pytest.raises(UnsupportedFunction, match="in place"):
        capture(lambda x: total.add_(x) * 2, [torch.randn(3)])
    assert torch.equal(total, torch.zeros(3))


def test_batchnorm_in_training_mode_mutates_its_buffers():
    bn = torch.nn.BatchNorm1d(8).train()
    params = [*bn.parameters(), *bn.buffers()]

    def forward(x, *state):
        return torch.func.functional_call(bn, dict(zip([n for n, _ in [*bn.named_parameters(), *bn.named_buffers()]],
                                                        state)), (x,))

    with pytest.raises(UnsupportedFunction, match="in place"):
        capture(forward, [torch.randn(4, 8), *params])


def test_functions_captured_in_several_threads_at_once_all_trace():
    import threading

    functions = [lambda a, k=k: (a * k).relu() + k for k in range(6)]
    results, errors = {}, []

    def trace(index):
        try:
            results[index] = capture(functions[index], [torch.randn(4, 8)])
        except Exception as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=trace, args=(i,)) for i in range(len(functions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(results) == len(functions)
    assert len({task.graph_text for task in results.values()}) == len(functions)


def test_tensors_made_from_literals_become_constant_inputs_whose_values_are_in_the_key():
    task = capture(lambda x: x * torch.tensor([1.0, 2.0, 3.0]) + torch.tensor(0.5), [torch.randn(4, 3)])
    assert [s.text() for s in task.inputs] == ["f32[s0, 3]", "f32[3]", "f32[]"]
    assert task.argument_count == 1 and torch.equal(task.constants[0], torch.tensor([1.0, 2.0, 3.0]))
    assert "lift_fresh_copy" not in task.graph_text and "= constant " in task.graph_text
    assert task.traced_shapes == ((4, 3), (3,), ())
    other = capture(lambda x: x * torch.tensor([1.0, 2.0, 4.0]) + torch.tensor(0.5), [torch.randn(4, 3)])
    assert other.key != task.key  # another value, another kernel (a generator may rely on it)
    again = capture(lambda y: y * torch.tensor([1.0, 2.0, 3.0]) + torch.tensor(0.5), [torch.randn(9, 3)])
    assert again.key == task.key


def test_a_tensor_the_function_holds_is_refused_with_the_fix():
    weight = torch.randn(8)
    with pytest.raises(UnsupportedFunction, match="register it as a module buffer"):
        capture(lambda x: x * weight, [torch.randn(4, 8)])


def test_integer_inputs_record_their_values_and_the_sizes_they_index_outside_the_key():
    ids = torch.tensor([[1, 2, 9], [0, 3, 3]])
    task = capture(lambda i, w: torch.nn.functional.embedding(i, w), [ids, torch.randn(10, 4)])
    (domain, none) = task.domains
    assert none is None and (domain.low, domain.high, domain.distinct, domain.ordered) == (0, 9, False, False)
    assert domain.bounds == (("s2", False),)  # the weight's rows; negative ids are refused there
    other = capture(lambda i, w: torch.nn.functional.embedding(i, w), [torch.tensor([[5, 1, 2], [7, 0, 4]]),
                                                                       torch.randn(10, 4)])
    assert other.key == task.key and other.domains[0].distinct
    slots = capture(lambda x, i, s: x.index_copy(0, i, s), [torch.randn(8, 4), torch.tensor([1, 2, 5]),
                                                             torch.randn(3, 4)])
    assert slots.domains[1].distinct and slots.domains[1].ordered and slots.domains[1].bounds == (("s0", True),)
    target = capture(lambda x, t: torch.nn.functional.cross_entropy(x, t), [torch.randn(4, 10),
                                                                           torch.tensor([1, 2, 9, -100])])
    assert target.domains[1].sentinel == -100 and target.domains[1].low == 1  # ignore_index apart from the classes
    assert target.domains[1].bounds == (("s1", False),)


def test_empty_tensors_are_traced_at_their_sizes():
    task = capture(lambda x, y: x + y, [torch.randn(0, 5), torch.randn(5)])
    assert task.outputs[0].shape == (0, "s0") and task.call.output_shapes(task.call.binding(
        [torch.randn(0, 7), torch.randn(7)])) == [(0, 7)]
    with pytest.raises(UnsupportedFunction, match="cannot reshape"):
        capture(lambda x: x.reshape(x.shape[0], -1) * 2, [torch.randn(0, 4)])  # as the function itself raises
