/*
 * The memory functions of the drop-in, one family per
 * command-line argument, through libascendcl.so and our headers. Each
 * family checks the documented results (success paths and the codes for
 * NULL or bad input), prints "[PASS] <family>" and exits 0; the first
 * mismatch prints the call, the code it returned and the expected one, and
 * exits 255.
 *
 *   malloc     Align32, Cached, WithCfg, ForTaskScheduler, HostWithCfg, the DevSync frees
 *   host       HostRegister, V2, GetDevicePointer, Unregister, MemMapCapabilities
 *   managed    MemAllocManaged, Advise, GetAttr(s), Prefetch(Batch)Async
 *   allocator  the aclrtAllocator* functions, calling the registered callbacks
 *   copy       MemsetD32(Async), MemcpyBatch(V2, Async, AsyncV2), WithCondition, WithOffset, WithDesc
 *   query      GetMemUsageInfo, CheckMemType, UCE info and repair, Flush, Invalidate, Cmo*, L2 flush, links
 *   mbuf       the aclrt*Buf* functions
 *   device     the functions that need device code: 207000 and a message naming them
 */
#include "sample.h"

#include <stdint.h>
#include <sys/stat.h>

/* Calls fn(...) and fails main unless it returned `want`. */
#define EXPECT(want, fn, ...)                                                                        \
    do {                                                                                             \
        aclError expect_ret_ = fn(__VA_ARGS__);                                                      \
        if (expect_ret_ != (want)) {                                                                 \
            ERROR_LOG("%s:%d: %s returned %d, expected %d", __FILE__, __LINE__, #fn, expect_ret_,   \
                      (int)(want));                                                                  \
            ERROR_LOG("aclGetRecentErrMsg: %s", aclGetRecentErrMsg());                               \
            return -1;                                                                               \
        }                                                                                            \
    } while (0)

#define OK(fn, ...) EXPECT(ACL_SUCCESS, fn, __VA_ARGS__)

static int malloc_family(void)
{
    void *p = NULL;
    OK(aclrtMallocAlign32, &p, 100, ACL_MEM_MALLOC_HUGE_FIRST);
    REQUIRE(p != NULL, "aclrtMallocAlign32 gave NULL");
    OK(aclrtMemset, p, 100, 0x5a, 100);
    OK(aclrtFree, p);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocAlign32, NULL, 100, ACL_MEM_MALLOC_HUGE_FIRST);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocAlign32, &p, 0, ACL_MEM_MALLOC_HUGE_FIRST);

    OK(aclrtMallocCached, &p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY);
    OK(aclrtFreeWithDevSync, p);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocCached, &p, 0, ACL_MEM_MALLOC_NORMAL_ONLY);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFreeWithDevSync, NULL);

    /* WithCfg: no config, then device 1 by attribute (the pointer's location says 1). */
    OK(aclrtMallocWithCfg, &p, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST, NULL);
    OK(aclrtFree, p);
    aclrtMallocAttribute attr;
    memset(&attr, 0, sizeof(attr));
    attr.attr = ACL_RT_MEM_ATTR_DEVICE_ID;
    attr.value.deviceId = 1;
    aclrtMallocConfig cfg = {&attr, 1};
    OK(aclrtMallocWithCfg, &p, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST, &cfg);
    aclrtPtrAttributes pa;
    OK(aclrtPointerGetAttributes, p, &pa);
    REQUIRE(pa.location.type == ACL_MEM_LOCATION_TYPE_DEVICE && pa.location.id == 1, "WithCfg ignored the device");
    OK(aclrtFree, p);
    attr.value.deviceId = 99;
    EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMallocWithCfg, &p, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST, &cfg);
    aclrtMallocConfig no_attrs = {NULL, 1};
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocWithCfg, &p, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST, &no_attrs);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocWithCfg, NULL, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST, NULL);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocForTaskScheduler, &p, 0, ACL_MEM_MALLOC_HUGE_FIRST, NULL);
    OK(aclrtMallocForTaskScheduler, &p, 64, ACL_MEM_MALLOC_HUGE_FIRST, NULL);
    OK(aclrtFree, p);

    void *h = NULL;
    OK(aclrtMallocHostWithCfg, &h, 256, NULL);
    memset(h, 7, 256);
    OK(aclrtFreeHostWithDevSync, h);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocHostWithCfg, &h, 0, NULL);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMallocHostWithCfg, NULL, 8, NULL);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFreeHostWithDevSync, NULL);
    return 0;
}

