// A tiny Catch2-compatible shim of vmmkit's own, enough to build the
// kernel-free case bodies of ROCm's hip-tests (TEST_CASE, TEMPLATE_TEST_CASE, SECTIONs nested or
// not, GENERATE, REQUIRE, INFO, WARN and hip-tests' HIP_CHECK family) with g++ against the
// HIP headers, with no device compiler. tests/hip_tests.rs extracts the
// cases from a fetched hip-tests copy and appends them to a file that
// includes this one; nothing of hip-tests is kept in this repository.
//
// A failed REQUIRE ends its case (an exception, as Catch does); each case
// runs once per leaf SECTION, as Catch does.
// The runner prints "CASE <name>: PASS" or "CASE <name>: FAIL <why>"; its
// arguments, if any, name the cases to run, or with a leading '-' one to skip.
#pragma once

#include <hip/hip_runtime_api.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cmath>
#include <condition_variable>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <map>
#include <mutex>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

namespace Catch {
namespace Matchers {
template <typename T>
struct VectorEquals {
    std::vector<T> want;
    bool match(const std::vector<T>& have) const { return have == want; }
};
template <typename T>
VectorEquals<T> Equals(const std::vector<T>& want) {
    return {want};
}
}  // namespace Matchers
}  // namespace Catch

#define HT_AMD 1
#define HT_NVIDIA 0
#define HT_WIN 0

