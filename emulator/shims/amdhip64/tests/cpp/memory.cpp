// Kernel-free HIP memory program, built against the real HIP 7.x
// headers: each new memory family through the drop-in with its documented
// results, and an hipExtMallocWithFlags buffer (as RCCL, rocSHMEM and DeepEP
// allocate their IPC buffers) exported by IPC to a re-executed child, which
// reads the parent's pattern, writes its own and closes.
#include "common.hpp"

#include <vector>

// hipMallocHost, hipFreeHost and hipHostAlloc are deprecated and still exported: called on purpose.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static const size_t kSize = (1u << 20) + 4096;

// The layouts sys/src/hip/mem_types.rs asserts, against the real headers.
#include <cstddef>
static_assert(sizeof(hipPitchedPtr) == 32 && sizeof(hipExtent) == 24 && sizeof(hipPos) == 24, "pitched");
static_assert(sizeof(hipMemcpy3DParms) == 160 && offsetof(hipMemcpy3DParms, srcPos) == 8 &&
                  offsetof(hipMemcpy3DParms, srcPtr) == 32 && offsetof(hipMemcpy3DParms, dstArray) == 64 &&
                  offsetof(hipMemcpy3DParms, dstPtr) == 96 && offsetof(hipMemcpy3DParms, extent) == 128 &&
                  offsetof(hipMemcpy3DParms, kind) == 152,
              "hipMemcpy3DParms");
static_assert(sizeof(hip_Memcpy2D) == 128 && offsetof(hip_Memcpy2D, srcHost) == 24 &&
                  offsetof(hip_Memcpy2D, srcPitch) == 48 && offsetof(hip_Memcpy2D, dstMemoryType) == 72 &&
                  offsetof(hip_Memcpy2D, dstPitch) == 104 && offsetof(hip_Memcpy2D, WidthInBytes) == 112 &&
                  offsetof(hip_Memcpy2D, Height) == 120,
              "hip_Memcpy2D");
static_assert(sizeof(HIP_MEMCPY3D) == 184 && offsetof(HIP_MEMCPY3D, srcMemoryType) == 32 &&
                  offsetof(HIP_MEMCPY3D, srcHeight) == 72 && offsetof(HIP_MEMCPY3D, dstMemoryType) == 112 &&
                  offsetof(HIP_MEMCPY3D, dstHeight) == 152 && offsetof(HIP_MEMCPY3D, WidthInBytes) == 160 &&
                  offsetof(HIP_MEMCPY3D, Depth) == 176,
              "HIP_MEMCPY3D");
static_assert(sizeof(hipChannelFormatDesc) == 20 && sizeof(HIP_ARRAY_DESCRIPTOR) == 24 &&
                  offsetof(HIP_ARRAY_DESCRIPTOR, NumChannels) == 20 && sizeof(HIP_ARRAY3D_DESCRIPTOR) == 40 &&
                  offsetof(HIP_ARRAY3D_DESCRIPTOR, Flags) == 32,
              "array descriptors");
static_assert(HIP_POINTER_ATTRIBUTE_CONTEXT == 1 && HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS == 6 &&
                  HIP_POINTER_ATTRIBUTE_RANGE_SIZE == 12 && HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE == 17,
              "hipPointer_attribute");
static_assert(hipMemRangeAttributeCoherencyMode == 100 && hipMemAdviseSetCoarseGrain == 100 &&
                  hipMemAdviseUnsetAccessedBy == 6 && hipMemoryTypeArray == 10 && hipMemoryTypeManaged == 3,
              "advice and memory types");
static_assert(sizeof(hipMemcpy3DPeerParms) == 168 && offsetof(hipMemcpy3DPeerParms, srcDevice) == 64 &&
                  offsetof(hipMemcpy3DPeerParms, dstArray) == 72 && offsetof(hipMemcpy3DPeerParms, dstDevice) == 136 &&
                  offsetof(hipMemcpy3DPeerParms, extent) == 144,
              "hipMemcpy3DPeerParms");
