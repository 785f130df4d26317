"""What the model is told: the contract, the SoC's facts, the task, an example, and the feedback."""

import torch

from torch_ascendgen.capture import capture
from torch_ascendgen.generators.llm.loop import example_source, traced_bytes
from torch_ascendgen.generators.llm.prompts import PROMPT_VERSION, first_messages, optimise_message, repair_message
from torch_ascendgen.targets.soc import get_soc


def task():
    return capture(lambda x, w: torch.nn.functional.gelu(x) * w, [torch.randn(6, 40), torch.randn(40)], name="gated")


def test_first_messages_hold_the_contract_the_soc_the_task_and_an_example():
    example = "// example kernel\n#include \"kernel_operator.h\"\n"
    system, user = first_messages(task(), get_soc("Ascend910B2"), example)
    assert system["role"] == "system" and user["role"] == "user"
    for text in ("ascendgen_tiling", "ascendgen_kernel", "GET_TILING_DATA", "32 bytes", "DataCopyPad",
                 "bfloat16", "Compare", "AllocTensor", "kernel_operator.h", "48 vector cores", "196608 bytes"):
        assert text in system["content"], text
    for text in ("Function `gated`", "in0: f32[s0, s1]", "in1: f32[s1]", "out0: f32[s0, s1]", "aten.gelu",
                 "in0=[6, 40]", "// example kernel", "one ```cpp block"):
        assert text in user["content"], text
    assert PROMPT_VERSION == "p2"


def test_the_310p_prompt_says_datacopypad_is_missing():
    system, _ = first_messages(task(), get_soc("Ascend310P3"), "")
    assert "DataCopyPad NOT available" in system["content"] and "8 vector cores" in system["content"]


def test_the_example_is_a_kernel_of_the_same_category():
    source = example_source(task())
    assert "ascendgen_kernel" in source and "GET_TILING_DATA" in source


def test_repair_and_optimise_messages_carry_the_failure_and_the_best_kernel():
    failure = "kernel.cpp:12:5: error: expected ';' before '}' token"
    for stage, lead in [("build", "does not compile"), ("screen", "rejected before it was built"),
                        ("simulator", "hardware rule"), ("verify", "results are wrong")]:
        message = repair_message(failure, stage)
        assert message["role"] == "user" and lead in message["content"] and failure in message["content"]
    message = optimise_message("// best kernel", 4207.2, "memory bound")
    assert "4,207 ns" in message["content"] and "// best kernel" in message["content"]
    assert "memory bound" in message["content"]


def test_traced_bytes_count_inputs_and_outputs():
    assert traced_bytes(task()) == (6 * 40 + 40 + 6 * 40) * 4
