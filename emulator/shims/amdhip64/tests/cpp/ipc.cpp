// Kernel-free HIP IPC test (hip.md §5 "IPC, several processes"): the parent
// hipMallocs, writes a pattern, exports an interior pointer and sends the
// 64-byte handle to a re-executed child, which opens it twice (same pointer),
// checks the size and the pattern from element 0, writes a new pattern back
// and closes twice, a third close failing. The parent checks the child's
// writes and its exit status.
#include "common.hpp"

#include <vector>

static const size_t kSize = (1u << 20) + 257;

static int child(int sock) {
    hipIpcMemHandle_t h;
    recv_all(sock, &h, sizeof h);
    CHECK(hipSetDevice(0));
    void* p = nullptr;
    CHECK(hipIpcOpenMemHandle(&p, h, hipIpcMemLazyEnablePeerAccess));
    void* again = nullptr;
    CHECK(hipIpcOpenMemHandle(&again, h, hipIpcMemLazyEnablePeerAccess));
    REQUIRE(p == again, "HIP-IPC-027: a repeated open returns the same pointer (%p, %p)", p, again);
    hipDeviceptr_t base = nullptr;
    size_t size = 0;
    CHECK(hipMemGetAddressRange(&base, &size, static_cast<char*>(p) + 1000));
    REQUIRE(base == p && size == kSize, "HIP-IPC-030: base %p size %zu", base, size);
    std::vector<unsigned char> buf(kSize);
    CHECK(hipMemcpy(buf.data(), p, kSize, hipMemcpyDeviceToHost));
    for (size_t i = 0; i < kSize; i++) {
        REQUIRE(buf[i] == pattern(i, 7), "HIP-IPC-026: byte %zu is %u", i, buf[i]);
    }
    std::printf("child: read the parent's pattern from element 0 (%zu bytes)\n", kSize);
    CHECK(hipMemset(p, 99, kSize));
    send_byte(sock, 'W');
    expect_byte(sock, 'R');
    CHECK(hipIpcCloseMemHandle(p));
    CHECK(hipIpcCloseMemHandle(p));
    EXPECT(hipIpcCloseMemHandle(p), hipErrorInvalidValue);
    std::printf("child: ok\n");
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 3 && std::strcmp(argv[1], "child") == 0) return child(std::atoi(argv[2]));
    int count = 0;
    CHECK(hipGetDeviceCount(&count));
    REQUIRE(count >= 1, "no device");
    CHECK(hipSetDevice(0));
    hipDeviceProp_t prop;
    CHECK(hipGetDeviceProperties(&prop, 0));
    std::printf("parent: %d device(s); device 0 is %s (%s), warpSize %d\n", count, prop.name, prop.gcnArchName,
                prop.warpSize);
    void* p = nullptr;
    CHECK(hipMalloc(&p, kSize));
    std::vector<unsigned char> buf(kSize);
    for (size_t i = 0; i < kSize; i++) buf[i] = pattern(i, 7);
    CHECK(hipMemcpy(p, buf.data(), kSize, hipMemcpyHostToDevice));
    hipIpcMemHandle_t h;
    CHECK(hipIpcGetMemHandle(&h, static_cast<char*>(p) + 128));  // HIP-IPC-003: interior
    void* own = nullptr;
    EXPECT(hipIpcOpenMemHandle(&own, h, hipIpcMemLazyEnablePeerAccess), hipErrorInvalidContext);  // HIP-IPC-024
    hipIpcMemHandle_t zero;
    std::memset(&zero, 0, sizeof zero);
    EXPECT(hipIpcOpenMemHandle(&own, zero, hipIpcMemLazyEnablePeerAccess), hipErrorInvalidValue);  // HIP-IPC-022
    pid_t pid;
    int sock = spawn_child(argv[0], &pid);
    send_all(sock, &h, sizeof h);
    expect_byte(sock, 'W');
    CHECK(hipMemcpy(buf.data(), p, kSize, hipMemcpyDeviceToHost));
    for (size_t i = 0; i < kSize; i++) REQUIRE(buf[i] == 99, "the child's write: byte %zu is %u", i, buf[i]);
    std::printf("parent: sees the child's writes\n");
    send_byte(sock, 'R');
    reap(pid);
    CHECK(hipFree(p));
    EXPECT(hipFree(p), hipErrorInvalidValue);
    std::printf("parent: ok\n");
    return 0;
}
