// vmmkit's own host-only stand-ins for what hip-tests' memory-pool cases
// take from catch/unit/memory/mempool_common.hh and
// catch/include/resource_guards.hh (issue 18). Only the pieces the
// kernel-free cases listed in tests/hip_tests.rs use are here; written from
// how those cases call them, not copied:
//   - checkMempoolSupported(dev): skip (return) unless attribute
//     hipDeviceAttributeMemoryPoolsSupported (88) is non-zero;
//   - checkIfMultiDev(n): skip unless n >= 2;
//   - MemPools / MemPoolGuard: the device's default pool, or a created pinned
//     device pool (with the given handle types), destroyed at scope end;
//   - hipShareableHdl: where a case keeps a pool's POSIX fd; an int64_t, as
//     hip-tests declares it on AMD, of which the export writes only the low int
//     (clr's import reads the low 32 bits back, hip_mempool.cpp:423-430);
//   - kPageSize: in hip_test_common.hh;
//   - CHECK_IMAGE_SUPPORT: return (skip) unless the current device answers
//     hipDeviceAttributeImageSupport with non-zero, as hip-tests' does;
//   - checkSysCallErrors(r): exit the process with a failure when r is -1;
//   - ipcSocketCom: passes an fd from one process to another (SCM_RIGHTS on
//     a datagram socket per process, named by its pid in Linux's abstract
//     namespace, so no file is left behind): ipcSocketCom(true) in the
//     sender, ipcSocketCom(false) in the receiver, sendShareableHdl(fd, pid)
//     to the receiver's pid, recvShareableHdl(&fd), closeThisSock();
//   - Streams / StreamGuard: the null stream, hipStreamPerThread, or a created
//     stream, destroyed at scope end.
// No kernel-launching helper is provided: a case that launches a kernel is
// not in the list (the harness documents which and why).
#pragma once

#include "hip_test_common.hh"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

#define checkMempoolSupported(device)                                                              \
    {                                                                                              \
        int vmmkit_pools = 0;                                                                      \
        HIP_CHECK(hipDeviceGetAttribute(&vmmkit_pools, hipDeviceAttributeMemoryPoolsSupported,     \
                                        device));                                                  \
        if (vmmkit_pools == 0) {                                                                   \
            HipTest::HIP_SKIP_TEST("no memory pools");                                             \
            return;                                                                                \
        }                                                                                          \
    }

#define checkIfMultiDev(count)                                                                     \
    {                                                                                              \
        if ((count) < 2) {                                                                         \
            HipTest::HIP_SKIP_TEST("one device");                                                  \
            return;                                                                                \
        }                                                                                          \
    }

typedef int64_t hipShareableHdl;

#define CHECK_IMAGE_SUPPORT                                                                        \
    {                                                                                              \
        int vmmkit_dev = 0, vmmkit_images = 0;                                                     \
        HIP_CHECK(hipGetDevice(&vmmkit_dev));                                                      \
        HIP_CHECK(hipDeviceGetAttribute(&vmmkit_images, hipDeviceAttributeImageSupport, vmmkit_dev)); \
        if (vmmkit_images == 0) {                                                                  \
            HipTest::HIP_SKIP_TEST("no image support");                                            \
            return;                                                                                \
        }                                                                                          \
    }

#define checkSysCallErrors(result)                                                                 \
    {                                                                                              \
        if ((result) == -1) {                                                                      \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #result,            \
                         std::strerror(errno));                                                    \
            std::exit(EXIT_FAILURE);                                                               \
        }                                                                                          \
    }

