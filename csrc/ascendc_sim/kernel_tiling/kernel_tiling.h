// A CANN header kernels include by name for the high-level APIs' tiling structs (RmsNormTiling, SoftMaxTiling...).
// The simulator declares those structs with the APIs in its one header: this forwards to it.
#pragma once
#include "../kernel_operator.h"