namespace vmmkit_catch {

struct Failed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A case's name may be built at run time (hip-tests' macros that write
// cases give `"prefix" + std::string(suffix)`).
struct Case {
    std::string name;
    void (*body)();
};

inline std::vector<Case>& cases() {
    static std::vector<Case> all;
    return all;
}

// SECTIONs, nested or not, as Catch runs them: each pass of a case takes one
// path of sections from the outermost to a leaf, every leaf once, in order.
// The path to take (the index of the section at each depth among those its
// parent holds); a pass that reaches a depth the path does not name yet takes
// the first section there and names it.
inline std::vector<int>& path() {
    static std::vector<int> p;
    return p;
}
// The sections met at each depth in this pass (all inside the path's parent).
inline std::vector<int>& met() {
    static std::vector<int> m;
    return m;
}
inline size_t& depth() {
    static size_t d = 0;
    return d;
}

inline bool enter_section(const std::string& name) {
    size_t d = depth();
    if (met().size() <= d) met().resize(d + 1, 0);
    int at = met()[d]++;
    bool run = false;
    if (d < path().size()) {
        run = at == path()[d];
    } else if (d == path().size()) {
        path().push_back(at);
        run = true;
    }
    if (run) {
        std::printf("  section: %s\n", name.c_str());
        depth()++;
    }
    return run;
}

// The next path after a pass: the deepest section on it with a sibling after
// it takes that sibling, deeper ones to be found; false when none is left.
inline bool next_path() {
    auto& p = path();
    for (size_t d = p.size(); d-- > 0;) {
        if (d < met().size() && p[d] + 1 < met()[d]) {
            p.resize(d + 1);
            p[d]++;
            return true;
        }
    }
    return false;
}

// A SECTION's scope: the depth goes back when its body ends, however it ends.
struct Section {
    bool entered;
    bool once;
    explicit Section(const std::string& name) : entered(enter_section(name)), once(entered) {}
    ~Section() {
        if (entered) depth()--;
    }
};

[[noreturn]] void fail(const char* file, int line, const std::string& what);

// GENERATE: the case runs once per combination of its generators' values,
// the last one seen turning fastest (an odometer), each combination once per
// top-level SECTION. A generator is known by the order the body reaches it.
struct Generator {
    size_t at;
    size_t count;
};
inline std::vector<Generator>& generators() {
    static std::vector<Generator> g;
    return g;
}
inline size_t& generated() {
    static size_t n = 0;
    return n;
}

template <typename T>
T pick(const std::vector<T>& values) {
    if (values.empty()) fail(__FILE__, __LINE__, "GENERATE with no values");
    size_t k = generated()++;
    if (k == generators().size()) generators().push_back({0, values.size()});
    generators()[k].count = values.size();
    std::printf("  generated #%zu: value %zu of %zu\n", k, generators()[k].at + 1, values.size());
    return values[generators()[k].at];
}

// The next combination; false when every one has run.
inline bool next_generation() {
    auto& g = generators();
    g.resize(std::min(g.size(), generated()));
    while (!g.empty()) {
        if (++g.back().at < g.back().count) return true;
        g.pop_back();
    }
    return false;
}

namespace gen {
struct Range {
    int from;
    int to;
};
inline Range range(int from, int to) { return {from, to}; }
inline std::vector<int> values(Range r) {
    std::vector<int> v;
    for (int i = r.from; i < r.to; i++) v.push_back(i);
    return v;
}
// from_range(begin, end): the values between two iterators, in order.
template <typename T>
struct FromRange {
    std::vector<T> all;
};
template <typename It>
FromRange<typename std::iterator_traits<It>::value_type> from_range(It begin, It end) {
    return {std::vector<typename std::iterator_traits<It>::value_type>(begin, end)};
}
// from_range(container): its values, in order.
template <typename Container>
FromRange<typename Container::value_type> from_range(const Container& all) {
    return {std::vector<typename Container::value_type>(std::begin(all), std::end(all))};
}
template <typename T>
std::vector<T> values(FromRange<T> r) {
    return r.all;
}
// table<A, B, …>(rows): each row a std::tuple<A, B, …>.
template <typename... Columns, typename Rows>
FromRange<std::tuple<Columns...>> table(const Rows& rows) {
    return {std::vector<std::tuple<Columns...>>(std::begin(rows), std::end(rows))};
}
template <typename... Columns>
FromRange<std::tuple<Columns...>> table(std::initializer_list<std::tuple<Columns...>> rows) {
    return {std::vector<std::tuple<Columns...>>(rows)};
}
template <typename T, typename... Rest>
std::vector<T> values(T first, Rest... rest) {
    return {first, static_cast<T>(rest)...};
}
}  // namespace gen

struct Register {
    Register(const std::string& name, void (*body)()) { cases().push_back({name, body}); }
};

// A TEMPLATE_TEST_CASE: its body once per type, each registered under the case's name;
// `instance` gives the body's function for a type, from a null pointer to it.
template <typename... Types, typename Instance>
bool register_types(const std::string& name, Instance instance) {
    (cases().push_back({name, instance(static_cast<Types*>(nullptr))}), ...);
    return true;
}

// The runner's pid: a case's forked child that fails a REQUIRE ends there
// with status 1 (its parent's wait checks it) instead of running the next cases.
inline pid_t& runner() {
    static pid_t p = 0;
    return p;
}

[[noreturn]] inline void fail(const char* file, int line, const std::string& what) {
    std::ostringstream s;
    s << file << ":" << line << ": " << what;
    if (getpid() != runner()) {
        std::fprintf(stderr, "child %d: %s\n", static_cast<int>(getpid()), s.str().c_str());
        std::_Exit(1);
    }
    throw Failed(s.str());
}

// Whether `name` runs, given the runner's arguments: case names to run only
// those, or "-name" to leave one out.
inline bool selected(const std::string& name, int argc, char** argv) {
    bool only = false;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') {
            if (name == argv[i] + 1) return false;
        } else {
            only = true;
            if (name == argv[i]) return true;
        }
    }
    return !only;
}

inline int run_all(int argc, char** argv) {
    runner() = getpid();
    int failed = 0;
    std::vector<std::string> done;
    for (const Case& first : cases()) {
        if (!selected(first.name, argc, argv)) continue;
        if (std::find(done.begin(), done.end(), first.name) != done.end()) continue;
        done.push_back(first.name);
        // A TEMPLATE_TEST_CASE registers its name once per type: one result for all.
        std::string why;
        for (const Case& c : cases()) {
            if (!why.empty() || c.name != first.name) continue;
            generators().clear();
            do {
                path().clear();
                do {
                    met().clear();
                    depth() = 0;
                    generated() = 0;
                    try {
                        c.body();
                    } catch (const Failed& f) {
                        why = f.what();
                    }
                } while (why.empty() && next_path());
            } while (why.empty() && next_generation());
        }
        if (why.empty()) {
            std::printf("CASE %s: PASS\n", first.name.c_str());
        } else {
            std::printf("CASE %s: FAIL %s\n", first.name.c_str(), why.c_str());
            failed++;
        }
        std::fflush(stdout);
    }
    return failed == 0 ? 0 : 1;
}

}  // namespace vmmkit_catch

