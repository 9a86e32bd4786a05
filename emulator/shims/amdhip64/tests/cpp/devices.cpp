// Devices, contexts, streams and events through the drop-in, compiled with g++ against Debian's HIP 7.2.4
// headers: each new family (devices, contexts, streams, stream memory
// operations, events, error texts) with clr's documented results, and the
// exports that are not emulated (device code, not yet) failing with
// hipErrorNotSupported. One process; prints "devices: ok" at the end.
// The context functions are deprecated in the header; calling them is the point.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#include "common.hpp"

#include <hip/hip_runtime_api.h>

#include <cstring>

static void devices() {
    int n = 0;
    CHECK(hipGetDeviceCount(&n));
    REQUIRE(n >= 2, "two devices expected, got %d", n);
    char bus[16];
    CHECK(hipDeviceGetPCIBusId(bus, sizeof bus, 1));
    int d = -1;
    CHECK(hipDeviceGetByPCIBusId(&d, bus));
    REQUIRE(d == 1, "%s is device %d", bus, d);
    EXPECT(hipDeviceGetPCIBusId(bus, sizeof bus, n), hipErrorInvalidDevice);
    char name[64];
    CHECK(hipDeviceGetName(name, sizeof name, 0));
    REQUIRE(std::strlen(name) > 0, "an empty name");
    hipDeviceProp_t prop;  // the R0600 layout under 6.x/7.x headers
    CHECK(hipGetDeviceProperties(&prop, 0));
    REQUIRE(std::strcmp(prop.name, name) == 0, "%s vs %s", prop.name, name);
    hipUUID uuid;
    CHECK(hipDeviceGetUuid(&uuid, 0));
    REQUIRE(std::memcmp(uuid.bytes, prop.uuid.bytes, 16) == 0, "uuids differ");
    size_t total = 0;
    CHECK(hipDeviceTotalMem(&total, 0));
    REQUIRE(total == prop.totalGlobalMem, "%zu vs %zu", total, prop.totalGlobalMem);
    int major = 0, minor = 0, v = 0;
    CHECK(hipDeviceComputeCapability(&major, &minor, 0));
    REQUIRE(major == prop.major && minor == prop.minor, "compute capability");
    // Every attribute agrees with the properties where both exist.
    CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeMultiprocessorCount, 0));
    REQUIRE(v == prop.multiProcessorCount, "CUs %d vs %d", v, prop.multiProcessorCount);
    CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeMaxThreadsPerBlock, 0));
    REQUIRE(v == prop.maxThreadsPerBlock, "threads per block");
    CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeL2CacheSize, 0));
    REQUIRE(v == prop.l2CacheSize, "L2");
    CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeDirectManagedMemAccessFromHost, 0));
    REQUIRE(v == prop.directManagedMemAccessFromHost, "attribute 13");
    CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeMemoryPoolsSupported, 0));
    REQUIRE(v == 1 && prop.memoryPoolsSupported == 1, "memory pools");
    CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeCanUseStreamWaitValue, 0));
    REQUIRE(v == 1, "stream wait value");
    EXPECT(hipDeviceGetAttribute(&v, hipDeviceAttributeUnused1, 0), hipErrorInvalidValue);
    CHECK(hipDeviceGetP2PAttribute(&v, hipDevP2PAttrAccessSupported, 0, 1));
    REQUIRE(v == 1, "P2P access");
    EXPECT(hipDeviceGetP2PAttribute(&v, hipDevP2PAttrAccessSupported, 0, 0), hipErrorInvalidDevice);

    unsigned flags = 0;
    CHECK(hipGetDeviceFlags(&flags));
    REQUIRE(flags == hipDeviceScheduleSpin, "default flags %u", flags);
    CHECK(hipSetDeviceFlags(hipDeviceScheduleYield));
    EXPECT(hipSetDeviceFlags(hipDeviceScheduleSpin | hipDeviceScheduleYield), hipErrorInvalidValue);
    size_t limit = 0;
    CHECK(hipDeviceSetLimit(hipLimitMallocHeapSize, 1 << 20));
    CHECK(hipDeviceGetLimit(&limit, hipLimitMallocHeapSize));
    REQUIRE(limit == 1 << 20, "heap %zu", limit);
    EXPECT(hipDeviceSetLimit(hipLimitPrintfFifoSize, 1), hipErrorUnsupportedLimit);
    CHECK(hipDeviceSetCacheConfig(hipFuncCachePreferL1));
    CHECK(hipDeviceSetSharedMemConfig(hipSharedMemBankSizeEightByte));
    hipDeviceProp_t want;
    std::memset(&want, 0, sizeof want);
    CHECK(hipChooseDevice(&d, &want));
    EXPECT(hipSetValidDevices(nullptr, 0), hipErrorNotSupported);

    // hipDeviceReset releases the device's memory and streams.
    void* p = nullptr;
    CHECK(hipMalloc(&p, 4096));
    hipStream_t s;
    CHECK(hipStreamCreate(&s));
    CHECK(hipDeviceReset());
    EXPECT(hipStreamQuery(s), hipErrorContextIsDestroyed);
    CHECK(hipGetDeviceFlags(&flags));
    REQUIRE(flags == hipDeviceScheduleSpin, "flags after the reset %u", flags);
}

