"""torch_ascendgen: AscendC kernels for PyTorch functions, written on demand."""

from .errors import (AscendGenError, KernelArgumentError, KernelBuildError, KernelCrashError, KernelTimeoutError,
                     SimulatorError)
from .soc import SOCS, SocProfile, get_soc

__version__ = "0.1.0"

__all__ = ["AscendGenError", "KernelArgumentError", "KernelBuildError", "KernelCrashError", "KernelTimeoutError",
           "SimulatorError", "SOCS", "SocProfile", "get_soc", "__version__"]
