"""torch_ascendgen: AscendC kernels for PyTorch functions, written on demand."""

from torch_ascendgen.errors import (
           AscendGenError,
           KernelArgumentError,
           KernelBuildError,
           KernelCrashError,
           KernelTimeoutError,
           SimulatorError,
)
from torch_ascendgen.frontends.decorator import AscendGenWarning, ascend_kernel
from torch_ascendgen.frontends.dynamo.report import last_report, reports
from torch_ascendgen.targets.soc import SOCS, SocProfile, get_soc
from torch_ascendgen.version import __version__

__all__ = ["ascend_kernel", "AscendGenWarning", "AscendGenError", "KernelArgumentError", "KernelBuildError",
           "KernelCrashError", "KernelTimeoutError", "SimulatorError", "SOCS", "SocProfile", "get_soc", "last_report",
           "reports", "__version__"]
