// CANN's header of the high-level RmsNorm, which some kernels include by name; the simulator's API is one header.
#pragma once
#include "../../kernel_operator.h"
