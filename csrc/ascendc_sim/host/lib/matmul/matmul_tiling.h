// The single-core Matmul tiling header an op_host file includes (Matmul-Tiling类使用说明.md); one header here.
#pragma once
#include "../../tiling/matmul_tiling.h"
