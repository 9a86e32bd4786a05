// vmmkit's host-side stand-ins for the kernel-free helpers of hip-tests'
// headers that the whole-selection runner (tests/hip_tests_selection.rs)
// builds cases against: the threaded checks and the zig-zag thread test of
// hip_test_common.hh and threaded_zig_zag_test.hh, the attribute queries and
// array checks of utils.hh, the array set-up of hip_test_checkers.hh and
// hip_test_helper.hh, the allocation guards of resource_guards.hh, the
// process helper of hip_test_process.hh, the stream checks of the stream
// tests' streamCommon.hh and the kernel-free copy checks of
// memcpy1d_tests_common.hh. Written for vmmkit from the names and the
// documented behaviour the cases rely on; none of them launches a kernel.
#pragma once

#include "hip_test_common.hh"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <cinttypes>
#include <fcntl.h>
#include <semaphore.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <variant>

// ---- Checks made on other threads ---------------------------------------
// A failure on a thread is kept (the first one), later checks on any thread
// return at once, and HIP_CHECK_THREAD_FINALIZE, on the case's thread after
// the others have joined, fails the case with it.
namespace vmmkit_threads {
inline std::mutex& lock() {
    static std::mutex m;
    return m;
}
inline std::string& first_failure() {
    static std::string s;
    return s;
}
inline bool failed() {
    std::lock_guard<std::mutex> g(lock());
    return !first_failure().empty();
}
inline void note(const char* file, int line, const std::string& what) {
    std::lock_guard<std::mutex> g(lock());
    if (first_failure().empty()) first_failure() = std::string(file) + ":" + std::to_string(line) + ": " + what;
}
inline void finalize(const char* file, int line) {
    std::string why;
    {
        std::lock_guard<std::mutex> g(lock());
        why.swap(first_failure());
    }
    if (!why.empty()) vmmkit_catch::fail(file, line, "on a thread: " + why);
}
}  // namespace vmmkit_threads