static_assert(hipErrorInvalidPitchValue == 12 && hipErrorHostMemoryAlreadyRegistered == 712 &&
                  hipErrorHostMemoryNotRegistered == 713,
              "codes");

static int child(int sock) {
    hipIpcMemHandle_t h;
    recv_all(sock, &h, sizeof h);
    CHECK(hipSetDevice(0));
    void* p = nullptr;
    CHECK(hipIpcOpenMemHandle(&p, h, hipIpcMemLazyEnablePeerAccess));
    size_t size = 0;
    CHECK(hipMemPtrGetInfo(p, &size));
    REQUIRE(size == kSize, "the opened buffer is %zu bytes, not %zu", size, kSize);
    // Read it through a registered host buffer, then write back with a 2-D fill.
    std::vector<unsigned char> buf(kSize);
    CHECK(hipHostRegister(buf.data(), kSize, hipHostRegisterDefault));
    CHECK(hipMemcpyDtoH(buf.data(), p, kSize));
    for (size_t i = 0; i < kSize; i++) REQUIRE(buf[i] == pattern(i, 5), "byte %zu is %u", i, buf[i]);
    CHECK(hipHostUnregister(buf.data()));
    std::printf("child: read the parent's hipExtMallocWithFlags buffer (%zu bytes)\n", kSize);
    CHECK(hipMemset2D(p, 4096, 0x77, 4096, kSize / 4096));
    send_byte(sock, 'W');
    expect_byte(sock, 'R');
    CHECK(hipIpcCloseMemHandle(p));
    std::printf("child: ok\n");
    return 0;
}

// Host memory: the allocation variants, registration, flags, device pointers.
static void host_memory() {
    void* a = nullptr;
    CHECK(hipMallocHost(&a, 4096));
    void* b = nullptr;
    CHECK(hipHostAlloc(&b, 4096, hipHostAllocMapped));
    unsigned int flags = 99;
    CHECK(hipHostGetFlags(&flags, b));
    REQUIRE(flags == hipHostAllocMapped, "hipHostGetFlags: %u", flags);
    void* dp = nullptr;
    CHECK(hipHostGetDevicePointer(&dp, b, 0));
    REQUIRE(dp == b, "hipHostGetDevicePointer: %p for %p", dp, b);
    EXPECT(hipHostAlloc(&b, 64, 0x100), hipErrorInvalidValue);
    CHECK(hipFreeHost(a));
    CHECK(hipHostFree(b));
    std::vector<char> reg(8192);
    CHECK(hipHostRegister(reg.data(), reg.size(), hipHostRegisterMapped));
    EXPECT(hipHostRegister(reg.data() + 4096, 16, 0), hipErrorHostMemoryAlreadyRegistered);  // HIP-MEM-001
    hipPointerAttribute_t attr;
    CHECK(hipPointerGetAttributes(&attr, reg.data() + 10));
    REQUIRE(attr.type == hipMemoryTypeHost && attr.hostPointer == reg.data() + 10, "registered: type %d", attr.type);
    CHECK(hipHostUnregister(reg.data()));
    EXPECT(hipHostUnregister(reg.data()), hipErrorHostMemoryNotRegistered);  // HIP-MEM-002
    std::printf("parent: host allocation variants and registration\n");
}