static void contexts() {
    hipCtx_t ctx = nullptr, top = nullptr;
    EXPECT(hipCtxPopCurrent(&top), hipErrorInvalidContext);
    CHECK(hipCtxCreate(&ctx, 0, 1));
    CHECK(hipCtxPushCurrent(ctx));
    int d = -1;
    CHECK(hipCtxGetDevice(&d));
    REQUIRE(d == 1, "device %d", d);
    CHECK(hipCtxPopCurrent(&top));
    REQUIRE(top == ctx, "the pushed context");
    hipCtx_t primary = nullptr;
    CHECK(hipDevicePrimaryCtxRetain(&primary, 0));
    CHECK(hipCtxSetCurrent(primary));
    CHECK(hipGetDevice(&d));
    REQUIRE(d == 0, "device %d", d);
    unsigned flags = 9;
    int active = 9;
    CHECK(hipDevicePrimaryCtxGetState(0, &flags, &active));
    REQUIRE(flags == 0 && active == 1, "state %u %d", flags, active);
    EXPECT(hipDevicePrimaryCtxSetFlags(0, 0), hipErrorContextAlreadyInUse);
    EXPECT(hipCtxSynchronize(), hipErrorNotSupported);
    CHECK(hipDevicePrimaryCtxRelease(0));
    CHECK(hipCtxDestroy(ctx));
}

static void streams_and_events() {
    hipStream_t a, b;
    CHECK(hipStreamCreateWithFlags(&a, hipStreamNonBlocking));
    uint32_t mask[2] = {0xff, 0};
    CHECK(hipExtStreamCreateWithCUMask(&b, 2, mask));
    uint32_t got[16] = {};
    CHECK(hipExtStreamGetCUMask(b, 16, got));
    REQUIRE(got[0] == 0xff, "CU mask %x", got[0]);
    hipDevice_t d = -1;
    CHECK(hipStreamGetDevice(a, &d));
    REQUIRE(d == 0, "stream device %d", d);
    unsigned long long id_a = 0, id_b = 0;
    CHECK(hipStreamGetId(a, &id_a));
    CHECK(hipStreamGetId(b, &id_b));
    REQUIRE(id_a != id_b, "stream ids");
    hipStreamAttrValue v;
    std::memset(&v, 0, sizeof v);
    v.priority = -1;
    CHECK(hipStreamSetAttribute(a, hipStreamAttributePriority, &v));
    CHECK(hipStreamCopyAttributes(b, a));
    int prio = 0;
    CHECK(hipStreamGetPriority(b, &prio));
    REQUIRE(prio == -1, "copied priority %d", prio);

    // Stream memory operations: b waits for a flag that a writes.
    uint32_t* flag = nullptr;
    CHECK(hipMalloc(reinterpret_cast<void**>(&flag), 64));
    CHECK(hipMemset(flag, 0, 64));
    // hipMemset of device memory is queued on the NULL stream (clr's ihipMemset);
    // the non-blocking streams below do not wait for it.
    CHECK(hipStreamSynchronize(nullptr));
    uint64_t* word = reinterpret_cast<uint64_t*>(flag + 2);
    CHECK(hipStreamWaitValue32(b, flag, 3, hipStreamWaitValueEq, 0xffffffff));
    CHECK(hipStreamWriteValue64(b, word, 42, 0));
    EXPECT(hipStreamQuery(b), hipErrorNotReady);
    CHECK(hipStreamWriteValue32(a, flag, 3, 0));
    CHECK(hipStreamSynchronize(b));
    uint64_t host = 0;
    CHECK(hipMemcpy(&host, word, 8, hipMemcpyDeviceToHost));
    REQUIRE(host == 42, "the word %llu", (unsigned long long)host);
    EXPECT(hipStreamWaitValue32(a, flag, 0, 7, 0xffffffff), hipErrorInvalidValue);
    hipStreamBatchMemOpParams ops[2];
    std::memset(ops, 0, sizeof ops);
    ops[0].writeValue.operation = hipStreamMemOpWriteValue32;
    ops[0].writeValue.address = flag;
    ops[0].writeValue.value = 9;
    ops[1].waitValue.operation = hipStreamMemOpWaitValue32;
    ops[1].waitValue.address = flag;
    ops[1].waitValue.value = 9;
    ops[1].waitValue.flags = hipStreamWaitValueEq;
    CHECK(hipStreamBatchMemOp(a, 2, ops, 0));
    CHECK(hipStreamSynchronize(a));

    hipStreamCaptureStatus capture = hipStreamCaptureStatusActive;
    CHECK(hipStreamIsCapturing(a, &capture));
    REQUIRE(capture == hipStreamCaptureStatusNone, "capturing %d", (int)capture);
    hipStreamCaptureMode mode = hipStreamCaptureModeRelaxed;
    CHECK(hipThreadExchangeStreamCaptureMode(&mode));
    REQUIRE(mode == hipStreamCaptureModeGlobal, "mode %d", (int)mode);
    hipEvent_t e;
    CHECK(hipEventCreate(&e));
    CHECK(hipEventRecordWithFlags(e, a, hipEventRecordDefault));
    EXPECT(hipEventRecordWithFlags(e, a, 5), hipErrorInvalidValue);
    CHECK(hipEventRecord_spt(e, nullptr));
    CHECK(hipStreamSynchronize_spt(nullptr));
    CHECK(hipEventSynchronize(e));
    CHECK(hipEventDestroy(e));
    CHECK(hipFree(flag));
    CHECK(hipStreamDestroy(a));
    CHECK(hipStreamDestroy(b));
    EXPECT(hipStreamGetDevice(a, &d), hipErrorContextIsDestroyed);
}

