/*
 * Process A of sample 8, "physical memory sharing without pid" (reference
 * acl.md section 7.2): as sample 7's A, but exported with
 * DISABLE_PID_VALIDATION, so there is no pid exchange and no SetPid.
 */
#include "sample.h"

int main(void)
{
    const size_t dataSize = 4096;
    aclrtStream stream = NULL;

    CHECK(aclInit, NULL);
    CHECK(aclrtSetDevice, 0);
    CHECK(aclrtCreateStream, &stream);

    aclrtPhysicalMemProp prop = sample_prop();
    size_t granularity = 0;
    CHECK(aclrtMemGetAllocationGranularity, &prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &granularity);
    size_t size = (dataSize + granularity - 1) / granularity * granularity;
    INFO_LOG("granularity: %zu, physical size: %zu", granularity, size);

    aclrtDrvMemHandle handle = NULL;
    CHECK(aclrtMallocPhysical, &handle, size, &prop, 0);
    void *virPtr = NULL;
    CHECK(aclrtReserveMemAddress, &virPtr, granularity, 0, NULL, 0);
    CHECK(aclrtMapMem, virPtr, size, 0, handle, 0);
    aclrtMemAccessDesc desc = sample_access();
    CHECK(aclrtMemSetAccess, virPtr, size, &desc, 1);

    CHECK(WriteDo, 1, stream, (int *)virPtr, 123);

    uint64_t shareableHandle = 0;
    CHECK(aclrtMemExportToShareableHandle, handle, ACL_MEM_HANDLE_TYPE_NONE,
          ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, &shareableHandle);
    INFO_LOG("shareableHandle: %d", (int)shareableHandle);
    REQUIRE(write_exchange("handle", &shareableHandle, sizeof(shareableHandle)) == 0,
            "writing file/handle.bin failed");

    int32_t flag = 0;
    REQUIRE(read_exchange("flag", &flag, sizeof(flag)) == 0, "reading file/flag.bin failed");

    CHECK(aclrtUnmapMem, virPtr);
    CHECK(aclrtReleaseMemAddress, virPtr);
    CHECK(aclrtFreePhysical, handle);
    CHECK(aclrtDestroyStreamForce, stream);
    CHECK(aclrtResetDeviceForce, 0);
    CHECK(aclFinalize);
    INFO_LOG("%s", "process A done");
    return 0;
}