static int host_family(void)
{
    static char buf[3 * 4096] __attribute__((aligned(4096)));
    void *dev = NULL;
    OK(aclrtHostRegister, buf, 4096, ACL_HOST_REGISTER_MAPPED, &dev);
    REQUIRE(dev != NULL, "aclrtHostRegister gave no device pointer");
    void *again = NULL;
    OK(aclrtHostGetDevicePointer, buf + 16, &again, 0);
    REQUIRE(again == buf + 16, "aclrtHostGetDevicePointer: not the registered address");
    /* The device address is usable by a copy from device memory. */
    void *d = NULL;
    OK(aclrtMalloc, &d, 64, ACL_MEM_MALLOC_HUGE_FIRST);
    OK(aclrtMemset, d, 64, 0x42, 64);
    OK(aclrtMemcpy, dev, 64, d, 64, ACL_MEMCPY_DEVICE_TO_DEVICE);
    REQUIRE(buf[0] == 0x42 && buf[63] == 0x42, "copy into registered memory");
    /* Registered memory is pinned host memory: HOST, and aclrtMemsetD32 fills it. */
    aclrtPtrAttributes pa;
    OK(aclrtPointerGetAttributes, buf, &pa);
    REQUIRE(pa.location.type == ACL_MEM_LOCATION_TYPE_HOST, "registered memory is HOST");
    OK(aclrtMemsetD32, buf, 4096, 0x11223344U, 4);
    REQUIRE(((uint32_t *)(void *)buf)[3] == 0x11223344U, "aclrtMemsetD32 of registered memory");
    OK(aclrtFree, d);

    EXPECT(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED, aclrtHostRegister, buf + 100, 10, ACL_HOST_REGISTER_MAPPED, &dev);
    EXPECT(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED, aclrtHostRegisterV2, buf, 8, ACL_HOST_REG_PINNED);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtHostRegister, NULL, 10, ACL_HOST_REGISTER_MAPPED, &dev);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtHostRegister, buf, 0, ACL_HOST_REGISTER_MAPPED, &dev);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtHostRegister, buf + 4096, 10, ACL_HOST_REGISTER_MAPPED, NULL);
    EXPECT(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtHostRegister, buf + 4096, 10, (aclrtHostRegisterType)0x2, &dev);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtHostGetDevicePointer, buf, &again, 1);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtHostGetDevicePointer, NULL, &again, 0);
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtHostGetDevicePointer, buf + 4096, &again, 0);

    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtHostRegisterV2, buf + 4096, 4096, 0);
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtHostRegisterV2, buf + 4096, 4096, 0x1);
    OK(aclrtHostRegisterV2, buf + 4096, 4096, ACL_HOST_REG_MAPPED | ACL_HOST_REG_PINNED);
    OK(aclrtHostRegisterV2, buf + 8192, 4096, ACL_HOST_REG_PINNED);
    /* Pinned only: not mapped to the device. */
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtHostGetDevicePointer, buf + 8192, &again, 0);

    OK(aclrtHostUnregister, buf);
    OK(aclrtHostUnregister, buf + 4096);
    OK(aclrtHostUnregister, buf + 8192);
    EXPECT(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, aclrtHostUnregister, buf);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtHostUnregister, NULL);
    /* Once unregistered, the range registers again. */
    OK(aclrtHostRegister, buf, 4096, ACL_HOST_REGISTER_MAPPED, &dev);
    OK(aclrtHostUnregister, buf);

    aclrtHostMemMapCapability cap = ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED;
    OK(aclrtHostMemMapCapabilities, 0, ACL_RT_HAC_TYPE_SDMA, &cap);
    REQUIRE(cap == ACL_RT_HOST_MEM_MAP_SUPPORTED, "host memory maps for SDMA");
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtHostMemMapCapabilities, 0, ACL_RT_HAC_TYPE_SDMA, NULL);
    EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtHostMemMapCapabilities, 77, ACL_RT_HAC_TYPE_SDMA, &cap);
    return 0;
}

