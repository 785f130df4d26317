/*
 * escape: a kernel that tries to leave the sandbox of the child that runs it, one way per mode
 * (tests/test_sandbox_escape.py). The C library is reached through extern "C" declarations, as a
 * model's reply did, not through headers a screen could look for.
 *
 * marker: the NUL-terminated path of a file outside the child's scratch directory; any escape that
 * works creates it (the test asserts that it does not exist). result: four int64, what the attempt
 * returned and its errno, then a second attempt's. Every mode is safe to run without a sandbox (the
 * control test does): nothing is aimed at anything but the marker, a local port, or the parent.
 */
#include "kernel_operator.h"

extern "C" {
int execve(const char *path, char *const argv[], char *const envp[]);
int posix_spawnp(int *pid, const char *file, const void *actions, const void *attr, char *const argv[],
                 char *const envp[]);
int system(const char *command);
int open(const char *path, int flags, ...);
int open64(const char *path, int flags, ...);
int creat64(const char *path, unsigned mode);
long write(int fd, const void *data, unsigned long size);
int close(int fd);
int socket(int domain, int type, int protocol);
int connect(int fd, const void *address, unsigned size);
int fork(void);
int waitpid(int pid, int *status, int options);
void _exit(int status);
int pause(void);
int kill(int pid, int sig);
int getppid(void);
int prlimit(int pid, int resource, const void *limit, void *old);
int setsid(void);
unsigned sleep(unsigned seconds);
int snprintf(char *buffer, unsigned long size, const char *format, ...);
extern char **environ;
}

enum Mode : uint32_t {
    EXECVE = 1,        // /bin/sh -c 'touch marker', replacing the process
    POSIX_SPAWNP = 2,  // the same in a new process
    SYSTEM = 3,
    OPEN = 4,          // open + write
    OPEN64 = 5,
    CREAT64 = 6,
    CONNECT = 7,       // a TCP connection to 127.0.0.1:port (the test listens there)
    FORK = 8,          // 64 forks, each child writing the marker
    THREADS = 9,       // threads created in a loop, for ever
    KILL_PARENT = 10,  // prlimit(RLIMIT_CORE) then SIGKILL on the parent
    DAEMON = 11,       // setsid, then a forked child that leaves the session and writes the marker later
};

struct TilingData {
    uint32_t mode;
    uint32_t port;
};

static const int O_WRONLY_ = 01, O_CREAT_ = 0100, O_TRUNC_ = 01000, AF_INET_ = 2, SOCK_STREAM_ = 1;

static void Record(int64_t *result, int slot, long value)
{
    result[slot] = value;
    result[slot + 1] = value < 0 ? errno : 0;
}

static long WriteMarker(int fd)
{
    if (fd < 0) return fd;
    long written = write(fd, "escaped\n", 8);
    close(fd);
    return written;
}

static void *Sleeper(void *)
{
    pause();
    return nullptr;
}

extern "C" __global__ __aicore__ void escape(GM_ADDR marker, GM_ADDR result, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    const char *path = (const char *)marker;
    int64_t *out = (int64_t *)result;
    char command[600];
    snprintf(command, sizeof(command), "touch '%s'", path);
    char sh[] = "/bin/sh", dash_c[] = "-c";
    char *argv[] = {sh, dash_c, command, nullptr};
    int pid = 0;
    switch (t.mode) {
    case EXECVE: Record(out, 0, execve("/bin/sh", argv, environ)); break;
    case POSIX_SPAWNP: {
        int error = posix_spawnp(&pid, "sh", nullptr, nullptr, argv, environ);
        out[0] = error;
        out[1] = error;
        if (!error) waitpid(pid, nullptr, 0);
        break;
    }
    case SYSTEM: Record(out, 0, system(command)); break;
    case OPEN: Record(out, 0, WriteMarker(open(path, O_WRONLY_ | O_CREAT_ | O_TRUNC_, 0644))); break;
    case OPEN64: Record(out, 0, WriteMarker(open64(path, O_WRONLY_ | O_CREAT_ | O_TRUNC_, 0644))); break;
    case CREAT64: Record(out, 0, WriteMarker(creat64(path, 0644))); break;
    case CONNECT: {
        int fd = socket(AF_INET_, SOCK_STREAM_, 0);
        Record(out, 0, fd);
        struct { uint16_t family, port; uint8_t address[4]; uint8_t zero[8]; } to = {
            (uint16_t)AF_INET_, (uint16_t)((t.port >> 8) | ((t.port & 0xff) << 8)), {127, 0, 0, 1}, {}};
        if (fd >= 0) Record(out, 2, connect(fd, &to, sizeof(to)));
        break;
    }
    case FORK: {
        long started = 0;
        for (int i = 0; i < 64; ++i) {
            int child = fork();
            if (child == 0) _exit(WriteMarker(open(path, O_WRONLY_ | O_CREAT_ | O_TRUNC_, 0644)) < 0);
            if (child < 0) Record(out, 0, child);
            else ++started, waitpid(child, nullptr, 0);
        }
        out[2] = started;
        break;
    }
    case THREADS:
        for (;;) {
            pthread_t thread;
            pthread_create(&thread, nullptr, Sleeper, nullptr);
        }
    case KILL_PARENT: {
        long limit[2] = {12345, 12345};
        Record(out, 0, prlimit(getppid(), 4 /* RLIMIT_CORE */, limit, nullptr));
        Record(out, 2, kill(getppid(), 9 /* SIGKILL */));
        break;
    }
    case DAEMON: {
        Record(out, 0, setsid());  // fails anyway: the child leads its session already
        int child = fork();
        if (child == 0) {
            setsid();
            sleep(1);  // outlives the run: the process group the caller kills is no longer its own
            _exit(WriteMarker(open(path, O_WRONLY_ | O_CREAT_ | O_TRUNC_, 0644)) < 0);
        }
        Record(out, 2, child);
        break;
    }
    default: break;
    }
}