// Pointer attributes, the driver way (Open MPI, MPICH).
static void pointer_attributes() {
    void* d = nullptr;
    CHECK(hipMalloc(&d, 1000));
    unsigned int type = 0;
    CHECK(hipPointerGetAttribute(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, d));
    REQUIRE(type == hipMemoryTypeDevice, "MEMORY_TYPE %u", type);
    hipDeviceptr_t start = nullptr;
    size_t size = 0;
    hipPointer_attribute attrs[] = {HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, HIP_POINTER_ATTRIBUTE_RANGE_SIZE};
    void* data[] = {&start, &size};
    CHECK(hipDrvPointerGetAttributes(2, attrs, data, static_cast<char*>(d) + 5));
    REQUIRE(start == d && size == 1000, "range %p + %zu", start, size);
    unsigned int one = 1;
    CHECK(hipPointerSetAttribute(&one, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, d));
    bool sync = false;
    CHECK(hipPointerGetAttribute(&sync, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, d));
    REQUIRE(sync, "SYNC_MEMOPS was set");
    EXPECT(hipPointerGetAttribute(&type, HIP_POINTER_ATTRIBUTE_CONTEXT, d), hipErrorNotSupported);
    size_t free_bytes = 0, total = 0;
    CHECK(hipMemGetInfo(&free_bytes, &total));
    REQUIRE(free_bytes < total, "hipMemGetInfo: %zu of %zu free", free_bytes, total);
    CHECK(hipFree(d));
    std::printf("parent: pointer attributes, %zu of %zu bytes free\n", free_bytes, total);
}

// Managed memory with advice and prefetch.
static void managed_memory() {
    int* m = nullptr;
    CHECK(hipMallocManaged(&m, 1024 * sizeof(int)));  // the header's default: hipMemAttachGlobal
    for (int i = 0; i < 1024; i++) m[i] = i;
    CHECK(hipMemAdvise(m, 1024 * sizeof(int), hipMemAdviseSetPreferredLocation, 0));
    CHECK(hipMemPrefetchAsync(m, 1024 * sizeof(int), 0, nullptr));
    CHECK(hipDeviceSynchronize());
    int where = -5;
    CHECK(hipMemRangeGetAttribute(&where, sizeof where, hipMemRangeAttributeLastPrefetchLocation, m, 64));
    REQUIRE(where == 0, "last prefetch location %d", where);
    void* d = nullptr;
    CHECK(hipMalloc(&d, 1024 * sizeof(int)));
    CHECK(hipMemcpy(d, m, 1024 * sizeof(int), hipMemcpyDefault));
    std::vector<int> back(1024);
    CHECK(hipMemcpy(back.data(), d, 1024 * sizeof(int), hipMemcpyDeviceToHost));
    for (int i = 0; i < 1024; i++) REQUIRE(back[i] == i, "element %d is %d", i, back[i]);
    hipPointerAttribute_t attr;
    CHECK(hipPointerGetAttributes(&attr, m));
    REQUIRE(attr.type == hipMemoryTypeManaged && attr.isManaged, "managed: type %d", attr.type);
    EXPECT(hipMallocManaged(&m, 16, hipMemAttachSingle), hipErrorInvalidValue);
    CHECK(hipFree(m));
    CHECK(hipFree(d));
    std::printf("parent: managed memory, advice and prefetch\n");
}

// Pitched memory and its 2-D and 3-D copies and fills.
static void pitched_memory() {
    void* d = nullptr;
    size_t pitch = 0;
    CHECK(hipMallocPitch(&d, &pitch, 100, 8));
    REQUIRE(pitch >= 100, "pitch %zu", pitch);
    std::vector<unsigned char> host(100 * 8);
    for (size_t i = 0; i < host.size(); i++) host[i] = pattern(i, 2);
    CHECK(hipMemcpy2D(d, pitch, host.data(), 100, 100, 8, hipMemcpyHostToDevice));
    EXPECT(hipMemcpy2D(d, 50, host.data(), 100, 100, 8, hipMemcpyHostToDevice), hipErrorInvalidPitchValue);
    CHECK(hipMemset2D(d, pitch, 0, 10, 8));
    std::vector<unsigned char> back(100 * 8);
    CHECK(hipMemcpy2D(back.data(), 100, d, pitch, 100, 8, hipMemcpyDeviceToHost));
    for (size_t y = 0; y < 8; y++)
        for (size_t x = 0; x < 100; x++)
            REQUIRE(back[y * 100 + x] == (x < 10 ? 0 : host[y * 100 + x]), "(%zu, %zu)", x, y);
    CHECK(hipFree(d));
    hipPitchedPtr box;
    hipExtent ext = make_hipExtent(64, 4, 2);
    CHECK(hipMalloc3D(&box, ext));
    CHECK(hipMemset3D(box, 9, ext));
    std::vector<unsigned char> out(64 * 4 * 2);
    hipMemcpy3DParms p = {};
    p.srcPtr = box;
    p.dstPtr = make_hipPitchedPtr(out.data(), 64, 64, 4);
    p.extent = ext;
    p.kind = hipMemcpyDeviceToHost;
    CHECK(hipMemcpy3D(&p));
    for (size_t i = 0; i < out.size(); i++) REQUIRE(out[i] == 9, "3-D byte %zu is %u", i, out[i]);
    p.srcArray = reinterpret_cast<hipArray_t>(8);
    p.srcPtr.ptr = nullptr;
    EXPECT(hipMemcpy3D(&p), hipErrorInvalidValue);  // not a live array
    CHECK(hipFree(box.ptr));
    std::printf("parent: pitched memory, 2-D and 3-D copies and fills\n");
}

