// A CANN header some kernels include by name (next to kernel_operator.h); the simulator's API is one header.
#pragma once
#include "kernel_operator.h"
