// The high-level Matmul API under the name its page lists (Matmul使用说明.md, 需要包含的头文件).
#pragma once
#include "../matmul_intf.h"
