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
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

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
