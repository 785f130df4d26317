// The ASCENDC_DUMP switch (printf.md, DumpTensor.md, assert.md, ascendc_assert.md): a kernel built with ASCENDC_DUMP
// defined as 0 prints nothing and checks no assert. The simulator's headers are precompiled before the kernel's
// text, so they cannot test the macro themselves; this header is included by every kernel build's export shim after
// the kernel (build.py EXPORT_SHIM, not precompiled) and, when the kernel has set the switch off, defines the flag
// that sim/debug.h declares weak. The macro reaches it from the kernel source (`#define ASCENDC_DUMP 0`); the option
// the pages give (-DASCENDC_DUMP=0 in a project's CMake files) is not read by the simulator's builds.
#pragma once

#if defined(ASCENDC_DUMP) && (ASCENDC_DUMP + 0) == 0
extern "C" const int ascendc_sim_dump_off = 1;
#endif