static int managed_family(void)
{
    void *m = NULL;
    OK(aclrtMemAllocManaged, &m, 8192, ACL_RT_MEM_ATTACH_GLOBAL);
    memset(m, 1, 8192); /* the host reaches it */
    aclrtPtrAttributes pa;
    OK(aclrtPointerGetAttributes, m, &pa);
    REQUIRE(pa.location.type == ACL_MEM_LOCATION_TYPE_MANAGED, "managed memory is MANAGED");
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemAllocManaged, NULL, 8, ACL_RT_MEM_ATTACH_GLOBAL);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemAllocManaged, &m, 8, 2);

    aclrtMemManagedLocation dev1 = {ACL_MEM_LOCATIONTYPE_DEVICE, 1};
    OK(aclrtMemManagedAdvise, m, 4096, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev1);
    OK(aclrtMemManagedAdvise, m, 4096, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, dev1);
    OK(aclrtMemManagedAdvise, m, 4096, ACL_MEM_ADVISE_SET_ACCESSED_BY, dev1);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemManagedAdvise, NULL, 4096, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev1);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemManagedAdvise, m, 0, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev1);
    static char not_managed[64];
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedAdvise, not_managed, 64, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev1);

    int32_t v = -5;
    OK(aclrtMemManagedGetAttr, ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4096, &v, sizeof(v));
    REQUIRE(v == 1, "READ_MOSTLY after the advice");
    OK(aclrtMemManagedGetAttr, ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 4096, &v, sizeof(v));
    REQUIRE(v == 1, "PREFERRED_LOCATION is device 1");
    int32_t by[4];
    OK(aclrtMemManagedGetAttr, ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 4096, by, sizeof(by));
    REQUIRE(by[0] == 1 && by[1] == -2, "ACCESSED_BY lists device 1");
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttr, ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4096, NULL, 4);
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedGetAttr, (aclrtMemManagedRangeAttribute)42, m, 4096, &v, 4);

    aclrtMemManagedLocation host = {ACL_MEM_LOCATIONTYPE_HOST, 0};
    OK(aclrtMemManagedPrefetchAsync, m, 8192, host, 0, NULL);
    OK(aclrtSynchronizeDevice);
    aclrtMemManagedRangeAttribute attrs[2] = {ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
                                              ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY};
    int32_t t = -1, rm = -1;
    void *data[2] = {&t, &rm};
    size_t sizes[2] = {4, 4};
    OK(aclrtMemManagedGetAttrs, attrs, 2, m, 4096, data, sizes);
    REQUIRE(t == ACL_MEM_LOCATIONTYPE_HOST && rm == 1, "GetAttrs after the prefetch");
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchAsync, m, 8192, host, 1, NULL);

    const void *ptrs[2] = {m, (char *)m + 4096};
    size_t lens[2] = {4096, 4096};
    aclrtMemManagedLocation locs[1] = {dev1};
    size_t idx[1] = {0};
    OK(aclrtMemManagedPrefetchBatchAsync, ptrs, lens, 2, locs, idx, 1, 0, NULL);
    OK(aclrtMemManagedGetAttr, ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, (char *)m + 4096, 4096, &v, 4);
    REQUIRE(v == 1, "the batch prefetched to device 1");
    size_t bad_idx[1] = {1};
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchBatchAsync, ptrs, lens, 2, locs, bad_idx, 1, 0, NULL);
    OK(aclrtFree, m);
    return 0;
}

/* A user allocator: a counter of live blocks; a block is its own address. */
typedef struct {
    int live;
    int allocs;
} UserAllocator;

static void *user_alloc(aclrtAllocator a, size_t size)
{
    UserAllocator *u = (UserAllocator *)a;
    void *p = NULL;
    if (aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        return NULL;
    }
    u->live++;
    u->allocs++;
    return p;
}

