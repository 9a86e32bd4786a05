/*
 * Process B of sample 7, "physical memory sharing with pid" (reference
 * acl.md section 7.1): publishes its host pid, imports A's shareable handle
 * onto device 0, maps it, reads the first int back to the host, prints it,
 * and flags A.
 */
#include "sample.h"

int main(void)
{
    aclrtStream stream = NULL;

    CHECK(aclInit, NULL);
    CHECK(aclrtSetDevice, 0);
    CHECK(aclrtCreateStream, &stream);

    int32_t pid = 0;
    CHECK(aclrtDeviceGetBareTgid, &pid);
    REQUIRE(write_exchange("pid", &pid, sizeof(pid)) == 0, "writing file/pid.bin failed");

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
