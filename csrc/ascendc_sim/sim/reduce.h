// (being written)
#pragma once
#include "vector_ops.h"