#define VMMKIT_CAT2(a, b) a##b
#define VMMKIT_CAT(a, b) VMMKIT_CAT2(a, b)
#define VMMKIT_CASE(fn, name, ...)                                          \
    static void fn();                                                       \
    static vmmkit_catch::Register VMMKIT_CAT(fn, _reg)(name, &fn);          \
    static void fn()
#define TEST_CASE(name, ...) VMMKIT_CASE(VMMKIT_CAT(vmmkit_case_, __COUNTER__), name)
// A TEMPLATE_TEST_CASE's types may come in parentheses, as Catch allows, to keep the commas
// of a template's arguments from the preprocessor: `(Pair<int, char>)` is `Pair<int, char>`.
namespace vmmkit_catch {
template <typename F>
struct Unparen;
template <typename T>
struct Unparen<void(T)> {
    using type = T;
};
}  // namespace vmmkit_catch
#define VMMKIT_UNPAREN(T) vmmkit_catch::Unparen<void(T)>::type
#define VMMKIT_MAP1(m, x) m(x)
#define VMMKIT_MAP2(m, x, ...) m(x), VMMKIT_MAP1(m, __VA_ARGS__)
#define VMMKIT_MAP3(m, x, ...) m(x), VMMKIT_MAP2(m, __VA_ARGS__)
#define VMMKIT_MAP4(m, x, ...) m(x), VMMKIT_MAP3(m, __VA_ARGS__)
#define VMMKIT_MAP5(m, x, ...) m(x), VMMKIT_MAP4(m, __VA_ARGS__)
#define VMMKIT_MAP6(m, x, ...) m(x), VMMKIT_MAP5(m, __VA_ARGS__)
#define VMMKIT_MAP7(m, x, ...) m(x), VMMKIT_MAP6(m, __VA_ARGS__)
#define VMMKIT_MAP8(m, x, ...) m(x), VMMKIT_MAP7(m, __VA_ARGS__)
#define VMMKIT_MAP9(m, x, ...) m(x), VMMKIT_MAP8(m, __VA_ARGS__)
#define VMMKIT_MAP10(m, x, ...) m(x), VMMKIT_MAP9(m, __VA_ARGS__)
#define VMMKIT_MAP11(m, x, ...) m(x), VMMKIT_MAP10(m, __VA_ARGS__)
#define VMMKIT_MAP12(m, x, ...) m(x), VMMKIT_MAP11(m, __VA_ARGS__)
#define VMMKIT_MAP13(m, x, ...) m(x), VMMKIT_MAP12(m, __VA_ARGS__)
#define VMMKIT_MAP14(m, x, ...) m(x), VMMKIT_MAP13(m, __VA_ARGS__)
#define VMMKIT_MAP15(m, x, ...) m(x), VMMKIT_MAP14(m, __VA_ARGS__)
#define VMMKIT_MAP16(m, x, ...) m(x), VMMKIT_MAP15(m, __VA_ARGS__)
#define VMMKIT_MAP17(m, x, ...) m(x), VMMKIT_MAP16(m, __VA_ARGS__)
#define VMMKIT_MAP18(m, x, ...) m(x), VMMKIT_MAP17(m, __VA_ARGS__)
#define VMMKIT_MAP19(m, x, ...) m(x), VMMKIT_MAP18(m, __VA_ARGS__)
#define VMMKIT_MAP20(m, x, ...) m(x), VMMKIT_MAP19(m, __VA_ARGS__)
#define VMMKIT_MAP21(m, x, ...) m(x), VMMKIT_MAP20(m, __VA_ARGS__)
#define VMMKIT_MAP22(m, x, ...) m(x), VMMKIT_MAP21(m, __VA_ARGS__)
#define VMMKIT_MAP23(m, x, ...) m(x), VMMKIT_MAP22(m, __VA_ARGS__)
#define VMMKIT_MAP24(m, x, ...) m(x), VMMKIT_MAP23(m, __VA_ARGS__)
#define VMMKIT_NARGS_(_0, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23, _24, n, ...) n
#define VMMKIT_NARGS(...) VMMKIT_NARGS_(0, __VA_ARGS__, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define VMMKIT_TYPES(...) VMMKIT_CAT(VMMKIT_MAP, VMMKIT_NARGS(__VA_ARGS__))(VMMKIT_UNPAREN, __VA_ARGS__)
#define VMMKIT_TEMPLATE_CASE(fn, name, tags, ...)                                                 \
    template <typename TestType>                                                                  \
    static void fn();                                                                             \
    static bool VMMKIT_CAT(fn, _reg) = vmmkit_catch::register_types<VMMKIT_TYPES(__VA_ARGS__)>(   \
        name, [](auto* type) -> void (*)() { return &fn<std::remove_pointer_t<decltype(type)>>; }); \
    template <typename TestType>                                                                  \
    static void fn()
