/*
 * escape_at_load: escapes tried while the library loads, before any kernel runs: a function marked
 * __attribute__((constructor)) and the constructor of a global object (tests/test_sandbox_escape.py).
 * They write markers in $TORCH_ASCENDGEN_ESCAPE_DIR (outside the child's scratch directory); the kernel
 * reports what each attempt returned: result[2 * i] the value, result[2 * i + 1] the errno.
 */
#include "kernel_operator.h"

extern "C" {
int posix_spawnp(int *pid, const char *file, const void *actions, const void *attr, char *const argv[],
                 char *const envp[]);
int system(const char *command);
int open64(const char *path, int flags, ...);
int creat64(const char *path, unsigned mode);
long write(int fd, const void *data, unsigned long size);
int close(int fd);
int waitpid(int pid, int *status, int options);
char *getenv(const char *name);
int snprintf(char *buffer, unsigned long size, const char *format, ...);
extern char **environ;
}

static int64_t g_attempts[8];

static void Record(int slot, long value)
{
    g_attempts[2 * slot] = value;
    g_attempts[2 * slot + 1] = value < 0 ? errno : 0;
}

static long WriteMarker(int fd)
{
    if (fd < 0) return fd;
    long written = write(fd, "escaped\n", 8);
    close(fd);
    return written;
}

__attribute__((constructor)) static void EscapeFromConstructor()
{
    const char *dir = getenv("TORCH_ASCENDGEN_ESCAPE_DIR");
    if (!dir) return;
    char path[600], command[700];
    snprintf(path, sizeof(path), "%s/constructor-open64", dir);
    Record(0, WriteMarker(open64(path, 01 | 0100 | 01000, 0644)));
    snprintf(command, sizeof(command), "touch '%s/constructor-posix_spawnp'", dir);
    char sh[] = "sh", dash_c[] = "-c";
    char *argv[] = {sh, dash_c, command, nullptr};
    int pid = 0;
    int error = posix_spawnp(&pid, "sh", nullptr, nullptr, argv, environ);
    g_attempts[2] = g_attempts[3] = error;
    if (!error) waitpid(pid, nullptr, 0);
}

struct EscapeFromGlobal {
    EscapeFromGlobal()
    {
        const char *dir = getenv("TORCH_ASCENDGEN_ESCAPE_DIR");
        if (!dir) return;
        char path[600], command[700];
        snprintf(command, sizeof(command), "touch '%s/global-system'", dir);
        Record(2, system(command));
        snprintf(path, sizeof(path), "%s/global-creat64", dir);
        Record(3, WriteMarker(creat64(path, 0644)));
    }
};
static EscapeFromGlobal g_escape;

extern "C" __global__ __aicore__ void escape_at_load(GM_ADDR result)
{
    int64_t *out = (int64_t *)result;
    for (int i = 0; i < 8; ++i) out[i] = g_attempts[i];
}
