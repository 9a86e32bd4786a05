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
//   - hipShareableHdl: what a pool's POSIX file-descriptor export writes (an int);
//   - Streams / StreamGuard: the null stream, hipStreamPerThread, or a created
//     stream, destroyed at scope end.
// No kernel-launching helper is provided: a case that launches a kernel is
// not in the list (the harness documents which and why).
#pragma once

#include "hip_test_common.hh"

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

typedef int hipShareableHdl;

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