static void user_free(aclrtAllocator a, aclrtAllocatorBlock block)
{
    UserAllocator *u = (UserAllocator *)a;
    if (aclrtFree(block) == ACL_SUCCESS) {
        u->live--;
    }
}

static void *user_advise(aclrtAllocator a, size_t size, aclrtAllocatorAddr addr)
{
    (void)addr;
    return user_alloc(a, size);
}

static void *user_addr(aclrtAllocatorBlock block)
{
    return block;
}

static int allocator_family(void)
{
    UserAllocator u = {0, 0};
    aclrtStream s = NULL;
    OK(aclrtCreateStream, &s);
    aclrtAllocatorDesc desc = aclrtAllocatorCreateDesc();
    REQUIRE(desc != NULL, "aclrtAllocatorCreateDesc gave NULL");
    /* Not complete yet: the object and callbacks are required. */
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister, s, desc);
    OK(aclrtAllocatorSetObjToDesc, desc, &u);
    OK(aclrtAllocatorSetAllocFuncToDesc, desc, user_alloc);
    OK(aclrtAllocatorSetFreeFuncToDesc, desc, user_free);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister, s, desc);
    OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc, desc, user_addr);
    OK(aclrtAllocatorSetAllocAdviseFuncToDesc, desc, user_advise);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetAllocFuncToDesc, desc, NULL);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetObjToDesc, NULL, &u);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister, NULL, desc);
    OK(aclrtAllocatorRegister, s, desc);

    /* What an operator library does: look the allocator up and call it. */
    aclrtAllocatorDesc got = NULL;
    aclrtAllocator obj = NULL;
    aclrtAllocatorAllocFunc af = NULL;
    aclrtAllocatorFreeFunc ff = NULL;
    aclrtAllocatorAllocAdviseFunc adf = NULL;
    aclrtAllocatorGetAddrFromBlockFunc gf = NULL;
    OK(aclrtAllocatorGetByStream, s, &got, &obj, &af, &ff, &adf, &gf);
    REQUIRE(got == desc && obj == &u && af == user_alloc && ff == user_free && gf == user_addr, "GetByStream");
    aclrtAllocatorBlock block = af(obj, 4096);
    REQUIRE(block != NULL && u.live == 1, "the registered alloc ran");
    void *addr = gf(block);
    OK(aclrtMemsetAsync, addr, 4096, 3, 4096, s);
    OK(aclrtSynchronizeStream, s);
    ff(obj, block);
    REQUIRE(u.live == 0 && u.allocs == 1, "the registered free ran");
    OK(aclrtAllocatorGetByStream, s, &got, NULL, NULL, NULL, NULL, NULL);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream, s, NULL, NULL, NULL, NULL, NULL, NULL);

    OK(aclrtAllocatorUnregister, s);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream, s, &got, NULL, NULL, NULL, NULL, NULL);
    OK(aclrtAllocatorUnregister, s); /* unregistering twice is fine (allocator.cpp) */
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtAllocatorUnregister, NULL);
    OK(aclrtAllocatorDestroyDesc, desc);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtAllocatorDestroyDesc, desc);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtAllocatorDestroyDesc, NULL);
    OK(aclrtDestroyStream, s);
    return 0;
}

