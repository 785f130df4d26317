// Hardware-rule violations. Each is raised as a SimError naming the rule, the kernel source line
// that broke it and what to do instead; the launcher hands the first one to Python.
#pragma once
#include <cstdarg>
#include <cstdio>
#include <string>

namespace ascendc_sim {

// Where an API call was made in the kernel source. Every public API function takes one as a
// defaulted last parameter, so the location is the caller's line, not the simulator's.
struct Loc {
    const char* file = "";
    int line = 0;
    static Loc here(const char* file = __builtin_FILE(), int line = __builtin_LINE()) { return {file, line}; }
};

#define ASCENDC_SIM_DIAGNOSTICS(X)                                                           \
    X(UbOverflow, "ub_overflow")                                                            \
    X(TooManyBuffers, "too_many_buffers")                                                   \
    X(DataCopyAlignment, "datacopy_alignment")                                              \
    X(UbMisaligned, "ub_misaligned")                                                        \
    X(GmOutOfBounds, "gm_out_of_bounds")                                                    \
    X(LocalOverrun, "local_overrun")                                                        \
    X(QueueAllocExhausted, "queue_alloc_exhausted")                                         \
    X(QueueEmptyDeque, "queue_empty_deque")                                                 \
    X(QueueForeignTensor, "queue_foreign_tensor")                                           \
    X(QueueTensorLeak, "queue_tensor_leak")                                                 \
    X(QueueDepthExceeded, "queue_depth_exceeded")                                           \
    X(UnpairedFlag, "unpaired_flag")                                                        \
    X(PipeRace, "pipe_race")                                                                \
    X(RepeatOverflow, "repeat_overflow")                                                    \
    X(BadMask, "bad_mask")                                                                  \
    X(UnsupportedDtype, "unsupported_dtype")                                                \
    X(UnsupportedApi, "unsupported_api")                                                    \
    X(CompareCount, "compare_count")                                                        \
    X(GmWriteRace, "gm_write_race")                                                         \
    X(SyncAllDeadlock, "sync_all_deadlock")                                                 \
    X(BadArgument, "bad_argument")                                                          \
    X(TilingSize, "tiling_size")                                                            \
    X(NotInKernel, "not_in_kernel")                                                        \
    X(LocalMemoryOverflow, "local_memory_overflow")                                         \
    X(WrongCore, "wrong_core")                                                              \
    X(CubeAlignment, "cube_alignment")                                                      \
    X(CubeDtype, "cube_dtype")

enum class Diag {
#define ASCENDC_SIM_DIAG_ENUM(id, name) id,
    ASCENDC_SIM_DIAGNOSTICS(ASCENDC_SIM_DIAG_ENUM)
#undef ASCENDC_SIM_DIAG_ENUM
};

inline const char* diag_name(Diag kind) {
    switch (kind) {
#define ASCENDC_SIM_DIAG_NAME(id, name) \
    case Diag::id:                      \
        return name;
        ASCENDC_SIM_DIAGNOSTICS(ASCENDC_SIM_DIAG_NAME)
#undef ASCENDC_SIM_DIAG_NAME
    }
    return "unknown";
}

struct SimError {
    Diag kind;
    std::string message;
    Loc loc;
};

// Thrown in the other cores once one core has failed, so that the launch stops quickly.
struct KernelAborted {};

[[noreturn]] inline void fail(Diag kind, Loc loc, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
inline void fail(Diag kind, Loc loc, const char* fmt, ...) {
    char text[1536];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    throw SimError{kind, text, loc};
}

}  // namespace ascendc_sim
