// The kernel-side Matmul configuration header (MatmulConfig, Get*Config) public kernels include beside
// lib/matmul_intf.h.
#pragma once
#include "../../matmul_intf.h"