static int copy_family(void)
{
    aclrtStream s = NULL;
    OK(aclrtCreateStream, &s);
    void *d = NULL;
    OK(aclrtMalloc, &d, 4096, ACL_MEM_MALLOC_HUGE_FIRST);
    uint32_t *h = NULL;
    OK(aclrtMallocHost, (void **)&h, 4096);

    /* MemsetD32: 16 words on the device, read back. */
    OK(aclrtMemsetD32, d, 4096, 0xdeadbeefU, 16);
    OK(aclrtMemcpy, h, 4096, d, 64, ACL_MEMCPY_DEVICE_TO_HOST);
    REQUIRE(h[0] == 0xdeadbeefU && h[15] == 0xdeadbeefU, "aclrtMemsetD32 wrote the words");
    OK(aclrtMemsetD32Async, d, 4096, 0x01020304U, 4, s);
    OK(aclrtSynchronizeStream, s);
    OK(aclrtMemcpy, h, 4096, d, 16, ACL_MEMCPY_DEVICE_TO_HOST);
    REQUIRE(h[3] == 0x01020304U, "aclrtMemsetD32Async wrote the words");
    OK(aclrtMemsetD32, NULL, 0, 0, 0); /* N 0: nothing is checked */
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemsetD32, NULL, 16, 0, 4);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemsetD32, (char *)d + 1, 16, 0, 2);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemsetD32, d, 15, 0, 4);
    static uint32_t pageable[8];
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemsetD32, pageable, sizeof(pageable), 0, 8);

    /* A batch of two copies host -> device, then device -> host. */
    for (int i = 0; i < 64; i++) {
        h[i] = (uint32_t)i;
    }
    void *dsts[2] = {d, (char *)h + 1024};
    void *srcs[2] = {h, d};
    size_t maxs[2] = {4096, 1024};
    size_t sizes[2] = {256, 256};
    aclrtMemcpyBatchAttr attrs[1];
    memset(attrs, 0, sizeof(attrs));
    size_t idx[1] = {0};
    size_t fail = 0;
    OK(aclrtMemcpyBatch, dsts, maxs, srcs, sizes, 2, attrs, idx, 1, &fail);
    REQUIRE(fail == SIZE_MAX && h[256 + 63] == 63, "aclrtMemcpyBatch copied");
    OK(aclrtMemcpyBatchV2, dsts, maxs, srcs, sizes, 2, attrs, idx, 1);
    OK(aclrtMemcpyBatchAsync, dsts, maxs, srcs, sizes, 2, attrs, idx, 1, &fail, s);
    OK(aclrtMemcpyBatchAsyncV2, dsts, maxs, srcs, sizes, 2, attrs, idx, 1, s);
    OK(aclrtSynchronizeStream, s);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatch, dsts, maxs, srcs, sizes, 2, attrs, idx, 1, NULL);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatch, dsts, maxs, srcs, NULL, 2, attrs, idx, 1, &fail);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatch, dsts, maxs, srcs, sizes, 0, attrs, idx, 1, &fail);
    size_t small[2] = {4096, 100};
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatch, dsts, small, srcs, sizes, 2, attrs, idx, 1, &fail);
    attrs[0].rsv[3] = 1;
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatch, dsts, maxs, srcs, sizes, 2, attrs, idx, 1, &fail);
    attrs[0].rsv[3] = 0;
    void *bad_srcs[2] = {h, (void *)0x10}; /* entry 1 reads the null page */
    fail = 0;
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyBatch, dsts, maxs, bad_srcs, sizes, 2, attrs, idx, 1, &fail);
    REQUIRE(fail == 1, "failIndex names the entry that failed");
    size_t zeros[2] = {0, 0};
    OK(aclrtMemcpyBatch, NULL, NULL, NULL, zeros, 2, NULL, NULL, 0, &fail); /* all sizes 0: a no-op */

    /* WithCondition: pinned host memory copies, pageable is refused. */
    OK(aclrtMemcpyAsyncWithCondition, d, 4096, h, 64, ACL_MEMCPY_HOST_TO_DEVICE, s);
    OK(aclrtSynchronizeStream, s);
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsyncWithCondition, d, 4096, pageable, 32,
           ACL_MEMCPY_HOST_TO_DEVICE, s);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsyncWithCondition, NULL, 4096, h, 64, ACL_MEMCPY_HOST_TO_DEVICE, s);

    /* WithOffset: device to device within one allocation. */
    OK(aclrtMemsetD32, d, 4096, 0xabababab, 16);
    OK(aclrtMemcpyAsyncWithOffset, (void **)d, 4096, 1024, (const void **)d, 64, 0, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE,
       s);
    OK(aclrtSynchronizeStream, s);
    OK(aclrtMemcpy, h, 4096, (char *)d + 1024, 64, ACL_MEMCPY_DEVICE_TO_HOST);
    REQUIRE(h[0] == 0xababababU, "aclrtMemcpyAsyncWithOffset copied at the offsets");
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsyncWithOffset, (void **)d, 4096, 0, (const void **)d, 64, 0,
           ACL_MEMCPY_DEVICE_TO_DEVICE, s);
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsyncWithOffset, (void **)d, 64, 32, (const void **)d, 64, 0,
           ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s);

    /* A memcpy descriptor. */
    size_t n = 0;
    OK(aclrtGetMemcpyDescSize, ACL_MEMCPY_HOST_TO_DEVICE, &n);
    REQUIRE(n > 0 && n <= 256, "descriptor size");
    char desc[256];
    h[0] = 77;
    OK(aclrtSetMemcpyDesc, desc, ACL_MEMCPY_HOST_TO_DEVICE, h, d, 4, NULL);
    OK(aclrtMemcpyAsyncWithDesc, desc, ACL_MEMCPY_HOST_TO_DEVICE, s);
    OK(aclrtSynchronizeStream, s);
    h[0] = 0;
    OK(aclrtMemcpy, h, 4, d, 4, ACL_MEMCPY_DEVICE_TO_HOST);
    REQUIRE(h[0] == 77, "aclrtMemcpyAsyncWithDesc copied");
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtGetMemcpyDescSize, (aclrtMemcpyKind)9, &n);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtSetMemcpyDesc, desc, ACL_MEMCPY_HOST_TO_DEVICE, h, d, 0, NULL);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtSetMemcpyDesc, desc, ACL_MEMCPY_HOST_TO_DEVICE, h, d, 4, desc);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsyncWithDesc, desc, ACL_MEMCPY_HOST_TO_DEVICE, NULL);
    memset(desc, 0, sizeof(desc));
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsyncWithDesc, desc, ACL_MEMCPY_HOST_TO_DEVICE, s);

    OK(aclrtFreeHost, h);
    OK(aclrtFree, d);
    OK(aclrtDestroyStream, s);
    return 0;
}

