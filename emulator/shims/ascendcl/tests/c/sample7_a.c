/*
 * Process A of sample 7, "physical memory sharing with pid" (reference
 * acl.md section 7.1): allocates and maps physical memory on device 0,
 * writes 123 into it, exports it with the trustlist on, lists process B's
 * pid, hands B the shareable handle, and tears down after B's flag.
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
    CHECK(aclrtMemExportToShareableHandle, handle, ACL_MEM_HANDLE_TYPE_NONE, ACL_RT_VMM_EXPORT_FLAG_DEFAULT,
          &shareableHandle);
    INFO_LOG("shareableHandle: %d", (int)shareableHandle);

    int32_t pid = 0;
    REQUIRE(read_exchange("pid", &pid, sizeof(pid)) == 0, "reading file/pid.bin failed");
    INFO_LOG("importer pid: %d", pid);
    CHECK(aclrtMemSetPidToShareableHandle, shareableHandle, &pid, 1);
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
