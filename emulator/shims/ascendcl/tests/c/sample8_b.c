/*
 * Process B of sample 8, "physical memory sharing without pid" (reference
 * acl.md section 7.2): as sample 7's B without the pid exchange; it starts
 * with a helper returning the first error of the set-up calls.
 */
#include "sample.h"

static aclError init_resource(aclrtStream *stream)
{
    aclError ret = aclInit(NULL);
    if (ret != ACL_SUCCESS) {
        return ret;
    }
    ret = aclrtSetDevice(0);
    if (ret != ACL_SUCCESS) {
        return ret;
    }
    return aclrtCreateStream(stream);
}

int main(void)
{
    aclrtStream stream = NULL;
    CHECK(init_resource, &stream);

    uint64_t shareableHandle = 0;
    REQUIRE(read_exchange("handle", &shareableHandle, sizeof(shareableHandle)) == 0,
            "reading file/handle.bin failed");
    aclrtDrvMemHandle handle = NULL;
    CHECK(aclrtMemImportFromShareableHandle, shareableHandle, 0, &handle);

    aclrtPhysicalMemProp prop = sample_prop();
    size_t granularity = 0;
    CHECK(aclrtMemGetAllocationGranularity, &prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &granularity);
    void *virPtr = NULL;
    CHECK(aclrtReserveMemAddress, &virPtr, granularity, 0, NULL, 0);
    CHECK(aclrtMapMem, virPtr, granularity, 0, handle, 0);
    aclrtMemAccessDesc desc = sample_access();
    CHECK(aclrtMemSetAccess, virPtr, granularity, &desc, 1);

    void *hostPtr = NULL;
    CHECK(aclrtMallocHost, &hostPtr, granularity);
    CHECK(aclrtMemcpy, hostPtr, granularity, virPtr, granularity, ACL_MEMCPY_DEVICE_TO_HOST);
    printf("Destination data: %d\n", *(int *)hostPtr);
    fflush(stdout);

    CHECK(aclrtUnmapMem, virPtr);
    int32_t flag = 1;
    REQUIRE(write_exchange("flag", &flag, sizeof(flag)) == 0, "writing file/flag.bin failed");

    CHECK(aclrtReleaseMemAddress, virPtr);
    CHECK(aclrtFreePhysical, handle);
    CHECK(aclrtDestroyStreamForce, stream);
    CHECK(aclrtFreeHost, hostPtr);
    CHECK(aclrtResetDeviceForce, 0);
    CHECK(aclFinalize);
    INFO_LOG("%s", "process B done");
    return 0;
}
