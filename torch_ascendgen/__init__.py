"""torch_ascendgen: AscendC kernels for PyTorch functions, written on demand."""

__version__ = "0.1.0"  # before the imports: the cache key reads it

from .api import AscendGenWarning, ascend_kernel
from .errors import (AscendGenError, KernelArgumentError, KernelBuildError, KernelCrashError, KernelTimeoutError,
                     SimulatorError)
from .soc import SOCS, SocProfile, get_soc


__all__ = ["ascend_kernel", "AscendGenWarning", "AscendGenError", "KernelArgumentError", "KernelBuildError", "KernelCrashError", "KernelTimeoutError",
           "SimulatorError", "SOCS", "SocProfile", "get_soc", "__version__"]