#define TEMPLATE_TEST_CASE(name, tags, ...) \
    VMMKIT_TEMPLATE_CASE(VMMKIT_CAT(vmmkit_tcase_, __COUNTER__), name, tags, __VA_ARGS__)
#define SECTION(name, ...) \
    for (vmmkit_catch::Section vmmkit_section(name); vmmkit_section.once; vmmkit_section.once = false)
// DYNAMIC_SECTION("text " << value): a SECTION whose name is streamed.
#define DYNAMIC_SECTION(...)                                                                     \
    SECTION(([&] {                                                                               \
        std::ostringstream vmmkit_name;                                                          \
        vmmkit_name << __VA_ARGS__;                                                              \
        return vmmkit_name.str();                                                                \
    }()))
#define GENERATE(...)                                                                            \
    ([&] {                                                                                       \
        using namespace vmmkit_catch::gen;                                                       \
        return vmmkit_catch::pick(values(__VA_ARGS__));                                          \
    }())
#define GENERATE_COPY(...) GENERATE(__VA_ARGS__)
#define GENERATE_REF(...) GENERATE(__VA_ARGS__)

#define REQUIRE(expr)                                                                        \
    do {                                                                                     \
        if (!(expr)) vmmkit_catch::fail(__FILE__, __LINE__, "REQUIRE(" #expr ") failed");    \
    } while (0)
#define REQUIRE_FALSE(expr) REQUIRE(!(expr))
// REQUIRE_THAT with the one matcher the cases use, Catch::Matchers::Equals of a vector.
#define REQUIRE_THAT(arg, matcher) REQUIRE((matcher).match(arg))
#define CHECK_THAT(arg, matcher) REQUIRE_THAT(arg, matcher)
#define CHECK(expr) REQUIRE(expr)
#define CHECK_FALSE(expr) REQUIRE(!(expr))
#define HIP_ASSERT(expr) REQUIRE(expr)
// A statement with its own semicolon, as Catch's (a declaration there): some
// cases leave out the one after it.
#define INFO(msg)                                  \
    do {                                           \
        std::cout << "  info: " << msg << "\n";    \
    } while (0);
#define UNSCOPED_INFO(msg) INFO(msg)
#define CAPTURE(...) INFO(#__VA_ARGS__)
#define WARN(msg)                                  \
    do {                                           \
        std::cout << "  warn: " << msg << "\n";    \
    } while (0);
#define SUCCEED(...) ((void)0)

// Blocks, as hip-tests' own: some cases leave out the semicolon after them.
#define HIP_CHECK(call)                                                                          \
    {                                                                                            \
        hipError_t vmmkit_e = (call);                                                            \
        if (vmmkit_e != hipSuccess) {                                                            \
            vmmkit_catch::fail(__FILE__, __LINE__,                                               \
                               std::string(#call " returned ") + hipGetErrorName(vmmkit_e));    \
        }                                                                                        \
    }
#define HIP_CHECK_ERROR(call, want)                                                              \
    {                                                                                            \
        hipError_t vmmkit_e = (call);                                                            \
        if (vmmkit_e != (want)) {                                                                \
            vmmkit_catch::fail(__FILE__, __LINE__,                                               \
                               std::string(#call " returned ") + hipGetErrorName(vmmkit_e) +     \
                                   ", not " + hipGetErrorName(want));                           \
        }                                                                                        \
    }

#define HIP_CHECK_ERRORS(call, want, or_want)                                                    \
    {                                                                                            \
        hipError_t vmmkit_e = (call);                                                            \
        if (vmmkit_e != (want) && vmmkit_e != (or_want)) {                                       \
            vmmkit_catch::fail(__FILE__, __LINE__,                                               \
                               std::string(#call " returned ") + hipGetErrorName(vmmkit_e) +     \
                                   ", not " + hipGetErrorName(want) + " or " +                   \
                                   hipGetErrorName(or_want));                                    \
        }                                                                                        \
    }

// hip-tests' utils.hh page size, which the attribute, access and copy cases use as a size.
inline constexpr size_t kPageSize = 4096;

// hip-tests' LaunchDelayKernel (utils.hh) keeps a stream busy for a while
// with a kernel; without a device compiler, a host function on the stream
// that sleeps as long does the same.
inline void vmmkit_sleep_ms(void* ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(reinterpret_cast<uintptr_t>(ms)));
}
inline void LaunchDelayKernel(std::chrono::milliseconds ms, hipStream_t stream = nullptr) {
    HIP_CHECK(hipLaunchHostFunc(stream, vmmkit_sleep_ms, reinterpret_cast<void*>(ms.count())));
}

// hip-tests' skip (a message; the case then returns and passes) and its VMM
// support check (hip_vmm_common.hh): attribute 89, skipping when it is 0.
namespace HipTest {
inline void HIP_SKIP_TEST(const char* why) { std::printf("  skipped: %s\n", why); }
inline int getDeviceCount() {
    int n = 0;
    HIP_CHECK(hipGetDeviceCount(&n));
    return n;
}
// Whether `device` has virtual memory management (checkVMMSupported and its kin).
inline bool vmmkit_vmm_supported(int device) {
    int vmm = 0;
    HIP_CHECK(hipDeviceGetAttribute(&vmm, hipDeviceAttributeVirtualMemoryManagementSupported, device));
    return vmm != 0;
}
}  // namespace HipTest
#define checkVMMSupported(device)                                                                  \
    {                                                                                              \
        if (!HipTest::vmmkit_vmm_supported(device)) {                                              \
            HipTest::HIP_SKIP_TEST("no VMM");                                                      \
            return;                                                                                \
        }                                                                                          \
    }

// The same for a helper that returns a bool (hip_vmm_common.hh): true when skipping.
#define checkVMMSupportedRetVal(device)                                                            \
    {                                                                                              \
        if (!HipTest::vmmkit_vmm_supported(device)) {                                              \
            HipTest::HIP_SKIP_TEST("no VMM");                                                      \
            return true;                                                                           \
        }                                                                                          \
    }

// hip-tests' older checks (hip_test_common.hh): a call's error other than an
// already enabled peer, or a false condition, fails the case.
#define HIPCHECK(call)                                                                               \
    {                                                                                                \
        hipError_t vmmkit_old = (call);                                                              \
        if (vmmkit_old != hipSuccess && vmmkit_old != hipErrorPeerAccessAlreadyEnabled) {            \
            vmmkit_catch::fail(__FILE__, __LINE__, std::string(#call " returned ") + hipGetErrorName(vmmkit_old)); \
        }                                                                                            \
    }
#define HIPASSERT(condition)                                                                         \
    if (!(condition)) vmmkit_catch::fail(__FILE__, __LINE__, "HIPASSERT(" #condition ") failed");

// hip-tests' context macros (hip_test_common.hh): on AMD no context is made,
// and an array is freed with hipFreeArray.
#define CTX_CREATE()
#define CTX_DESTROY()
#define ARRAY_DESTROY(array) HIP_CHECK(hipFreeArray(array));

int main(int argc, char** argv) { return vmmkit_catch::run_all(argc, argv); }
