// CANN's header of the high-level Matmul API (Matmul使用说明.md example): the basic API and sim/matmul.h.
#pragma once
#include "../kernel_operator.h"
#include "../sim/matmul.h"
