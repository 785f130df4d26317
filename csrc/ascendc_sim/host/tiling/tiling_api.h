// The high-level APIs' host tiling in one include, under the name an operator project's op_host code uses
// ("tiling/tiling_api.h" with the host directory on the include path). The helpers take AscendC::tiling::*
// structs; an op_host TilingData declares them with TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, ...) inside
// namespace optiling, so the struct names are also visible there (and globally, from the sim/*_tiling.h headers).
#pragma once
#include "cumsum_tiling.h"
#include "glu_tiling.h"
#include "matmul_tiling.h"
#include "norm_tiling.h"
#include "pad_tiling.h"
#include "precise_math_tiling.h"
#include "quant_tiling.h"
#include "select_tiling.h"
#include "softmax_tiling.h"
#include "transpose_tiling.h"
#include "welford_tiling.h"
#if __has_include("sort_reduce_tiling.h")
#include "sort_reduce_tiling.h"
#endif

namespace optiling {
using AscendC::tiling::BatchNormTiling;
using AscendC::tiling::DeepNormTiling;
using AscendC::tiling::GroupNormTiling;
using AscendC::tiling::LayerNormGradBetaTiling;
using AscendC::tiling::LayerNormGradTiling;
using AscendC::tiling::LayerNormSeparateTiling;
using AscendC::tiling::LayerNormTiling;
using AscendC::tiling::LogSoftMaxTiling;
using AscendC::tiling::RmsNormTiling;
using AscendC::tiling::SoftMaxTiling;
}  // namespace optiling
