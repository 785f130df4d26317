"""Capture: a PyTorch function and example inputs -> a KernelTask (a core-ATen graph and specs).

``trace.py`` traces the function and describes it (symbolic sizes, guards, constants), ``collapse.py`` merges the
dimensions a computation treats alike, ``domains.py`` finds the sizes integer inputs index into, ``sizes.py`` writes
and evaluates size text, ``task.py`` holds what they give.
"""

from torch_ascendgen.capture.task import CallPattern, KernelTask, TensorSpec, ValueDomain, value_domain
from torch_ascendgen.capture.trace import capture

__all__ = ["CallPattern", "KernelTask", "TensorSpec", "ValueDomain", "capture", "value_domain"]
