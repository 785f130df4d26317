// torch_ascendgen's AscendC simulator: kernel_operator.h under the path newer toolkits install it at
// (`#include "ascendc/basic_api/kernel_operator.h"`).
#pragma once
#include "../../kernel_operator.h"