static int query_family(void)
{
    void *d = NULL;
    OK(aclrtMalloc, &d, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemUsageInfo info[2];
    size_t out = 9;
    OK(aclrtGetMemUsageInfo, 0, info, 2, &out);
    REQUIRE(out == 1 && info[0].curMemSize >= (1 << 20) && strcmp(info[0].name, "app") == 0, "usage info");
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtGetMemUsageInfo, 0, NULL, 2, &out);
    EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetMemUsageInfo, 99, info, 2, &out);

    static char hostbuf[16];
    void *addrs[2] = {d, (char *)d + 64};
    uint32_t result = 7;
    OK(aclrtCheckMemType, addrs, 2, ACL_RT_MEM_TYPE_DEV, &result, 0);
    REQUIRE(result == 1, "device memory is DEV");
    addrs[1] = hostbuf;
    OK(aclrtCheckMemType, addrs, 2, ACL_RT_MEM_TYPE_DEV, &result, 0);
    REQUIRE(result == 0, "host memory is not DEV");
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckMemType, addrs, 2, ACL_RT_MEM_TYPE_DEV, &result, 1);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtCheckMemType, NULL, 2, ACL_RT_MEM_TYPE_DEV, &result, 0);

    aclrtMemUceInfo uce[2];
    size_t got = 5;
    OK(aclrtGetMemUceInfo, 0, uce, 2, &got);
    REQUIRE(got == 0, "no uncorrectable errors");
    memset(uce, 0, sizeof(uce));
    uce[0].addr = d;
    uce[0].len = 64;
    OK(aclrtMemUceRepair, 0, uce, 1);
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemUceRepair, 0, uce, 0);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtGetMemUceInfo, 0, uce, 2, NULL);

    OK(aclrtMemFlush, d, 4096);
    OK(aclrtMemInvalidate, d, 4096);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemFlush, NULL, 4096);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemInvalidate, d, 0);

    OK(aclrtCmoAsync, d, 4096, ACL_RT_CMO_TYPE_PREFETCH, NULL);
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoAsync, d, 4096, (aclrtCmoType)9, NULL);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtCmoAsync, NULL, 4096, ACL_RT_CMO_TYPE_PREFETCH, NULL);
    OK(aclrtCmoAsyncWithBarrier, d, 4096, ACL_RT_CMO_TYPE_FLUSH, 1, NULL);
    aclrtBarrierTaskInfo bt;
    memset(&bt, 0, sizeof(bt));
    bt.barrierNum = 1;
    bt.cmoInfo[0].cmoType = ACL_RT_CMO_TYPE_FLUSH;
    bt.cmoInfo[0].barrierId = 1;
    OK(aclrtCmoWaitBarrier, &bt, NULL, 0);
    bt.barrierNum = 7;
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoWaitBarrier, &bt, NULL, 0);
    size_t cmo_size = 0;
    OK(aclrtCmoGetDescSize, &cmo_size);
    char cmo_desc[128];
    REQUIRE(cmo_size > 0 && cmo_size <= sizeof(cmo_desc), "cmo descriptor size");
    OK(aclrtCmoSetDesc, cmo_desc, d, 4096);
    OK(aclrtCmoAsyncWithDesc, cmo_desc, ACL_RT_CMO_TYPE_WRITEBACK, NULL, NULL);
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoAsyncWithDesc, cmo_desc, ACL_RT_CMO_TYPE_WRITEBACK, NULL, cmo_desc);
    OK(aclrtDeviceL2CacheFlush, NULL);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtDeviceL2CacheFlush, cmo_desc);

    OK(aclrtMemP2PMap, d, 4096, 1, 0);
    EXPECT(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemP2PMap, d, 4096, 42, 0);
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemP2PMap, hostbuf, 16, 1, 0);
    OK(aclrtMemMapSelectedLink, d, 4096, (char *)d + 8192, 0);
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemMapSelectedLink, hostbuf, 16, d, 0);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtMemMapSelectedLink, d, 4096, (char *)d + 8192, 2);

    aclrtPhysicalMemProp prop = sample_prop();
    size_t g = 0;
    OK(aclrtMemGetAllocationGranularity, &prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g);
    aclrtDrvMemHandle handle = NULL;
    OK(aclrtMallocPhysical, &handle, g, &prop, 0);
    OK(aclrtMemMapSetLink, handle, ACL_RT_MEM_ACCESS_LINK_HCCS);
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemMapSetLink, handle, (aclrtMemLinkType)8);
    OK(aclrtFreePhysical, handle);
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtMemMapSetLink, handle, ACL_RT_MEM_ACCESS_LINK_HCCS);

    char key[65];
    OK(aclrtIpcMemGetExportKey, d, 1 << 20, key, sizeof(key), 0);
    OK(aclrtIpcMemSetAttr, key, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_HCCS);
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetAttr, key, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 9);
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetAttr, NULL, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 0);
    int32_t tgid = 0;
    OK(aclrtDeviceGetBareTgid, &tgid);
    int32_t peer = tgid + 1;
    aclrtServerPid sp;
    sp.sdid = 0;
    sp.pid = &peer;
    sp.num = 1;
    /* This server (the network namespace's inode is the sdid), then another one. */
    struct stat ns;
    REQUIRE(stat("/proc/self/ns/net", &ns) == 0, "stat /proc/self/ns/net");
    sp.sdid = (uint32_t)ns.st_ino;
    OK(aclrtIpcMemImportPidInterServer, key, &sp, 1);
    sp.sdid = (uint32_t)ns.st_ino + 1;
    OK(aclrtIpcMemImportPidInterServer, key, &sp, 1);
    sp.pid = NULL;
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer, key, &sp, 1);
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer, key, &sp, 0);
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer, key, NULL, 1);
    OK(aclrtIpcMemClose, key);
    OK(aclrtFree, d);
    return 0;
}

