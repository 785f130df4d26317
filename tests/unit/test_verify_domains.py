"""Input sets that the function accepts: integer inputs drawn inside the values the captured call held (indices
inside the tensor they index, at every shape verification tries; distinct and in order where the call's were),
shapes that keep the task's guards, and the task's constants as they are. Floats and bools are drawn as before."""

import torch
import torch.nn.functional as F

from torch_ascendgen.capture import capture
from torch_ascendgen.capture.sizes import bind, holds
from torch_ascendgen.evaluate.verify import make_input_sets, task_input_sets

SEED = 77


def _every_set(task, **kwargs):
    sets = task_input_sets(task, generic=True, seed=SEED, **kwargs)
    assert len(sets) >= 4  # the traced shapes, value sets, and tails / many blocks
    return sets


def test_embedding_ids_stay_inside_the_table_at_every_shape_and_reach_both_ends():
    task = capture(lambda i, w: F.embedding(i, w), [torch.tensor([[1, 2, 9], [0, 3, 3]]), torch.randn(10, 4)])
    sets = _every_set(task)
    for input_set in sets:
        ids, weight = input_set.tensors
        assert ids.dtype == torch.int64 and 0 <= int(ids.min()) and int(ids.max()) < weight.shape[0], input_set.name
        F.embedding(ids, weight)  # the original accepts every set
    traced = sets[0].tensors[0]
    assert {0, 9} <= set(traced.reshape(-1).tolist())  # the domain's ends, at the call's own shapes


def test_distinct_slots_are_drawn_distinct_and_sets_without_room_are_left_out():
    task = capture(lambda x, i, s: x.index_copy(0, i, s), [torch.randn(8, 4), torch.tensor([6, 1, 5]),
                                                            torch.randn(3, 4)])
    for input_set in _every_set(task):
        x, slots, _ = input_set.tensors
        assert slots.unique().numel() == slots.numel() <= x.shape[0], input_set.name
        assert int(slots.min()) >= -x.shape[0] and int(slots.max()) < x.shape[0]


def test_values_in_order_stay_in_order():
    task = capture(lambda x, b: torch.bucketize(x, b), [torch.randn(6, 5), torch.tensor([-1.0, 0.0, 2.0])])
    offsets = capture(lambda x, o: x[o] * 2, [torch.randn(9, 3), torch.tensor([0, 2, 2, 5, 8])])
    assert offsets.domains[1].ordered and not offsets.domains[1].distinct
    for input_set in _every_set(offsets):
        values = input_set.tensors[1]
        assert torch.equal(values, values.sort().values)
    assert task.domains == (None, None)  # float inputs have no domain


def test_class_targets_with_an_ignore_index_are_drawn_as_valid_classes_or_the_ignore_index():
    task = capture(lambda x, t: F.cross_entropy(x, t), [torch.randn(4, 10), torch.tensor([1, 2, 9, -100])])
    sentinels = 0
    for input_set in _every_set(task):
        logits, target = input_set.tensors
        valid = target[target != -100]
        assert 0 <= int(valid.min()) and int(valid.max()) < logits.shape[1], input_set.name
        sentinels += int((target == -100).sum())
        F.cross_entropy(logits, target)
    assert sentinels > 0  # the ignored positions are tested too


def test_an_ignore_index_that_reaches_the_kernel_through_a_shift_is_kept_apart():
    """Causal-LM loss: the labels are shifted before the gather, so no bound cuts the domain; -100 is still drawn
    only as itself, never as the other negative values the original refuses."""
    def shifted_loss(logits, labels):
        return F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1))

    labels = torch.tensor([[3, -100, 5, 7], [-100, -100, 1, 0]])
    task = capture(shifted_loss, [torch.randn(2, 4, 8), labels])
    for input_set in _every_set(task):
        logits, drawn = input_set.tensors
        assert set(drawn[drawn < 0].tolist()) <= {-100}, input_set.name
        shifted_loss(logits, drawn)


def test_bool_and_float_inputs_are_drawn_as_before():
    task = capture(lambda c, x: torch.where(c, x, 0.0), [torch.rand(4, 6) > 0.5, torch.randn(4, 6)])
    with_domains = make_input_sets(task.inputs, task.traced_shapes, seed=SEED, domains=task.domains)
    without = make_input_sets(task.inputs, task.traced_shapes, seed=SEED)
    assert [s.name for s in with_domains] == [s.name for s in without]
    for a, b in zip(with_domains, without):
        for x, y in zip(a.tensors, b.tensors):
            torch.testing.assert_close(x, y, rtol=0, atol=0, equal_nan=True)
        assert set(a.tensors[0].unique().tolist()) <= {False, True}