// The hip_7.1 memory functions: element fills of pitched rows, the peer
// 3-D copy, advice and prefetch to a location.
static void memory_7_1() {
    void* d = nullptr;
    size_t pitch = 0;
    CHECK(hipMallocPitch(&d, &pitch, 64, 4));
    CHECK(hipMemset(d, 0, pitch * 4));
    CHECK(hipMemsetD2D16(d, pitch, 0x1234, 8, 4));
    CHECK(hipMemsetD2D32Async(static_cast<char*>(d) + 16, pitch, 0xa1b2c3d4u, 4, 4, nullptr));
    CHECK(hipDeviceSynchronize());
    EXPECT(hipMemsetD2D8(d, 16, 1, 32, 4), hipErrorInvalidValue);  // a row wider than the pitch
    std::vector<unsigned char> rows(pitch * 4);
    CHECK(hipMemcpy(rows.data(), d, rows.size(), hipMemcpyDeviceToHost));
    const unsigned char want16[2] = {0x34, 0x12}, want32[4] = {0xd4, 0xc3, 0xb2, 0xa1};
    for (size_t y = 0; y < 4; y++)
        for (size_t x = 0; x < pitch; x++) {
            unsigned char b = rows[y * pitch + x];
            unsigned char w = x < 16 ? want16[x % 2] : x < 32 ? want32[x % 4] : 0;
            REQUIRE(b == w, "D2D fill (%zu, %zu) is %u", x, y, b);
        }
    void* e = nullptr;
    CHECK(hipMalloc(&e, pitch * 4));
    hipMemcpy3DPeerParms p = {};
    p.srcPtr = make_hipPitchedPtr(d, pitch, 64, 4);
    p.dstPtr = make_hipPitchedPtr(e, pitch, 64, 4);
    p.extent = make_hipExtent(32, 4, 1);
    p.srcDevice = 0;
    p.dstDevice = 0;
    CHECK(hipMemcpy3DPeer(&p));
    std::vector<unsigned char> copy(pitch * 4);
    CHECK(hipMemcpy(copy.data(), e, copy.size(), hipMemcpyDeviceToHost));
    for (size_t y = 0; y < 4; y++)
        REQUIRE(std::memcmp(&copy[y * pitch], &rows[y * pitch], 32) == 0, "peer 3-D copy, row %zu", y);
    p.dstDevice = 99;
    EXPECT(hipMemcpy3DPeer(&p), hipErrorInvalidDevice);
    CHECK(hipFree(e));
    CHECK(hipFree(d));
    void* m = nullptr;
    CHECK(hipMallocManaged(&m, 4096));
    hipMemLocation dev = {};
    dev.type = hipMemLocationTypeDevice;
    dev.id = 0;
    CHECK(hipMemAdvise_v2(m, 4096, hipMemAdviseSetPreferredLocation, dev));
    int where = -9;
    CHECK(hipMemRangeGetAttribute(&where, sizeof where, hipMemRangeAttributePreferredLocation, m, 4096));
    REQUIRE(where == 0, "preferred location %d", where);
    CHECK(hipMemPrefetchAsync_v2(m, 4096, dev, 0, nullptr));
    EXPECT(hipMemPrefetchAsync_v2(m, 4096, dev, 1, nullptr), hipErrorInvalidValue);  // flags must be 0
    CHECK(hipDeviceSynchronize());
    CHECK(hipMemRangeGetAttribute(&where, sizeof where, hipMemRangeAttributeLastPrefetchLocation, m, 4096));
    REQUIRE(where == 0, "last prefetch location %d", where);
    CHECK(hipFree(m));
    std::printf("parent: hip_7.1 fills, peer 3-D copy, advice and prefetch to a location\n");
}