static int mbuf_family(void)
{
    aclrtMbuf a = NULL, b = NULL, ref = NULL;
    OK(aclrtAllocBuf, &a, 256);
    OK(aclrtAllocBuf, &b, 64);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtAllocBuf, NULL, 256);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtAllocBuf, &a, 0);
    void *data = NULL;
    size_t size = 0;
    OK(aclrtGetBufData, a, &data, &size);
    REQUIRE(data != NULL && size == 256, "aclrtGetBufData");
    memset(data, 9, 256);
    OK(aclrtSetBufDataLen, a, 100);
    size_t len = 0;
    OK(aclrtGetBufDataLen, a, &len);
    REQUIRE(len == 100, "data length");
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtSetBufDataLen, a, 257);

    const char user[8] = "vmmkit!";
    char back[8] = {0};
    OK(aclrtSetBufUserData, a, user, 8, 88);
    OK(aclrtGetBufUserData, a, back, 8, 88);
    REQUIRE(memcmp(user, back, 8) == 0, "user data round trip");
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtSetBufUserData, a, user, 8, 89);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtGetBufUserData, a, NULL, 8, 0);

    OK(aclrtCopyBufRef, a, &ref);
    void *ref_data = NULL;
    OK(aclrtGetBufData, ref, &ref_data, &size);
    REQUIRE(ref_data == data, "a reference shares the data");

    OK(aclrtAppendBufChain, a, b);
    uint32_t num = 0;
    OK(aclrtGetBufChainNum, a, &num);
    REQUIRE(num == 2, "chain of two");
    aclrtMbuf second = NULL;
    OK(aclrtGetBufFromChain, a, 1, &second);
    REQUIRE(second == b, "the appended mbuf is second");
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtGetBufFromChain, a, 2, &second);
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtAppendBufChain, a, b);

    OK(aclrtFreeBuf, a);
    memset(ref_data, 1, 16); /* still alive: the reference holds it */
    OK(aclrtFreeBuf, ref);
    OK(aclrtFreeBuf, b);
    EXPECT(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeBuf, a);
    EXPECT(ACL_ERROR_INVALID_PARAM, aclrtFreeBuf, NULL);
    return 0;
}

