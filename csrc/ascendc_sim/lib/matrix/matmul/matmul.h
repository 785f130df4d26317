// The Matmul class header public kernels include beside lib/matmul_intf.h.
#pragma once
#include "../../matmul_intf.h"
