// Two processes share one device buffer through HIP IPC, without a kernel.
//
// The parent allocates with hipMalloc, writes 123, exports the buffer
// (hipIpcGetMemHandle) and starts this program again as its child, passing
// the 64-byte handle over a socketpair. The child opens the handle
// (hipIpcOpenMemHandle), reads 123, writes 456 and closes it; the parent
// then reads 456. Exit status 0 when both sides agree.
//
//   g++ -D__HIP_PLATFORM_AMD__ -I"$HIP_INCLUDE" -o ipc_pair ipc_pair.cpp -L target/release -lamdhip64
//   VMMKIT_ROOT=$(mktemp -d) LD_LIBRARY_PATH=target/release ./ipc_pair
//
// It runs unchanged on an AMD GPU with ROCm's libamdhip64.
#include <hip/hip_runtime_api.h>

#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

static const int kFirst = 123;
static const int kSecond = 456;
static const int kTimeoutMs = 20000;  // a peer that hangs fails the program, it does not hang it

static void check(hipError_t e, const char* call, const char* who) {
    if (e != hipSuccess) {
        std::fprintf(stderr, "%s: %s returned %d %s\n", who, call, (int)e, hipGetErrorName(e));
        std::exit(1);
    }
}
#define CHECK(who, call) check((call), #call, who)

static void fail(const char* who, const char* what) {
    std::fprintf(stderr, "%s: %s (%s)\n", who, what, std::strerror(errno));
    std::exit(1);
}

// Reads exactly n bytes from fd, waiting at most kTimeoutMs for each part.
static void read_all(int fd, void* buf, size_t n, const char* who) {
    char* p = static_cast<char*>(buf);
    while (n > 0) {
        pollfd pfd = {fd, POLLIN, 0};
        if (poll(&pfd, 1, kTimeoutMs) != 1) fail(who, "no message from the other process");
        ssize_t r = read(fd, p, n);
        if (r <= 0) fail(who, "the other process closed the socket");
        p += r;
        n -= static_cast<size_t>(r);
    }
}

static void write_all(int fd, const void* buf, size_t n, const char* who) {
    if (write(fd, buf, n) != static_cast<ssize_t>(n)) fail(who, "write to the socket");
}

static int child(int sock) {
    const char* who = "child";
    hipIpcMemHandle_t handle;
    read_all(sock, &handle, sizeof handle, who);
    void* p = nullptr;
    CHECK(who, hipIpcOpenMemHandle(&p, handle, hipIpcMemLazyEnablePeerAccess));
    int value = 0;
    CHECK(who, hipMemcpy(&value, p, sizeof value, hipMemcpyDeviceToHost));
    std::printf("child: opened the parent's buffer at %p, read %d\n", p, value);
    if (value != kFirst) {
        std::fprintf(stderr, "child: expected %d\n", kFirst);
        return 1;
    }
    CHECK(who, hipMemcpy(p, &kSecond, sizeof kSecond, hipMemcpyHostToDevice));
    std::printf("child: wrote %d\n", kSecond);
    CHECK(who, hipIpcCloseMemHandle(p));
    write_all(sock, "W", 1, who);  // written and closed: the parent may look
    std::printf("child: closed the handle\nchild: ok\n");
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 3 && std::strcmp(argv[1], "child") == 0) return child(std::atoi(argv[2]));
    const char* who = "parent";
    CHECK(who, hipSetDevice(0));
    void* p = nullptr;
    CHECK(who, hipMalloc(&p, 1 << 20));
    CHECK(who, hipMemcpy(p, &kFirst, sizeof kFirst, hipMemcpyHostToDevice));
    hipIpcMemHandle_t handle;
    CHECK(who, hipIpcGetMemHandle(&handle, p));
    std::printf("parent: allocated %p, wrote %d, exported a %zu-byte handle\n", p, kFirst, sizeof handle);

    // The child is this program again (fork + exec, as with an unrelated
    // process), given its end of the socketpair by number.
    std::fflush(stdout);  // or the child inherits what is still buffered
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) fail(who, "socketpair");
    pid_t pid = fork();
    if (pid < 0) fail(who, "fork");
    if (pid == 0) {
        int fd = dup(sv[1]);  // without CLOEXEC, so it survives the exec
        std::string arg = std::to_string(fd);
        execl("/proc/self/exe", argv[0], "child", arg.c_str(), static_cast<char*>(nullptr));
        std::_Exit(127);
    }
    close(sv[1]);
    write_all(sv[0], &handle, sizeof handle, who);
    char done = 0;
    read_all(sv[0], &done, 1, who);
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) fail(who, "waitpid");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "parent: the child failed (status %#x)\n", status);
        return 1;
    }
    int value = 0;
    CHECK(who, hipMemcpy(&value, p, sizeof value, hipMemcpyDeviceToHost));
    std::printf("parent: reads %d\n", value);
    CHECK(who, hipFree(p));
    if (value != kSecond) {
        std::fprintf(stderr, "parent: expected %d from the child\n", kSecond);
        return 1;
    }
    std::printf("parent: ok (the child's write arrived through the shared buffer)\n");
    return 0;
}