/* Names the function in the thread's message and says device code. */
static int says_device_code(const char *name)
{
    const char *msg = aclGetRecentErrMsg();
    REQUIRE(msg != NULL && strstr(msg, name) != NULL && strstr(msg, "device code") != NULL,
            "the message names the function and device code");
    return 0;
}

static int device_family(void)
{
    char buf[8] = {0};
    EXPECT(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemcpyToSymbol, buf, buf, 8, 0, ACL_MEMCPY_HOST_TO_DEVICE);
    if (says_device_code("aclrtMemcpyToSymbol") != 0) {
        return -1;
    }
    EXPECT(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemcpyFromSymbol, buf, 8, buf, 8, 0, ACL_MEMCPY_DEVICE_TO_HOST);
    EXPECT(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemcpyToSymbolAsync, buf, buf, 8, 0, ACL_MEMCPY_HOST_TO_DEVICE,
           NULL);
    EXPECT(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemcpyFromSymbolAsync, buf, 8, buf, 8, 0,
           ACL_MEMCPY_DEVICE_TO_HOST, NULL);
    EXPECT(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCacheLastTaskOpInfo, buf, 8);
    EXPECT(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCacheLastTaskExtendInfo, buf, 8);
    return says_device_code("aclrtCacheLastTaskExtendInfo");
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(void);
    } families[] = {
        {"malloc", malloc_family}, {"host", host_family}, {"managed", managed_family},
        {"allocator", allocator_family}, {"copy", copy_family}, {"query", query_family},
        {"mbuf", mbuf_family}, {"device", device_family},
    };
    REQUIRE(argc == 2, "usage: memory18 <family>");
    CHECK(aclInit, NULL);
    CHECK(aclrtSetDevice, 0);
    for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
        if (strcmp(argv[1], families[i].name) == 0) {
            if (families[i].run() != 0) {
                return -1;
            }
            CHECK(aclrtResetDeviceForce, 0);
            CHECK(aclFinalize);
            INFO_LOG("[PASS] %s", argv[1]);
            return 0;
        }
    }
    ERROR_LOG("unknown family %s", argv[1]);
    return -1;
}
