// CANN's kernel_operator.h is split into headers such as this one, and some kernels include them by name. The
// simulator's API is one header: this forwards to it.
#pragma once
#include "../kernel_operator.h"