#define HIP_CHECK_THREAD(call)                                                                       \
    {                                                                                                \
        if (vmmkit_threads::failed()) return;                                                        \
        hipError_t vmmkit_te = (call);                                                               \
        if (vmmkit_te != hipSuccess) {                                                               \
            vmmkit_threads::note(__FILE__, __LINE__,                                                 \
                                 std::string(#call " returned ") + hipGetErrorName(vmmkit_te));      \
        }                                                                                            \
    }
#define REQUIRE_THREAD(cond)                                                                         \
    {                                                                                                \
        if (vmmkit_threads::failed()) return;                                                        \
        if (!(cond)) vmmkit_threads::note(__FILE__, __LINE__, "REQUIRE_THREAD(" #cond ") failed");   \
    }
#define HIP_CHECK_THREAD_FINALIZE() vmmkit_threads::finalize(__FILE__, __LINE__)

// An expected error ends the case quietly (hip-tests' way of skipping what a
// platform does not support); any other failure but an enabled peer fails it.
#define HIP_CHECK_IGNORED_RETURN(call, ignored)                                                      \
    {                                                                                                \
        hipError_t vmmkit_ie = (call);                                                               \
        if (vmmkit_ie == (ignored)) {                                                                \
            std::printf("  skipped: %s gave %s\n", #call, hipGetErrorName(vmmkit_ie));              \
            return;                                                                                  \
        }                                                                                            \
        if (vmmkit_ie != hipSuccess && vmmkit_ie != hipErrorPeerAccessAlreadyEnabled) {              \
            vmmkit_catch::fail(__FILE__, __LINE__,                                                   \
                               std::string(#call " returned ") + hipGetErrorName(vmmkit_ie));       \
        }                                                                                            \
    }

// ---- ThreadedZigZagTest<Derived> -----------------------------------------
// Parts 1 and 3 on the case's thread, 2 and 4 on one other thread, strictly
// in the order 1, 2, 3, 4; then the threads' checks are finalized.
template <typename Derived>
class ThreadedZigZagTest {
   public:
    void run() {
        auto* self = static_cast<Derived*>(this);
        self->TestPart1();
        std::thread other([this, self] {
            self->TestPart2();
            hand_over(2);
            wait_for(3);
            self->TestPart4();
        });
        wait_for(2);
        self->TestPart3();
        hand_over(3);
        other.join();
        HIP_CHECK_THREAD_FINALIZE();
    }

    void TestPart1() {}
    void TestPart2() {}
    void TestPart3() {}
    void TestPart4() {}

   private:
    void hand_over(int done) {
        {
            std::lock_guard<std::mutex> g(mutex_);
            done_ = done;
        }
        turn_.notify_all();
    }
    void wait_for(int done) {
        std::unique_lock<std::mutex> g(mutex_);
        turn_.wait(g, [&] { return done_ >= done; });
    }

    std::mutex mutex_;
    std::condition_variable turn_;
    int done_ = 1;
};

// ---- Attribute queries (utils.hh) ----------------------------------------
inline int GetDeviceAttribute(const hipDeviceAttribute_t attr, int device) {
    int value = 0;
    HIP_CHECK(hipDeviceGetAttribute(&value, attr, device));
    return value;
}

// Whether `device` has every one of the attributes (each non-zero).
template <typename... Attributes>
inline bool DeviceAttributesSupport(const int device, Attributes... attributes) {
    bool all = true;
    for (hipDeviceAttribute_t a : {static_cast<hipDeviceAttribute_t>(attributes)...}) {
        all = all && GetDeviceAttribute(a, device) != 0;
    }
    return all;
}

// ---- Array checks (utils.hh) ---------------------------------------------
// Each fails the case at the first element that differs, naming its index.
template <typename T>
void ArrayMismatch(T* const expected, T* const actual, const size_t num_elements) {
    for (size_t i = 0; i < num_elements; i++) {
        if (!(expected[i] == actual[i])) {
            INFO("first mismatch at index " << i);
            REQUIRE(expected[i] == actual[i]);
        }
    }
}

// Every element in [begin, end) equal to `expected_value`.
template <typename It, typename T>
void ArrayFindIfNot(It begin, It end, const T expected_value) {
    size_t i = 0;
    for (It at = begin; at != end; ++at, ++i) {
        if (!(expected_value == *at)) {
            INFO("first element unlike the expected value at index " << i);
            REQUIRE(expected_value == *at);
        }
    }
}

template <typename T>
void ArrayFindIfNot(T* const array, const T expected_value, const size_t num_elements) {
    ArrayFindIfNot(array, array + num_elements, expected_value);
}

// `value_gen(i)` gives the value element i must have, or nothing for one not checked.
template <typename T, typename F>
inline void ArrayAllOf(const T* arr, uint32_t count, F value_gen) {
    for (uint32_t i = 0; i < count; i++) {
        const std::optional<T> want = value_gen(i);
        if (want.has_value() && !(arr[i] == *want)) {
            INFO("first mismatch at index " << i);
            REQUIRE(arr[i] == *want);
        }
    }
}

// Every element within [minval, maxval].
template <typename T>
inline void ArrayInRange(const T* arr, uint32_t count, const T minval, const T maxval) {
    for (uint32_t i = 0; i < count; i++) {
        if (arr[i] < minval || arr[i] > maxval) {
            INFO("element out of range at index " << i);
            REQUIRE(arr[i] >= minval);
            REQUIRE(arr[i] <= maxval);
        }
    }
}

// Pitched memory on the host: rows `pitch` bytes apart, slices `pitch * height` apart;
// element (x, y, z) is T's x-th of its row. `value(x, y, z)` gives each element's value.
template <typename T>
inline T& vmmkit_pitched_at(T* const ptr, size_t pitch, size_t height, size_t x, size_t y, size_t z) {
    auto* bytes = reinterpret_cast<unsigned char*>(ptr) + pitch * (height * z + y);
    return reinterpret_cast<T*>(bytes)[x];
}

template <typename T, typename F>
void PitchedMemoryVerify(T* const ptr, const size_t pitch, const size_t width, const size_t height,
                         const size_t depth, F value) {
    for (size_t z = 0; z < depth; z++) {
        for (size_t y = 0; y < height; y++) {
            for (size_t x = 0; x < width; x++) {
                const T have = vmmkit_pitched_at(ptr, pitch, height, x, y, z);
                if (!(have == value(x, y, z))) {
                    INFO("first mismatch at x " << x << ", y " << y << ", z " << z);
                    REQUIRE(have == value(x, y, z));
                }
            }
        }
    }
}

template <typename T, typename F>
void PitchedMemorySet(T* const ptr, const size_t pitch, const size_t width, const size_t height,
                      const size_t depth, F value) {
    for (size_t z = 0; z < depth; z++) {
        for (size_t y = 0; y < height; y++) {
            for (size_t x = 0; x < width; x++) vmmkit_pitched_at(ptr, pitch, height, x, y, z) = value(x, y, z);
        }
    }
}

// ---- Managed memory (hipMallocManagedCommon.hh) --------------------------
// Whether device 0 has managed memory (hipDeviceAttributeManagedMemory: 1 or
// 0), the attributes about it printed first. The runner defines
// VMMKIT_FILE_DEFINES_HmmAttrPrint for a file that defines its own.
#ifndef VMMKIT_FILE_DEFINES_HmmAttrPrint
static int HmmAttrPrint() {
    int value = 0;
    for (auto attribute : {hipDeviceAttributeDirectManagedMemAccessFromHost, hipDeviceAttributeConcurrentManagedAccess,
                           hipDeviceAttributePageableMemoryAccess,
                           hipDeviceAttributePageableMemoryAccessUsesHostPageTables}) {
        HIP_CHECK(hipDeviceGetAttribute(&value, attribute, 0));
        INFO("device 0, attribute " << static_cast<int>(attribute) << ": " << value);
    }
    HIP_CHECK(hipDeviceGetAttribute(&value, hipDeviceAttributeManagedMemory, 0));
    if (value != 1) WARN("device 0 has no managed memory; system memory is used");
    return value;
}
#endif

// ---- Array formats (the memory tests' hipArrayCommon.hh) ----------------
// A channel format kind's name, for messages.
inline const char* channelFormatString(hipChannelFormatKind kind) noexcept {
    switch (kind) {
        case hipChannelFormatKindFloat: return "float";
        case hipChannelFormatKindSigned: return "signed";
        case hipChannelFormatKindUnsigned: return "unsigned";
        default: return "error";
    }
}

// ---- The host min and max that hip_runtime.h declares (the cases call them unqualified)
using std::max;
using std::min;

// ---- Odds and ends of hip_test_common.hh and hip_test_context.hh --------
namespace HipTest {
// The next pseudo-random number of the sequence `seed` keeps (rand_r).
static inline int RAND_R(unsigned* seed) { return rand_r(seed); }
}  // namespace HipTest

class TestContext {
   public:
    // The value of an environment variable, or "" when it is unset.
    static std::string getEnvVar(const std::string& name) {
        const char* value = std::getenv(name.c_str());
        return value == nullptr ? std::string() : std::string(value);
    }
};

// ---- Arrays of the vector tests (hip_test_checkers.hh) -------------------
namespace HipTest {
// hip-tests spells it so.
inline int getGeviceCount() { return getDeviceCount(); }

// A, B and C's values: 3, 4, 5 for integers, 'a', 'b', 'c' for chars, and
// 3.146 + i, 1.618 + i, 1.4 + i otherwise.
template <typename T>
void setDefaultData(size_t n, T* a, T* b, T* c) {
    constexpr bool whole = std::is_same<T, int>::value || std::is_same<T, unsigned int>::value;
    constexpr bool chars = std::is_same<T, char>::value || std::is_same<T, unsigned char>::value;
    for (size_t i = 0; i < n; i++) {
        T va, vb, vc;
        if (whole) {
            va = 3, vb = 4, vc = 5;
        } else if (chars) {
            va = 'a', vb = 'b', vc = 'c';
        } else {
            va = static_cast<T>(3.146f + i), vb = static_cast<T>(1.618f + i), vc = static_cast<T>(1.4f + i);
        }
        if (a) a[i] = va;
        if (b) b[i] = vb;
        if (c) c[i] = vc;
    }
}

// The host arrays named (non-null): pinned or malloc'd, then filled.
template <typename T>
bool initArraysForHost(T** a, T** b, T** c, size_t n, bool pinned = false) {
    for (T** p : {a, b, c}) {
        if (!p) continue;
        if (pinned) {
            HIP_CHECK(hipHostMalloc(reinterpret_cast<void**>(p), n * sizeof(T)));
        } else {
            *p = static_cast<T*>(std::malloc(n * sizeof(T)));
            REQUIRE(*p != nullptr);
        }
    }
    setDefaultData(n, a ? *a : nullptr, b ? *b : nullptr, c ? *c : nullptr);
    return true;
}

// The device arrays named (hipMalloc), then the host ones.
template <typename T>
bool initArrays(T** a_d, T** b_d, T** c_d, T** a_h, T** b_h, T** c_h, size_t n, bool pinned = false) {
    for (T** p : {a_d, b_d, c_d}) {
        if (p) HIP_CHECK(hipMalloc(reinterpret_cast<void**>(p), n * sizeof(T)));
    }
    return initArraysForHost(a_h, b_h, c_h, n, pinned);
}

// Every element of `result` equal to `expected`'s (or, with expectMatch
// false, at least one not).
template <typename T>
void checkTest(T* expected, T* result, size_t n, bool expectMatch = true) {
    size_t differ = 0;
    for (size_t i = 0; i < n; i++) differ += !(expected[i] == result[i]);
    if (expectMatch) {
        REQUIRE(differ == 0);
    } else {
        REQUIRE(differ != 0);
    }
}

// The system's free memory in MiB.
inline size_t getMemoryAmount() {
    long pages = sysconf(_SC_AVPHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) / (1024 * 1024) : 0;
}

template <typename T>
bool freeArraysForHost(T* a, T* b, T* c, bool pinned) {
    for (T* p : {a, b, c}) {
        if (!p) continue;
        if (pinned) {
            HIP_CHECK(hipHostFree(p));
        } else {
            std::free(p);
        }
    }
    return true;
}

template <typename T>
bool freeArrays(T* a_d, T* b_d, T* c_d, T* a_h, T* b_h, T* c_h, bool pinned) {
    for (T* p : {a_d, b_d, c_d}) {
        if (p) HIP_CHECK(hipFree(p));
    }
    return freeArraysForHost(a_h, b_h, c_h, pinned);
}
}  // namespace HipTest

// ---- A stream held busy from the host (hip_test_common.hh) --------------
namespace HipTest {
// block_stream() queues a callback on the stream that waits until
// unblock_stream(); is_blocked() asks the stream whether work is pending.
class BlockingContext {
   public:
    explicit BlockingContext(hipStream_t s) : stream_(s) {}
    BlockingContext(const BlockingContext& o) : blocked_(o.blocked_val()), stream_(o.stream_val()) {}
    BlockingContext& operator=(const BlockingContext& o) {
        blocked_ = o.blocked_val();
        stream_ = o.stream_val();
        return *this;
    }

    void reset() { blocked_ = true; }
    void block_stream() {
        blocked_ = true;
        HIP_CHECK(hipStreamAddCallback(
            stream_,
            [](hipStream_t, hipError_t, void* flag) {
                while (static_cast<std::atomic_bool*>(flag)->load()) std::this_thread::yield();
            },
            &blocked_, 0));
    }
    void unblock_stream() { blocked_ = false; }
    bool is_blocked() const { return hipStreamQuery(stream_) == hipErrorNotReady; }
    bool blocked_val() const { return blocked_.load(); }
    hipStream_t stream_val() const { return stream_; }

   private:
    std::atomic_bool blocked_{true};
    hipStream_t stream_;
};
}  // namespace HipTest

// ---- Allocation guards (resource_guards.hh) ------------------------------
enum class LinearAllocs { malloc, mallocAndRegister, hipHostMalloc, hipMalloc, hipMallocManaged, noAlloc };

inline std::string to_string(const LinearAllocs kind) {
    switch (kind) {
        case LinearAllocs::malloc: return "malloc";
        case LinearAllocs::mallocAndRegister: return "malloc + hipHostRegister";
        case LinearAllocs::hipHostMalloc: return "hipHostMalloc";
        case LinearAllocs::hipMalloc: return "hipMalloc";
        case LinearAllocs::hipMallocManaged: return "hipMallocManaged";
        default: return "unknown alloc type";
    }
}

// Owns `size` bytes of the kind asked for; ptr() is what a device uses
// (for registered memory, its device pointer), host_ptr() the host's
// (null for hipMalloc). Freed, ignoring the answer, when it goes.
template <typename T>
class LinearAllocGuard {
   public:
    LinearAllocGuard() = default;
    LinearAllocGuard(const LinearAllocs kind, const size_t size, const unsigned int flags = 0u) : kind_(kind) {
        void* p = nullptr;
        switch (kind) {
            case LinearAllocs::malloc:
                host_ = device_ = static_cast<T*>(std::malloc(size));
                break;
            case LinearAllocs::mallocAndRegister:
                host_ = static_cast<T*>(std::malloc(size));
                HIP_CHECK(hipHostRegister(host_, size, flags));
                HIP_CHECK(hipHostGetDevicePointer(&p, host_, 0u));
                device_ = static_cast<T*>(p);
                break;
            case LinearAllocs::hipHostMalloc:
                HIP_CHECK(hipHostMalloc(&p, size, flags));
                host_ = device_ = static_cast<T*>(p);
                break;
            case LinearAllocs::hipMalloc:
                HIP_CHECK(hipMalloc(&p, size));
                device_ = static_cast<T*>(p);
                break;
            case LinearAllocs::hipMallocManaged:
                HIP_CHECK(hipMallocManaged(&p, size, flags != 0 ? flags : hipMemAttachGlobal));
                host_ = device_ = static_cast<T*>(p);
                break;
            case LinearAllocs::noAlloc:
                break;
        }
    }
    LinearAllocGuard(const LinearAllocGuard&) = delete;
    LinearAllocGuard& operator=(const LinearAllocGuard&) = delete;
    LinearAllocGuard(LinearAllocGuard&& o) { take(o); }
    LinearAllocGuard& operator=(LinearAllocGuard&& o) {
        if (this != &o) {
            release();
            take(o);
        }
        return *this;
    }
    ~LinearAllocGuard() { release(); }

    T* ptr() const { return device_; }
    T* host_ptr() const { return host_; }

   private:
    void take(LinearAllocGuard& o) {
        kind_ = std::exchange(o.kind_, LinearAllocs::noAlloc);
        device_ = std::exchange(o.device_, nullptr);
        host_ = std::exchange(o.host_, nullptr);
    }
    void release() {
        if (device_ == nullptr) return;
        switch (kind_) {
            case LinearAllocs::malloc: std::free(device_); break;
            case LinearAllocs::mallocAndRegister:
                static_cast<void>(hipHostUnregister(host_));
                std::free(host_);
                break;
            case LinearAllocs::hipHostMalloc: static_cast<void>(hipHostFree(device_)); break;
            case LinearAllocs::hipMalloc:
            case LinearAllocs::hipMallocManaged: static_cast<void>(hipFree(device_)); break;
            case LinearAllocs::noAlloc: break;
        }
        device_ = host_ = nullptr;
    }

    LinearAllocs kind_ = LinearAllocs::noAlloc;
    T* device_ = nullptr;
    T* host_ = nullptr;
};

// Pitched device memory: 2-D (hipMallocPitch, or rows packed when
// `unaligned`) and 3-D (hipMalloc3D). Widths are in elements of T.
template <typename T>
class PitchedGuard {
   public:
    T* ptr() const { return static_cast<T*>(pitched_.ptr); }
    size_t pitch() const { return pitched_.pitch; }
    hipExtent extent() const { return extent_; }
    hipPitchedPtr pitched_ptr() const { return pitched_; }
    size_t width() const { return extent_.width; }
    size_t width_logical() const { return extent_.width / sizeof(T); }
    size_t height() const { return extent_.height; }
    ~PitchedGuard() { static_cast<void>(hipFree(pitched_.ptr)); }

   protected:
    explicit PitchedGuard(hipExtent e) : extent_(e) {}
    hipPitchedPtr pitched_{};
    const hipExtent extent_;
};

template <typename T, bool unaligned = false>
class LinearAllocGuard2D : public PitchedGuard<T> {
   public:
    LinearAllocGuard2D(const size_t width_logical, const size_t height)
        : PitchedGuard<T>(make_hipExtent(width_logical * sizeof(T), height, 1)) {
        if (unaligned) {
            this->pitched_.pitch = this->extent_.width;
            HIP_CHECK(hipMalloc(&this->pitched_.ptr, this->pitched_.pitch * height));
        } else {
            HIP_CHECK(hipMallocPitch(&this->pitched_.ptr, &this->pitched_.pitch, this->extent_.width, height));
        }
    }
    LinearAllocGuard2D(const LinearAllocGuard2D&) = delete;
};

template <typename T>
class LinearAllocGuard3D : public PitchedGuard<T> {
   public:
    LinearAllocGuard3D(const size_t width_logical, const size_t height, const size_t depth)
        : LinearAllocGuard3D(make_hipExtent(width_logical * sizeof(T), height, depth)) {}
    explicit LinearAllocGuard3D(const hipExtent extent) : PitchedGuard<T>(extent) {
        HIP_CHECK(hipMalloc3D(&this->pitched_, this->extent_));
    }
    LinearAllocGuard3D(const LinearAllocGuard3D&) = delete;
    size_t depth() const { return this->extent_.depth; }
};

// ---- Memory set up by kind (the memory tests' MemUtils.hh) ---------------
// The 1-D, 2-D and 3-D fills and copies of the sync-behaviour cases, over
// memory of four kinds: device (hipMalloc, hipMallocPitch or hipMalloc3D),
// pinned host (hipHostMalloc), registered host (new[] + hipHostRegister) and
// registered host used through its device pointer.
namespace mem_utils {
enum class allocType { deviceMalloc, hostMalloc, hostRegisted, devRegistered };
enum class memType { hipMem, hipMemsetD8, hipMemsetD16, hipMemsetD32, hipMem2D, hipMem3D };

// Extents in elements (height 0: 1-D; depth 0: 2-D), the pitch in bytes, and
// one offset used in each dimension.
struct MultiDData {
    size_t width{};
    size_t height{};
    size_t depth{};
    size_t pitch{};
    size_t offset{};
    size_t getH() { return height == 0 ? 1 : height; }
    size_t getD() { return depth == 0 ? 1 : depth; }
    size_t getCount() { return width * getH() * getD(); }
};

// The memory: the pointer to use, and for registered memory used through its
// device pointer the host pointer to free (else null). Sets data.pitch.
template <typename T>
std::pair<T*, T*> initMemory(allocType type, memType kind, MultiDData& data) {
    const size_t row = data.width * sizeof(T);
    const size_t bytes = row * data.getH() * data.getD();
    data.pitch = row;
    T* p = nullptr;
    switch (type) {
        case allocType::deviceMalloc:
            if (kind == memType::hipMem3D) {
                hipPitchedPtr pitched{};
                HIP_CHECK(hipMalloc3D(&pitched, make_hipExtent(row, data.getH(), data.getD())));
                data.pitch = pitched.pitch;
                return {static_cast<T*>(pitched.ptr), nullptr};
            }
            if (kind == memType::hipMem2D) {
                HIP_CHECK(hipMallocPitch(reinterpret_cast<void**>(&p), &data.pitch, row, data.getH()));
                return {p, nullptr};
            }
            HIP_CHECK(hipMalloc(reinterpret_cast<void**>(&p), bytes));
            return {p, nullptr};
        case allocType::hostMalloc:
            HIP_CHECK(hipHostMalloc(reinterpret_cast<void**>(&p), bytes));
            return {p, nullptr};
        case allocType::hostRegisted:
            p = new T[data.getCount()];
            HIP_CHECK(hipHostRegister(p, bytes, hipHostRegisterDefault));
            return {p, nullptr};
        case allocType::devRegistered: {
            p = new T[data.getCount()];
            HIP_CHECK(hipHostRegister(p, bytes, hipHostRegisterDefault));
            T* device = nullptr;
            HIP_CHECK(hipHostGetDevicePointer(reinterpret_cast<void**>(&device), p, 0));
            return {device, p};
        }
    }
    REQUIRE(false);
    return {nullptr, nullptr};
}

// Where the offset region starts, in elements of T (as the cases count it:
// for 2-D and 3-D the offset is taken in each dimension, rows by the pitch).
inline size_t getPtrOffset(MultiDData data) {
    if (data.height == 0) return data.offset;
    if (data.depth == 0) return data.offset + data.pitch * data.offset;
    return data.offset + data.pitch * data.offset + data.pitch * data.offset * data.height;
}

// Fills the region at the data's offset with `value` with the fill of `kind`,
// queued on `stream` when `async`.
template <typename T>
void memsetCheck(T* p, size_t value, memType kind, MultiDData& data, hipStream_t stream = nullptr,
                 bool async = true) {
    const size_t count = data.getCount();
    auto* at = p + data.offset;
    auto device = reinterpret_cast<hipDeviceptr_t>(at);
    switch (kind) {
        case memType::hipMem:
            HIP_CHECK(async ? hipMemsetAsync(at, value, count * sizeof(T), stream) : hipMemset(at, value, count * sizeof(T)));
            break;
        case memType::hipMemsetD8:
            HIP_CHECK(async ? hipMemsetD8Async(device, value, count, stream) : hipMemsetD8(device, value, count));
            break;
        case memType::hipMemsetD16:
            HIP_CHECK(async ? hipMemsetD16Async(device, value, count, stream) : hipMemsetD16(device, value, count));
            break;
        case memType::hipMemsetD32:
            HIP_CHECK(async ? hipMemsetD32Async(device, value, count, stream) : hipMemsetD32(device, value, count));
            break;
        case memType::hipMem2D: {
            T* start = p + getPtrOffset(data);
            HIP_CHECK(async ? hipMemset2DAsync(start, data.pitch, value, data.width, data.height, stream)
                            : hipMemset2D(start, data.pitch, value, data.width, data.height));
            break;
        }
        case memType::hipMem3D: {
            hipPitchedPtr start = make_hipPitchedPtr(p + getPtrOffset(data), data.pitch, data.width, data.height);
            hipExtent extent = make_hipExtent(data.width * sizeof(T), data.height, data.depth);
            HIP_CHECK(async ? hipMemset3DAsync(start, value, extent, stream) : hipMemset3D(start, value, extent));
            break;
        }
    }
}

// Frees what initMemory made (for registered memory, its host pointer).
template <typename T>
void freeStuff(T* p, allocType type) {
    if (type == allocType::deviceMalloc) {
        HIP_CHECK(hipFree(p));
    } else if (type == allocType::hostMalloc) {
        HIP_CHECK(hipHostFree(p));
    } else {
        HIP_CHECK(hipHostUnregister(p));
        delete[] p;
    }
}

// Copies the region at the data's offset to the host (rows packed) and
// requires every element of it to be `value`.
template <typename T>
void verifyData(T* p, size_t value, MultiDData& data, allocType type, memType kind) {
    const size_t count = data.getCount();
    std::vector<T> host(count);
    const hipMemcpyKind direction =
        type == allocType::deviceMalloc || type == allocType::devRegistered ? hipMemcpyDeviceToHost : hipMemcpyHostToHost;
    T* start = p + getPtrOffset(data);
    const size_t row = data.width * sizeof(T);
    if (kind == memType::hipMem3D) {
        hipMemcpy3DParms params{};
        params.kind = direction;
        params.srcPtr = make_hipPitchedPtr(start, data.pitch, data.width, data.getH());
        params.dstPtr = make_hipPitchedPtr(host.data(), row, data.width, data.getH());
        params.extent = make_hipExtent(row, data.getH(), data.getD());
        HIP_CHECK(hipMemcpy3D(&params));
    } else if (kind == memType::hipMem2D) {
        HIP_CHECK(hipMemcpy2D(host.data(), row, start, data.pitch, row, data.getH(), direction));
    } else {
        HIP_CHECK(hipMemcpy(host.data(), start, count * sizeof(T), direction));
    }
    for (size_t i = 0; i < count; i++) {
        if (static_cast<size_t>(host[i]) != value) {
            INFO("element " << i << " is not the value set");
            REQUIRE(static_cast<size_t>(host[i]) == value);
        }
    }
}

// `func(stream, async, args…)` synchronously on the null stream, then
// asynchronously on the null stream, then on a created stream (a SECTION each).
template <typename T, typename F, typename... Args>
void doMemTest(F func, Args... args) {
    SECTION("Synchronous") { func(nullptr, false, args...); }
    SECTION("Asynchronous - null stream") { func(nullptr, true, args...); }
    SECTION("Asynchronous - created stream") {
        hipStream_t stream{};
        HIP_CHECK(hipStreamCreate(&stream));
        func(stream, true, args...);
        HIP_CHECK(hipStreamDestroy(stream));
    }
}
}  // namespace mem_utils

// ---- A helper program run in a process of its own (hip_test_process.hh) --
// SpawnProc("name") runs the program `name` that lies beside this one (the
// runner builds it there from hip-tests' source of it) through the shell;
// run(args) gives its exit status, and with `capture` its standard output is
// kept for getOutput() (read through a pipe: no file is written).
namespace hip {
class SpawnProc {
   public:
    explicit SpawnProc(const std::string& name, bool capture = false) : capture_(capture) {
        char self[4096] = {};
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        REQUIRE(n > 0);
        std::string dir(self, static_cast<size_t>(n));
        exe_ = dir.substr(0, dir.rfind('/') + 1) + name;
        INFO("the helper program " << exe_);
        REQUIRE(access(exe_.c_str(), X_OK) == 0);
    }

    int run(const std::string& args = "") {
        std::string command = exe_ + (args.empty() ? "" : " " + args);
        if (!capture_) return status(std::system(command.c_str()));
        output_.clear();
        FILE* out = popen(command.c_str(), "r");
        REQUIRE(out != nullptr);
        char chunk[4096];
        size_t got;
        while ((got = std::fread(chunk, 1, sizeof(chunk), out)) > 0) output_.append(chunk, got);
        return status(pclose(out));
    }

    void run_async(const std::string& args = "") {
        pending_ = std::thread([this, args] { async_status_ = run(args); });
    }

    int wait() {
        if (pending_.joinable()) pending_.join();
        return async_status_;
    }

    std::string getOutput() const { return output_; }

    ~SpawnProc() {
        if (pending_.joinable()) pending_.join();
    }

   private:
    static int status(int raw) { return raw == -1 ? -1 : WEXITSTATUS(raw); }

    std::string exe_;
    bool capture_;
    std::string output_;
    std::thread pending_;
    int async_status_ = -1;
};
}  // namespace hip

// ---- Stream checks (the stream tests' streamCommon.hh) -------------------
namespace hip {
inline namespace stream {
const hipStream_t nullStream = nullptr;
const hipStream_t streamPerThread = hipStreamPerThread;

// The stream's flags are `flags`; its priority `priority`, or with
// `any_priority` one within the device's range.
inline bool vmmkit_stream_is(hipStream_t stream, unsigned int flags, bool any_priority, int priority) {
    unsigned int have_flags = 0;
    HIP_CHECK(hipStreamGetFlags(stream, &have_flags));
    if (have_flags != flags) {
        INFO("flags " << have_flags << ", not " << flags);
        return false;
    }
    int have = 0;
    HIP_CHECK(hipStreamGetPriority(stream, &have));
    if (any_priority) {
        int least = 0, greatest = 0;
        HIP_CHECK(hipDeviceGetStreamPriorityRange(&least, &greatest));
        // Lower numbers are higher priorities: greatest <= have <= least.
        if (have > least || have < greatest) {
            INFO("priority " << have << " outside " << greatest << " .. " << least);
            return false;
        }
    } else if (have != priority) {
        INFO("priority " << have << ", not " << priority);
        return false;
    }
    return true;
}

// Default flags and a priority within the range.
inline bool checkStream(hipStream_t stream) { return vmmkit_stream_is(stream, hipStreamDefault, true, 0); }

inline bool checkStreamPriorityAndFlags(hipStream_t stream, int priority, unsigned int flags = hipStreamDefault) {
    return vmmkit_stream_is(stream, flags, false, priority);
}
}  // namespace stream
}  // namespace hip

// ---- Kernel-free copy checks (memcpy1d_tests_common.hh) ------------------
// The flag combinations a host allocation of `kind` is tried with: each
// hipHostMalloc flag for hipHostMalloc (a GENERATE), none for the others.
static inline unsigned int GenerateLinearAllocationFlagCombinations(const LinearAllocs kind) {
    if (kind == LinearAllocs::hipHostMalloc) {
        return GENERATE(hipHostMallocDefault, hipHostMallocPortable, hipHostMallocMapped, hipHostMallocWriteCombined);
    }
    if (kind == LinearAllocs::noAlloc) throw std::invalid_argument("no allocation kind");
    return 0u;
}

// A copy of `copy(dst, src, bytes)` from host memory (malloc'd or each kind
// of hipHostMalloc) to device memory, checked by copying it back; with
// `should_synchronize`, `stream` is synchronised after the copy.
template <bool should_synchronize, typename F>
void MemcpyHostToDeviceShell(F copy, const hipStream_t stream = nullptr) {
    const size_t bytes = GENERATE(kPageSize / 2, kPageSize, kPageSize * 2);
    const LinearAllocs kind = GENERATE(LinearAllocs::malloc, LinearAllocs::hipHostMalloc);
    const unsigned int flags = GenerateLinearAllocationFlagCombinations(kind);
    LinearAllocGuard<int> src(kind, bytes, flags);
    LinearAllocGuard<int> back(LinearAllocs::hipHostMalloc, bytes);
    LinearAllocGuard<int> device(LinearAllocs::hipMalloc, bytes);
    const size_t count = bytes / sizeof(int);
    std::fill_n(src.host_ptr(), count, 42);
    std::fill_n(back.host_ptr(), count, 0);
    HIP_CHECK(copy(device.ptr(), src.host_ptr(), bytes));
    if constexpr (should_synchronize) HIP_CHECK(hipStreamSynchronize(stream));
    HIP_CHECK(hipMemcpy(back.host_ptr(), device.ptr(), bytes, hipMemcpyDeviceToHost));
    ArrayFindIfNot(back.host_ptr(), 42, count);
}

// The same from host memory to host memory, each side malloc'd or hipHostMalloc'd.
template <bool should_synchronize, typename F>
void MemcpyHostToHostShell(F copy, const hipStream_t stream = nullptr) {
    const size_t bytes = GENERATE(kPageSize / 2, kPageSize, kPageSize * 2);
    const LinearAllocs src_kind = GENERATE(LinearAllocs::malloc, LinearAllocs::hipHostMalloc);
    const LinearAllocs dst_kind = GENERATE(LinearAllocs::malloc, LinearAllocs::hipHostMalloc);
    const unsigned int src_flags = GenerateLinearAllocationFlagCombinations(src_kind);
    const unsigned int dst_flags = GenerateLinearAllocationFlagCombinations(dst_kind);
    LinearAllocGuard<int> src(src_kind, bytes, src_flags);
    LinearAllocGuard<int> dst(dst_kind, bytes, dst_flags);
    const size_t count = bytes / sizeof(int);
    std::fill_n(src.host_ptr(), count, 42);
    HIP_CHECK(copy(dst.host_ptr(), src.host_ptr(), bytes));
    if constexpr (should_synchronize) HIP_CHECK(hipStreamSynchronize(stream));
    ArrayFindIfNot(dst.host_ptr(), 42, count);
}

// Whether `copy()` waits for the host: `stream` is held busy for 100 ms
// first; after the copy it is idle if the copy waited (`should_sync`),
// still busy if it did not.
template <typename F>
void MemcpySyncBehaviorCheck(F copy, const bool should_sync, const hipStream_t stream) {
    LaunchDelayKernel(std::chrono::milliseconds{100}, stream);
    HIP_CHECK(copy());
    if (should_sync) {
        HIP_CHECK(hipStreamQuery(stream));
    } else {
        HIP_CHECK_ERROR(hipStreamQuery(stream), hipErrorNotReady);
    }
}

// One page copied between two allocations of the kinds named, `copy(dst, src, bytes)`.
template <typename F>
void vmmkit_sync_behavior(F copy, bool should_sync, hipStream_t stream, LinearAllocs dst_kind, LinearAllocs src_kind) {
    LinearAllocGuard<int> dst(dst_kind, kPageSize);
    LinearAllocGuard<int> src(src_kind, kPageSize);
    MemcpySyncBehaviorCheck([&] { return copy(dst.ptr(), src.ptr(), kPageSize); }, should_sync, stream);
}

template <typename F>
void MemcpyHPageabletoDSyncBehavior(F copy, const bool should_sync, const hipStream_t stream = nullptr) {
    vmmkit_sync_behavior(copy, should_sync, stream, LinearAllocs::hipMalloc, LinearAllocs::malloc);
}
template <typename F>
void MemcpyHPinnedtoDSyncBehavior(F copy, const bool should_sync, const hipStream_t stream = nullptr) {
    vmmkit_sync_behavior(copy, should_sync, stream, LinearAllocs::hipMalloc, LinearAllocs::hipHostMalloc);
}
template <typename F>
void MemcpyDtoHPageableSyncBehavior(F copy, const bool should_sync, const hipStream_t stream = nullptr) {
    vmmkit_sync_behavior(copy, should_sync, stream, LinearAllocs::malloc, LinearAllocs::hipMalloc);
}
template <typename F>
void MemcpyDtoHPinnedSyncBehavior(F copy, const bool should_sync, const hipStream_t stream = nullptr) {
    vmmkit_sync_behavior(copy, should_sync, stream, LinearAllocs::hipHostMalloc, LinearAllocs::hipMalloc);
}
template <typename F>
void MemcpyDtoDSyncBehavior(F copy, const bool should_sync, const hipStream_t stream = nullptr) {
    vmmkit_sync_behavior(copy, should_sync, stream, LinearAllocs::hipMalloc, LinearAllocs::hipMalloc);
}
template <typename F>
void MemcpyHPinnedtoHPinnedSyncBehavior(F copy, const bool should_sync, const hipStream_t stream = nullptr) {
    vmmkit_sync_behavior(copy, should_sync, stream, LinearAllocs::hipHostMalloc, LinearAllocs::hipHostMalloc);
}
// Host to host: malloc'd to pinned, pinned to malloc'd, malloc'd to malloc'd (a GENERATE).
template <typename F>
void MemcpyHtoHSyncBehavior(F copy, const bool should_sync, const hipStream_t stream = nullptr) {
    const auto kinds = GENERATE(std::make_tuple(LinearAllocs::malloc, LinearAllocs::hipHostMalloc),
                                std::make_tuple(LinearAllocs::hipHostMalloc, LinearAllocs::malloc),
                                std::make_tuple(LinearAllocs::malloc, LinearAllocs::malloc));
    vmmkit_sync_behavior(copy, should_sync, stream, std::get<1>(kinds), std::get<0>(kinds));
}

// A NULL destination, then a NULL source: hipErrorInvalidValue (a SECTION each).
template <typename F>
void MemcpyCommonNegativeTests(F f, void* dst, void* src, size_t count) {
    SECTION("dst == nullptr") { HIP_CHECK_ERROR(f(nullptr, src, count), hipErrorInvalidValue); }
    SECTION("src == nullptr") { HIP_CHECK_ERROR(f(dst, nullptr, count), hipErrorInvalidValue); }
}

// The same for a copy that takes a kind; AMD builds try no bad kind here.
template <typename F>
void MemcpyWithDirectionCommonNegativeTests(F f, void* dst, void* src, size_t count, hipMemcpyKind kind) {
    MemcpyCommonNegativeTests([&](void* d, void* s, size_t n) { return f(d, s, n, kind); }, dst, src, count);
}

// ---- Kernel-free 2-D copy checks (the memory tests' memcpy2d_tests_common.hh)
// A copy's end: memory (a pointer) or an array.
using PtrVariant = std::variant<void*, hipArray_t>;

// `parms` for a 2-D copy of `kind` between `dst` and `src`: each pointer end
// as host, device or (hipMemcpyDefault) unified memory by the kind, each
// array end as an array; the offsets in bytes and rows.
inline void InitializeMemcpy2DParams(hip_Memcpy2D* parms, PtrVariant dst, size_t dpitch, PtrVariant src,
                                     size_t spitch, size_t width, size_t height, hipMemcpyKind kind,
                                     hipExtent src_offset = {0, 0, 0}, hipExtent dst_offset = {0, 0, 0}) {
    const bool host_src = kind == hipMemcpyHostToDevice || kind == hipMemcpyHostToHost;
    const bool host_dst = kind == hipMemcpyDeviceToHost || kind == hipMemcpyHostToHost;
    if (auto* array = std::get_if<hipArray_t>(&dst)) {
        parms->dstMemoryType = hipMemoryTypeArray;
        parms->dstArray = *array;
    } else {
        void* p = std::get<void*>(dst);
        parms->dstPitch = dpitch;
        if (host_dst) {
            parms->dstMemoryType = hipMemoryTypeHost;
            parms->dstHost = p;
        } else {
            parms->dstMemoryType = kind == hipMemcpyDefault ? hipMemoryTypeUnified : hipMemoryTypeDevice;
            parms->dstDevice = reinterpret_cast<hipDeviceptr_t>(p);
        }
    }
    if (auto* array = std::get_if<hipArray_t>(&src)) {
        parms->srcMemoryType = hipMemoryTypeArray;
        parms->srcArray = *array;
    } else {
        void* p = std::get<void*>(src);
        parms->srcPitch = spitch;
        if (host_src) {
            parms->srcMemoryType = hipMemoryTypeHost;
            parms->srcHost = p;
        } else {
            parms->srcMemoryType = kind == hipMemcpyDefault ? hipMemoryTypeUnified : hipMemoryTypeDevice;
            parms->srcDevice = reinterpret_cast<hipDeviceptr_t>(p);
        }
    }
    parms->WidthInBytes = width;
    parms->Height = height;
    parms->srcXInBytes = src_offset.width;
    parms->srcY = src_offset.height;
    parms->dstXInBytes = dst_offset.width;
    parms->dstY = dst_offset.height;
}

// hipMemcpyParam2D (or, `async`, hipMemcpyParam2DAsync) called as hipMemcpy2D is.
template <bool async = false>
auto MemcpyParam2DAdapter(const hipExtent src_offset = {0, 0, 0}, const hipExtent dst_offset = {0, 0, 0}) {
    return [=](PtrVariant dst, size_t dpitch, PtrVariant src, size_t spitch, size_t width, size_t height,
               hipMemcpyKind kind, hipStream_t stream = nullptr) {
        hip_Memcpy2D parms{};
        InitializeMemcpy2DParams(&parms, dst, dpitch, src, spitch, width, height, kind, src_offset, dst_offset);
        if constexpr (async) {
            return hipMemcpyParam2DAsync(&parms, stream);
        } else {
            return hipMemcpyParam2D(&parms);
        }
    };
}

// hipDrvMemcpy2DUnaligned called as hipMemcpy2D is (the stream unused).
inline auto DrvMemcpy2DUnalignedAdapter() {
    return [](PtrVariant dst, size_t dpitch, PtrVariant src, size_t spitch, size_t width, size_t height,
              hipMemcpyKind kind, hipStream_t = nullptr) {
        hip_Memcpy2D parms{};
        InitializeMemcpy2DParams(&parms, dst, dpitch, src, spitch, width, height, kind);
        return hipDrvMemcpy2DUnaligned(&parms);
    };
}

// Whether a 2-D copy waits for the host: `stream` held busy 300 ms first;
// one that should wait leaves the stream done once synchronised, one that
// should not leaves it busy.
template <typename F>
void vmmkit_2d_sync_check(F copy, bool should_sync, hipStream_t stream) {
    LaunchDelayKernel(std::chrono::milliseconds{300}, stream);
    HIP_CHECK(copy());
    if (should_sync) {
        HIP_CHECK(hipStreamSynchronize(stream));
        HIP_CHECK(hipStreamQuery(stream));
    } else {
        HIP_CHECK_ERROR(hipStreamQuery(stream), hipErrorNotReady);
    }
}

// 32 × 32 ints copied `copy(dst, dpitch, src, spitch, width, height, kind)`
// between pitched device memory and host memory (malloc'd or pinned, a
// GENERATE for host to device), or between two pitched allocations.
template <bool unaligned = false, typename F>
void Memcpy2DHtoDSyncBehavior(F copy, const bool should_sync, const hipStream_t stream = nullptr) {
    const LinearAllocs kind = GENERATE(LinearAllocs::malloc, LinearAllocs::hipHostMalloc);
    LinearAllocGuard<int> host(kind, 32 * 32 * sizeof(int));
    LinearAllocGuard2D<int, unaligned> device(32, 32);
    vmmkit_2d_sync_check([&] {
        return copy(device.ptr(), device.pitch(), host.ptr(), device.width(), device.width(), device.height(),
                    hipMemcpyHostToDevice);
    }, should_sync, stream);
}

template <bool unaligned = false, typename F>
void vmmkit_2d_dtoh(F copy, bool should_sync, hipStream_t stream, LinearAllocs kind) {
    LinearAllocGuard<int> host(kind, 32 * 32 * sizeof(int));
    LinearAllocGuard2D<int, unaligned> device(32, 32);
    vmmkit_2d_sync_check([&] {
        return copy(host.ptr(), device.width(), device.ptr(), device.pitch(), device.width(), device.height(),
                    hipMemcpyDeviceToHost);
    }, should_sync, stream);
}

template <bool unaligned = false, typename F>
void Memcpy2DDtoHPageableSyncBehavior(F copy, const bool should_sync, const hipStream_t stream = nullptr) {
    vmmkit_2d_dtoh<unaligned>(copy, should_sync, stream, LinearAllocs::malloc);
}

template <bool unaligned = false, typename F>
void Memcpy2DDtoHPinnedSyncBehavior(F copy, const bool should_sync, const hipStream_t stream = nullptr) {
    vmmkit_2d_dtoh<unaligned>(copy, should_sync, stream, LinearAllocs::hipHostMalloc);
}

template <bool unaligned = false, typename F>
void Memcpy2DDtoDSyncBehavior(F copy, const bool should_sync, const hipStream_t stream = nullptr) {
    LinearAllocGuard2D<int, unaligned> src(32, 32);
    LinearAllocGuard2D<int, unaligned> dst(32, 32);
    vmmkit_2d_sync_check([&] {
        return copy(dst.ptr(), dst.pitch(), src.ptr(), src.pitch(), dst.width(), dst.height(), hipMemcpyDeviceToDevice);
    }, should_sync, stream);
}

// Host to host, each side malloc'd or pinned (GENERATEs).
template <typename F>
void Memcpy2DHtoHSyncBehavior(F copy, const bool should_sync, const hipStream_t stream = nullptr) {
    const LinearAllocs src_kind = GENERATE(LinearAllocs::malloc, LinearAllocs::hipHostMalloc);
    const LinearAllocs dst_kind = GENERATE(LinearAllocs::malloc, LinearAllocs::hipHostMalloc);
    LinearAllocGuard<int> src(src_kind, 32 * 32 * sizeof(int));
    LinearAllocGuard<int> dst(dst_kind, 32 * 32 * sizeof(int));
    const size_t row = 32 * sizeof(int);
    vmmkit_2d_sync_check([&] { return copy(dst.ptr(), row, src.ptr(), row, row, 32, hipMemcpyHostToHost); },
                         should_sync, stream);
}

// A 2-D copy with a width or a height of 0 (or both, a GENERATE) changes
// nothing: for each direction (a SECTION each) the destination, filled with
// 42 and the source with 1, still holds 42 after it.
template <bool should_synchronize, bool unaligned = false, typename F>
void Memcpy2DZeroWidthHeight(F copy, const hipStream_t stream = nullptr) {
    constexpr size_t cols = 63;
    constexpr size_t rows = 64;
    const auto shape = GENERATE(std::make_pair(0, 1), std::make_pair(1, 0), std::make_pair(0, 0));
    const size_t wide = static_cast<size_t>(shape.first);
    const size_t high = static_cast<size_t>(shape.second);
    auto settle = [&] {
        if constexpr (should_synchronize) HIP_CHECK(hipStreamSynchronize(stream));
    };
    SECTION("Device to Host") {
        LinearAllocGuard2D<uint8_t, unaligned> device(cols, rows);
        LinearAllocGuard<uint8_t> host(LinearAllocs::hipHostMalloc, device.width() * rows);
        std::fill_n(host.ptr(), device.width() * rows, 42);
        HIP_CHECK(hipMemset2D(device.ptr(), device.pitch(), 1, device.width(), device.height()));
        HIP_CHECK(copy(host.ptr(), device.width(), device.ptr(), device.pitch(), device.width() * wide,
                       device.height() * high, hipMemcpyDeviceToHost));
        settle();
        ArrayFindIfNot(host.ptr(), static_cast<uint8_t>(42), device.width() * rows);
    }
    SECTION("Device to Device") {
        LinearAllocGuard2D<uint8_t, unaligned> src(cols, rows);
        LinearAllocGuard2D<uint8_t, unaligned> dst(cols, rows);
        LinearAllocGuard<uint8_t> host(LinearAllocs::hipHostMalloc, dst.width() * rows);
        HIP_CHECK(hipMemset2D(src.ptr(), src.pitch(), 1, src.width(), src.height()));
        HIP_CHECK(hipMemset2D(dst.ptr(), dst.pitch(), 42, dst.width(), dst.height()));
        HIP_CHECK(copy(dst.ptr(), dst.pitch(), src.ptr(), src.pitch(), dst.width() * wide, dst.height() * high,
                       hipMemcpyDeviceToDevice));
        settle();
        HIP_CHECK(hipMemcpy2D(host.ptr(), dst.width(), dst.ptr(), dst.pitch(), dst.width(), dst.height(),
                              hipMemcpyDeviceToHost));
        ArrayFindIfNot(host.ptr(), static_cast<uint8_t>(42), dst.width() * rows);
    }
    SECTION("Host to Device") {
        LinearAllocGuard2D<uint8_t, unaligned> device(cols, rows);
        LinearAllocGuard<uint8_t> src(LinearAllocs::hipHostMalloc, device.width() * rows);
        LinearAllocGuard<uint8_t> back(LinearAllocs::hipHostMalloc, device.width() * rows);
        std::fill_n(src.ptr(), device.width() * rows, 1);
        HIP_CHECK(hipMemset2D(device.ptr(), device.pitch(), 42, device.width(), device.height()));
        HIP_CHECK(copy(device.ptr(), device.pitch(), src.ptr(), device.width(), device.width() * wide,
                       device.height() * high, hipMemcpyHostToDevice));
        settle();
        HIP_CHECK(hipMemcpy2D(back.ptr(), device.width(), device.ptr(), device.pitch(), device.width(),
                              device.height(), hipMemcpyDeviceToHost));
        ArrayFindIfNot(back.ptr(), static_cast<uint8_t>(42), device.width() * rows);
    }
    SECTION("Host to Host") {
        LinearAllocGuard<uint8_t> src(LinearAllocs::hipHostMalloc, cols * rows);
        LinearAllocGuard<uint8_t> dst(LinearAllocs::hipHostMalloc, cols * rows);
        std::fill_n(src.ptr(), cols * rows, 1);
        std::fill_n(dst.ptr(), cols * rows, 42);
        HIP_CHECK(copy(dst.ptr(), cols, src.ptr(), cols, cols * wide, rows * high, hipMemcpyHostToHost));
        settle();
        ArrayFindIfNot(dst.ptr(), static_cast<uint8_t>(42), cols * rows);
    }
}
