// The multi-core Matmul tiling header (Matmul-Tiling类使用说明.md), for a tiling header compiled into a kernel.
#pragma once
#include "../../host/tiling/matmul_tiling.h"