def test_every_set_keeps_the_guards():
    def halves(x):
        a, b = x.chunk(2, -1)
        return a * torch.sigmoid(b)

    task = capture(halves, [torch.randn(4, 8)])
    for input_set in _every_set(task):
        binding = bind([s.shape for s in task.inputs], input_set.shapes)
        assert holds(task.guards, binding), input_set.name
        halves(*input_set.tensors)


def test_constants_hold_their_values_in_every_set():
    task = capture(lambda x: x * torch.tensor([1.0, -2.0, 3.0]), [torch.randn(5, 3)])
    for input_set in _every_set(task):
        assert torch.equal(input_set.tensors[1], torch.tensor([1.0, -2.0, 3.0])), input_set.name


def test_divisors_the_call_held_without_zeros_are_drawn_without_zeros_both_ends_kept():
    a = torch.randint(-100, 100, (64,), dtype=torch.int32)
    b = torch.tensor([-9, 9, -1, 1] * 16, dtype=torch.int32)
    task = capture(lambda a, b: torch.floor_divide(a, b), [a, b])
    for input_set in _every_set(task):
        divisors = input_set.tensors[1]
        assert not bool((divisors == 0).any()), input_set.name
        torch.floor_divide(*input_set.tensors)  # the original accepts every set
    drawn = set(_every_set(task)[0].tensors[1].tolist())
    assert {-9, 9} <= drawn and drawn & {-1, 1}
    with_zero = capture(lambda a, b: a * b, [a, torch.tensor([-3, 0, 3, 1] * 16, dtype=torch.int32)])
    assert any(bool((s.tensors[1] == 0).any()) for s in _every_set(with_zero))  # zeros where the call had them


def test_index_tensors_distinct_together_are_drawn_distinct_together():
    def write(cache, block, offset, rows):  # a paged cache write: (block, offset) pairs are distinct slots
        return torch.index_put(cache, (block, offset), rows)

    slots = torch.randperm(8 * 4)[:20]
    block, offset = slots // 4, slots % 4
    task = capture(write, [torch.randn(8, 4, 3), block, offset, torch.randn(20, 3)])
    assert task.domains[1].distinct_with == (2,) and task.domains[2].distinct_with == (1,)
    assert not task.domains[1].distinct and not task.domains[2].distinct  # neither alone
    for input_set in _every_set(task):
        cache, b, o, _ = input_set.tensors
        if b.shape != o.shape:
            continue  # sizes the trace left apart (the original refuses such a set)
        pairs = torch.stack([b, o], 1)
        assert torch.unique(pairs, dim=0).shape[0] == pairs.shape[0], input_set.name
        assert 0 <= int(b.min()) and int(b.max()) < cache.shape[0] and int(o.max()) < cache.shape[1]
    repeated = capture(write, [torch.randn(8, 4, 3), torch.tensor([1, 1, 2]), torch.tensor([0, 0, 3]),
                               torch.randn(3, 3)])
    assert repeated.domains[1].distinct_with == ()  # the call's own pairs repeat: nothing to keep


def test_rows_that_are_permutations_are_drawn_as_permutations():
    def restore(x, order):  # scatter back through an argsort's order (top-p filtering, MAE's ids_restore)
        return x.scatter(-1, order, x)

    x = torch.randn(3, 12)
    task = capture(restore, [x, torch.argsort(x, dim=-1)])
    assert task.domains[1].permutations
    for input_set in _every_set(task):
        _, order = input_set.tensors
        positions = torch.arange(order.shape[-1]).expand_as(order)
        assert torch.equal(order.sort(dim=-1).values, positions), input_set.name
    assert not capture(restore, [x, torch.randint(0, 12, (3, 12))]).domains[1].permutations


def test_a_divisor_drawn_with_a_dividend_keeps_its_rule_against_zero():
    generator = torch.Generator().manual_seed(5)
    a = torch.randint(-1000, 1000, (256,), generator=generator)
    b = torch.randint(1, 50, (256,), generator=generator) * (torch.randint(0, 2, (256,), generator=generator) * 2 - 1)
    task = capture(lambda x, y: torch.div(x, y, rounding_mode="floor"), [a, b])
    assert task.domains[1].nonzero and task.domains[1].distinct_with == ()  # never drawn jointly with the dividend
    for input_set in _every_set(task):
        assert not bool((input_set.tensors[1] == 0).any()), input_set.name