// One datagram socket per process, bound to "\0vmmkit-hip-tests-<pid>".
class ipcSocketCom {
   public:
    explicit ipcSocketCom(bool /*sender*/) {
        fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        sockaddr_un me = address(getpid());
        if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&me), sizeof(me)) != 0) {
            vmmkit_catch::fail(__FILE__, __LINE__, std::string("socket: ") + std::strerror(errno));
        }
    }
    ipcSocketCom(const ipcSocketCom&) = delete;
    ipcSocketCom& operator=(const ipcSocketCom&) = delete;
    ~ipcSocketCom() { closeThisSock(); }

    int sendShareableHdl(hipShareableHdl handle, pid_t to) {
        int fd = static_cast<int>(handle);
        char byte = 0;
        iovec iov{&byte, 1};
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
        sockaddr_un peer = address(to);
        msghdr msg{};
        msg.msg_name = &peer;
        msg.msg_namelen = sizeof(peer);
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof(control);
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
        return sendmsg(fd_, &msg, 0) == 1 ? 0 : -1;
    }

    int recvShareableHdl(hipShareableHdl* handle) {
        char byte = 0;
        iovec iov{&byte, 1};
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof(control);
        if (recvmsg(fd_, &msg, MSG_CMSG_CLOEXEC) != 1) return -1;
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        if (c == nullptr || c->cmsg_type != SCM_RIGHTS) return -1;
        int fd = -1;
        std::memcpy(&fd, CMSG_DATA(c), sizeof(int));
        *handle = fd;
        return 0;
    }

    int closeThisSock() {
        int rc = fd_ < 0 ? 0 : close(fd_);
        fd_ = -1;
        return rc;
    }

   private:
    static sockaddr_un address(pid_t pid) {
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        std::snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "vmmkit-hip-tests-%d", static_cast<int>(pid));
        return a;
    }
    int fd_ = -1;
};

enum class MemPools { dev_default, created };

class MemPoolGuard {
   public:
    MemPoolGuard(MemPools kind, int device, hipMemAllocationHandleType handles = hipMemHandleTypeNone)
        : kind_(kind) {
        if (kind == MemPools::dev_default) {
            HIP_CHECK(hipDeviceGetDefaultMemPool(&pool_, device));
            return;
        }
        hipMemPoolProps props{};
        props.allocType = hipMemAllocationTypePinned;
        props.handleTypes = handles;
        props.location.type = hipMemLocationTypeDevice;
        props.location.id = device;
        HIP_CHECK(hipMemPoolCreate(&pool_, &props));
    }
    MemPoolGuard(const MemPoolGuard&) = delete;
    MemPoolGuard& operator=(const MemPoolGuard&) = delete;
    ~MemPoolGuard() {
        if (kind_ == MemPools::created) {
            (void)hipMemPoolDestroy(pool_);
        } else {
            // A default pool outlives the case: its high-water marks are reset
            // so the next case starts from zero.
            uint64_t zero = 0;
            (void)hipMemPoolSetAttribute(pool_, hipMemPoolAttrReservedMemHigh, &zero);
            (void)hipMemPoolSetAttribute(pool_, hipMemPoolAttrUsedMemHigh, &zero);
        }
    }
    hipMemPool_t mempool() const { return pool_; }

   private:
    MemPools kind_;
    hipMemPool_t pool_ = nullptr;
};

enum class Streams { nullstream, perThread, created, withFlags, withPriority };

class StreamGuard {
   public:
    explicit StreamGuard(Streams kind, unsigned int flags = hipStreamDefault, int priority = 0) : kind_(kind) {
        switch (kind) {
            case Streams::nullstream:
                break;
            case Streams::perThread:
                stream_ = hipStreamPerThread;
                break;
            case Streams::created:
                HIP_CHECK(hipStreamCreate(&stream_));
                break;
            case Streams::withFlags:
                HIP_CHECK(hipStreamCreateWithFlags(&stream_, flags));
                break;
            case Streams::withPriority:
                HIP_CHECK(hipStreamCreateWithPriority(&stream_, flags, priority));
                break;
        }
    }
    StreamGuard(const StreamGuard&) = delete;
    StreamGuard& operator=(const StreamGuard&) = delete;
    ~StreamGuard() {
        if (owned() && stream_ != nullptr) (void)hipStreamDestroy(stream_);
    }
    hipStream_t stream() const { return stream_; }

   private:
    bool owned() const {
        return kind_ == Streams::created || kind_ == Streams::withFlags || kind_ == Streams::withPriority;
    }
    Streams kind_;
    hipStream_t stream_ = nullptr;
};
