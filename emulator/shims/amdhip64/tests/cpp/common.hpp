// Shared by vmmkit's kernel-free HIP test programs: checks with exact codes,
// a socketpair to a re-executed child, byte and fd passing with deadlines.
// Host-only: compiled with g++ -D__HIP_PLATFORM_AMD__ against the HIP headers.
#pragma once

#include <hip/hip_runtime_api.h>

#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#define CHECK(call)                                                                                  \
    do {                                                                                             \
        hipError_t e_ = (call);                                                                      \
        if (e_ != hipSuccess) {                                                                      \
            std::fprintf(stderr, "%s:%d: %s returned %d %s\n", __FILE__, __LINE__, #call, (int)e_, \
                         hipGetErrorName(e_));                                                       \
            std::exit(1);                                                                            \
        }                                                                                            \
    } while (0)

#define EXPECT(call, want)                                                                            \
    do {                                                                                              \
        hipError_t e_ = (call);                                                                       \
        if (e_ != (want)) {                                                                           \
            std::fprintf(stderr, "%s:%d: %s returned %d %s, expected %d %s\n", __FILE__, __LINE__,  \
                         #call, (int)e_, hipGetErrorName(e_), (int)(want), hipGetErrorName(want));   \
            std::exit(1);                                                                             \
        }                                                                                             \
        std::printf("[INFO] %s -> %s\n", #call, hipGetErrorName(e_));                                \
    } while (0)

#define REQUIRE(cond, ...)                                                \
    do {                                                                  \
        if (!(cond)) {                                                    \
            std::fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond); \
            std::fprintf(stderr, __VA_ARGS__);                            \
            std::fprintf(stderr, "\n");                                   \
            std::exit(1);                                                 \
        }                                                                 \
    } while (0)

// Every wait has a deadline: a peer that hangs fails the test, it does not hang it.
static const int kTimeoutMs = 20000;

static inline void wait_readable(int fd) {
    pollfd p = {fd, POLLIN, 0};
    int n = poll(&p, 1, kTimeoutMs);
    REQUIRE(n == 1, "no message from the peer in %d ms", kTimeoutMs);
}

static inline void send_all(int fd, const void* buf, size_t n) {
    const char* p = static_cast<const char*>(buf);
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        REQUIRE(w > 0, "send: %s", std::strerror(errno));
        p += w;
        n -= static_cast<size_t>(w);
    }
}

static inline void recv_all(int fd, void* buf, size_t n) {
    char* p = static_cast<char*>(buf);
    while (n > 0) {
        wait_readable(fd);
        ssize_t r = recv(fd, p, n, 0);
        REQUIRE(r > 0, "the peer closed the socket (%s)", r < 0 ? std::strerror(errno) : "EOF");
        p += r;
        n -= static_cast<size_t>(r);
    }
}

static inline void send_byte(int fd, char c) { send_all(fd, &c, 1); }

static inline void expect_byte(int fd, char want) {
    char c = 0;
    recv_all(fd, &c, 1);
    REQUIRE(c == want, "expected marker '%c', got '%c'", want, c);
}

// Sends `fd` with one byte of data (SCM_RIGHTS).
static inline void send_fd(int sock, int fd) {
    char byte = 'F';
    iovec iov = {&byte, 1};
    alignas(cmsghdr) char space[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = space;
    msg.msg_controllen = sizeof space;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
    REQUIRE(sendmsg(sock, &msg, MSG_NOSIGNAL) == 1, "sendmsg: %s", std::strerror(errno));
}

// Receives an fd sent by send_fd; its number may differ from the sender's (HIP-VMM-031).
static inline int recv_fd(int sock) {
    wait_readable(sock);
    char byte = 0;
    iovec iov = {&byte, 1};
    alignas(cmsghdr) char space[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = space;
    msg.msg_controllen = sizeof space;
    REQUIRE(recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) == 1 && byte == 'F', "recvmsg: %s", std::strerror(errno));
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    REQUIRE(c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS, "no SCM_RIGHTS in the message");
    int fd = -1;
    std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

// Starts this program again as `child <fd>` over a socketpair (the model of
// ROCm/hrx-system's IPC test: fork + exec of /proc/self/exe). Returns the
// parent's end; *pid gets the child.
static inline int spawn_child(const char* argv0, pid_t* pid) {
    int sv[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0, "socketpair: %s", std::strerror(errno));
    pid_t p = fork();
    REQUIRE(p >= 0, "fork: %s", std::strerror(errno));
    if (p == 0) {
        int fd = dup(sv[1]);  // without CLOEXEC, for the exec'd child
        std::string arg = std::to_string(fd);
        execl("/proc/self/exe", argv0, "child", arg.c_str(), static_cast<char*>(nullptr));
        std::_Exit(127);
    }
    close(sv[1]);
    *pid = p;
    return sv[0];
}

// Waits for the child (deadline) and requires exit status 0: several
// hip-tests never check it (hip.md §5); these programs always do.
static inline void reap(pid_t pid) {
    for (int waited = 0; waited < kTimeoutMs; waited += 10) {
        int status = 0;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child failed (status %#x)", status);
            return;
        }
        usleep(10 * 1000);
    }
    kill(pid, SIGKILL);
    REQUIRE(false, "the child did not exit in %d ms", kTimeoutMs);
}

static inline unsigned char pattern(size_t i, unsigned seed) { return static_cast<unsigned char>(i * 31 + seed); }
