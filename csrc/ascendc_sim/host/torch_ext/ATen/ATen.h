// The simulator's stand-in for this header of a torch C++ extension: see ../ascendc_sim_torch.h.
#pragma once
#include "../ascendc_sim_torch.h"
