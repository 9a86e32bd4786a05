// Kernel-free HIP VMM test (hip.md §5 "VMM, two or three processes"): the
// parent creates a POSIX-fd allocation, maps it, writes a pattern, exports an
// fd and sends it with SCM_RIGHTS to a re-executed child, then releases its
// handle and closes its fd at once (HIP-VMM-030). The child imports it with
// both osHandle conventions (HIP-VMM-026), maps it, checks the pattern and
// writes one back, which the parent sees through its own mapping.
#include "common.hpp"

#include <vector>

static hipMemAllocationProp posix_prop(int device) {
    hipMemAllocationProp p;
    std::memset(&p, 0, sizeof p);
    p.type = hipMemAllocationTypePinned;
    p.requestedHandleType = hipMemHandleTypePosixFileDescriptor;
    p.location.type = hipMemLocationTypeDevice;
    p.location.id = device;
    return p;
}

static void* map_rw(hipMemGenericAllocationHandle_t h, size_t size, int device) {
    void* va = nullptr;
    CHECK(hipMemAddressReserve(&va, size, 0, nullptr, 0));
    CHECK(hipMemMap(va, size, 0, h, 0));
    hipMemAccessDesc desc;
    std::memset(&desc, 0, sizeof desc);
    desc.location.type = hipMemLocationTypeDevice;
    desc.location.id = device;
    desc.flags = hipMemAccessFlagsProtReadWrite;
    CHECK(hipMemSetAccess(va, size, &desc, 1));
    return va;
}

static size_t granularity() {
    hipMemAllocationProp p = posix_prop(0);
    size_t g = 0;
    CHECK(hipMemGetAllocationGranularity(&g, &p, hipMemAllocationGranularityMinimum));
    REQUIRE(g > 0, "granularity 0");
    return g;
}

static int child(int sock) {
    size_t size = 0;
    recv_all(sock, &size, sizeof size);
    int fd = recv_fd(sock);
    CHECK(hipSetDevice(0));
    hipMemGenericAllocationHandle_t by_value = nullptr, by_pointer = nullptr;
    CHECK(hipMemImportFromShareableHandle(&by_value, reinterpret_cast<void*>(static_cast<uintptr_t>(fd)),
                                          hipMemHandleTypePosixFileDescriptor));
    CHECK(hipMemImportFromShareableHandle(&by_pointer, &fd, hipMemHandleTypePosixFileDescriptor));
    close(fd);
    CHECK(hipMemRelease(by_pointer));
    hipMemAllocationProp got;
    CHECK(hipMemGetAllocationPropertiesFromHandle(&got, by_value));
    REQUIRE(got.requestedHandleType == hipMemHandleTypePosixFileDescriptor && got.location.id == 0,
            "HIP-VMM-029: props");
    void* va = map_rw(by_value, size, 0);
    std::vector<unsigned char> buf(size);
    CHECK(hipMemcpyDtoH(buf.data(), va, size));
    for (size_t i = 0; i < size; i++) REQUIRE(buf[i] == pattern(i, 11), "byte %zu is %u", i, buf[i]);
    std::printf("child: read the parent's pattern (%zu bytes) through an imported fd\n", size);
    for (size_t i = 0; i < size; i++) buf[i] = pattern(i, 42);
    CHECK(hipMemcpyHtoD(va, buf.data(), size));
    send_byte(sock, 'W');
    CHECK(hipMemUnmap(va, size));
    CHECK(hipMemAddressFree(va, size));
    CHECK(hipMemRelease(by_value));
    std::printf("child: ok\n");
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 3 && std::strcmp(argv[1], "child") == 0) return child(std::atoi(argv[2]));
    CHECK(hipSetDevice(0));
    int vmm = 0;
    CHECK(hipDeviceGetAttribute(&vmm, hipDeviceAttributeVirtualMemoryManagementSupported, 0));
    REQUIRE(vmm == 1, "VMM is not supported (attribute %d)", vmm);
    size_t size = 4 * granularity();
    hipMemAllocationProp prop = posix_prop(0);
    hipMemGenericAllocationHandle_t h = nullptr;
    CHECK(hipMemCreate(&h, size, &prop, 0));
    void* va = map_rw(h, size, 0);
    std::vector<unsigned char> buf(size);
    for (size_t i = 0; i < size; i++) buf[i] = pattern(i, 11);
    CHECK(hipMemcpyHtoD(va, buf.data(), size));
    int fd = -1;
    CHECK(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0));
    REQUIRE(fd > 2, "HIP-VMM-025: an fd, got %d", fd);
    pid_t pid;
    int sock = spawn_child(argv[0], &pid);
    send_all(sock, &size, sizeof size);
    send_fd(sock, fd);
    close(fd);               // HIP-VMM-030: the exporter lets go right after sending
    CHECK(hipMemRelease(h));  // HIP-VMM-008: the mapping keeps the memory
    expect_byte(sock, 'W');
    CHECK(hipMemcpyDtoH(buf.data(), va, size));
    for (size_t i = 0; i < size; i++) REQUIRE(buf[i] == pattern(i, 42), "the child's write: byte %zu", i);
    std::printf("parent: sees the child's writes\n");
    reap(pid);
    CHECK(hipMemUnmap(va, size));
    CHECK(hipMemAddressFree(va, size));
    std::printf("parent: ok\n");
    return 0;
}
