// torch_ascendgen's AscendC simulator: the list-tensor API (ListTensorDesc, TensorDesc), which AscendC kernels
// include by this name.
#pragma once
#include "kernel_operator.h"
#include "sim/list_tensor.h"