// What hipcc emits around a program's code objects (hip_api_trace.hpp's types).
extern "C" void** __hipRegisterFatBinary(const void* data);
extern "C" void __hipRegisterFunction(void** modules, const void* hostFunction, char* deviceFunction,
                                      const char* deviceName, unsigned int threadLimit, void* tid, void* bid,
                                      dim3* blockDim, dim3* gridDim, int* wSize);
extern "C" void __hipUnregisterFatBinary(void** modules);

static void kernel_stub() {}

static void errors_and_unsupported() {
    const char* text = nullptr;
    CHECK(hipDrvGetErrorName(hipErrorNotSupported, &text));
    REQUIRE(std::strcmp(text, "hipErrorNotSupported") == 0, "%s", text);
    EXPECT(hipDrvGetErrorString(static_cast<hipError_t>(4242), &text), hipErrorInvalidValue);
    // Device code is not emulated: the vendor's not-supported code, and the
    // last error says so.
    hipModule_t module = nullptr;
    EXPECT(hipModuleLoad(&module, "kernels.co"), hipErrorNotSupported);
    REQUIRE(hipGetLastError() == hipErrorNotSupported, "the last error");
    // A program with a kernel registers it at load, as hipcc's constructor
    // does: that works and sets no error; the launch then fails with 801.
    (void)hipGetLastError();
    static const char fatbin[16] = {};
    void** modules = __hipRegisterFatBinary(fatbin);
    REQUIRE(modules != nullptr, "a code object handle");
    char kname[] = "kernel";
    __hipRegisterFunction(modules, reinterpret_cast<const void*>(&kernel_stub), kname, kname, 0, nullptr, nullptr,
                          nullptr, nullptr, nullptr);
    REQUIRE(hipPeekAtLastError() == hipSuccess, "registration sets no error");
    EXPECT(hipLaunchKernel(reinterpret_cast<const void*>(&kernel_stub), dim3(1), dim3(1), nullptr, 0, nullptr),
           hipErrorNotSupported);
    __hipUnregisterFatBinary(modules);
    hipGraph_t graph = nullptr;
    EXPECT(hipGraphClone(&graph, nullptr), hipErrorNotSupported);
    REQUIRE(hipKernelNameRef(nullptr) == nullptr, "a pointer-returning export returns NULL");
}

int main() {
    devices();
    contexts();
    streams_and_events();
    errors_and_unsupported();
    std::printf("devices: ok\n");
    return 0;
}