// Arrays, in linear memory: made, described, copied into and out of by rows.
static void arrays() {
    hipChannelFormatDesc desc = {32, 0, 0, 0, hipChannelFormatKindFloat};  // hipCreateChannelDesc is texture API
    hipArray_t a = nullptr;
    CHECK(hipMallocArray(&a, &desc, 8, 4));
    hipChannelFormatDesc back;
    hipExtent ext;
    unsigned int flags = 9;
    CHECK(hipArrayGetInfo(&back, &ext, &flags, a));
    REQUIRE(back.x == 32 && back.f == hipChannelFormatKindFloat && ext.width == 8 && ext.height == 4 && flags == 0,
            "hipArrayGetInfo: %d bits, kind %d, %zu x %zu, flags %u", back.x, back.f, ext.width, ext.height, flags);
    float in[4][8], out[4][8];
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 8; x++) in[y][x] = static_cast<float>(y * 8 + x);
    CHECK(hipMemcpy2DToArray(a, 0, 0, in, sizeof in[0], sizeof in[0], 4, hipMemcpyHostToDevice));
    CHECK(hipMemcpy2DFromArray(out, sizeof out[0], a, 0, 0, sizeof out[0], 4, hipMemcpyDeviceToHost));
    REQUIRE(std::memcmp(in, out, sizeof in) == 0, "the array's rows come back");
    CHECK(hipFreeArray(a));
    EXPECT(hipFreeArray(a), hipErrorContextIsDestroyed);
    std::printf("parent: arrays\n");
}

int main(int argc, char** argv) {
    if (argc == 3 && std::strcmp(argv[1], "child") == 0) return child(std::atoi(argv[2]));
    CHECK(hipSetDevice(0));
    host_memory();
    pointer_attributes();
    managed_memory();
    pitched_memory();
    arrays();
    memory_7_1();
    void* p = nullptr;
    EXPECT(hipExtMallocWithFlags(&p, 64, 7), hipErrorInvalidValue);
    CHECK(hipExtMallocWithFlags(&p, kSize, hipDeviceMallocFinegrained));
    hipPointerAttribute_t attr;
    CHECK(hipPointerGetAttributes(&attr, p));
    REQUIRE(attr.allocationFlags == hipDeviceMallocFinegrained, "allocationFlags %u", attr.allocationFlags);
    std::vector<unsigned char> buf(kSize);
    for (size_t i = 0; i < kSize; i++) buf[i] = pattern(i, 5);
    CHECK(hipMemcpyHtoD(p, buf.data(), kSize));
    hipIpcMemHandle_t h;
    CHECK(hipIpcGetMemHandle(&h, p));
    pid_t pid;
    int sock = spawn_child(argv[0], &pid);
    send_all(sock, &h, sizeof h);
    expect_byte(sock, 'W');
    hipStream_t s;
    CHECK(hipStreamCreate(&s));
    CHECK(hipMemcpyWithStream(buf.data(), p, kSize, hipMemcpyDeviceToHost, s));
    for (size_t i = 0; i < kSize; i++) REQUIRE(buf[i] == 0x77, "the child's write: byte %zu is %u", i, buf[i]);
    CHECK(hipStreamDestroy(s));
    std::printf("parent: sees the child's writes to the hipExtMallocWithFlags buffer\n");
    send_byte(sock, 'R');
    reap(pid);
    CHECK(hipFree(p));
    std::printf("parent: ok\n");
    return 0;
}
