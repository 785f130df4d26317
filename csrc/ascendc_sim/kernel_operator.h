// torch_ascendgen's AscendC simulator: a clean-room CPU implementation of the AscendC kernel API,
// written from its public documentation, so that AscendC kernels compile with g++ and run on the CPU.
#pragma once
#include "sim/types.h"
#include "sim/diagnostics.h"
#include "sim/core.h"
#include "sim/tensor.h"
#include "sim/pipe.h"
#include "sim/data_copy.h"
#include "sim/data_move.h"
#include "sim/vector_ops.h"
#include "sim/cast.h"
#include "sim/compare_select.h"
#include "sim/reduce.h"
#include "sim/activation.h"
#include "sim/math_ops.h"
#include "sim/tiling.h"
#include "sim/std_utils.h"
#include "sim/debug.h"
// Kernel launch and host code (issue 14): static tensor programming.
#include "sim/static_tensor.h"
