/*
 * Negative cases of reference acl.md section 7.5, one per command-line
 * argument. Each prints the code the rejected call returned, as
 *   [INFO]  <call> returned <code>
 *   [INFO]  aclGetRecentErrMsg: <text naming the rule>
 * and exits 0 once it got that far (the test checks the printed code), or
 * 255 if a set-up call failed.
 *
 *   unknown-handle     import of a shareable handle that was never exported
 *   misaligned-map     MapMem at an address that is not 2 MiB aligned
 *   setpid-disabled    SetPid on a handle exported with DISABLE_PID_VALIDATION
 *   untrusted-export   exporter with the trustlist on that lists only itself
 *   untrusted-import   importer that is not on that trustlist (two processes,
 *                      exchanging file/handle.bin and file/flag.bin)
 */
#include "sample.h"

static void report(const char *call, aclError ret)
{
    INFO_LOG("%s returned %d", call, ret);
    INFO_LOG("aclGetRecentErrMsg: %s", aclGetRecentErrMsg());
}

static int init_device(void)
{
    CHECK(aclInit, NULL);
    CHECK(aclrtSetDevice, 0);
    return 0;
}

static int teardown(void)
{
    CHECK(aclrtResetDeviceForce, 0);
    CHECK(aclFinalize);
    return 0;
}

/* Allocates, reserves (twice the size) and maps one granule; exports it with exportFlags. */
static int export_one(uint64_t exportFlags, aclrtDrvMemHandle *handle, void **virPtr, uint64_t *shareable)
{
    aclrtPhysicalMemProp prop = sample_prop();
    size_t g = 0;
    CHECK(aclrtMemGetAllocationGranularity, &prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g);
    CHECK(aclrtMallocPhysical, handle, g, &prop, 0);
    CHECK(aclrtReserveMemAddress, virPtr, 2 * g, 0, NULL, 0);
    CHECK(aclrtMapMem, *virPtr, g, 0, *handle, 0);
    CHECK(aclrtMemExportToShareableHandle, *handle, ACL_MEM_HANDLE_TYPE_NONE, exportFlags, shareable);
    return 0;
}

static int release_one(aclrtDrvMemHandle handle, void *virPtr)
{
    CHECK(aclrtUnmapMem, virPtr);
    CHECK(aclrtReleaseMemAddress, virPtr);
    CHECK(aclrtFreePhysical, handle);
    return 0;
}

/* ACL-IMP-007: a handle that never existed is 107017. */
static int unknown_handle(void)
{
    aclrtDrvMemHandle handle = NULL;
    report("aclrtMemImportFromShareableHandle", aclrtMemImportFromShareableHandle(0x7fff1234ULL, 0, &handle));
    return 0;
}

/* ACL-MAP-007: a VA that is not a multiple of 2 MiB is 507899 (the kernel's check). */
static int misaligned_map(void)
{
    aclrtPhysicalMemProp prop = sample_prop();
    size_t g = 0;
    CHECK(aclrtMemGetAllocationGranularity, &prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g);
    aclrtDrvMemHandle handle = NULL;
    CHECK(aclrtMallocPhysical, &handle, g, &prop, 0);
    void *virPtr = NULL;
    CHECK(aclrtReserveMemAddress, &virPtr, 2 * g, 0, NULL, 0);
    report("aclrtMapMem", aclrtMapMem((char *)virPtr + 4096, g, 0, handle, 0));
    CHECK(aclrtReleaseMemAddress, virPtr);
    CHECK(aclrtFreePhysical, handle);
    return 0;
}

/* ACL-PID-007: SetPid after export flag 1 is 207006. */
static int setpid_disabled(void)
{
    aclrtDrvMemHandle handle = NULL;
    void *virPtr = NULL;
    uint64_t shareable = 0;
    if (export_one(ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, &handle, &virPtr, &shareable) != 0) {
        return -1;
    }
    int32_t pid = (int32_t)getpid();
    report("aclrtMemSetPidToShareableHandle", aclrtMemSetPidToShareableHandle(shareable, &pid, 1));
    return release_one(handle, virPtr);
}

/* Exporter of ACL-IMP-011: trustlist on, listing only itself. */
static int untrusted_export(void)
{
    aclrtDrvMemHandle handle = NULL;
    void *virPtr = NULL;
    uint64_t shareable = 0;
    if (export_one(ACL_RT_VMM_EXPORT_FLAG_DEFAULT, &handle, &virPtr, &shareable) != 0) {
        return -1;
    }
    int32_t self = 0;
    CHECK(aclrtDeviceGetBareTgid, &self);
    CHECK(aclrtMemSetPidToShareableHandle, shareable, &self, 1);
    REQUIRE(write_exchange("handle", &shareable, sizeof(shareable)) == 0, "writing file/handle.bin failed");
    int32_t flag = 0;
    REQUIRE(read_exchange("flag", &flag, sizeof(flag)) == 0, "reading file/flag.bin failed");
    return release_one(handle, virPtr);
}

/* Importer of ACL-IMP-011: not listed, so 507899. */
static int untrusted_import(void)
{
    uint64_t shareable = 0;
    REQUIRE(read_exchange("handle", &shareable, sizeof(shareable)) == 0, "reading file/handle.bin failed");
    aclrtDrvMemHandle handle = NULL;
    aclError ret = aclrtMemImportFromShareableHandle(shareable, 0, &handle);
    report("aclrtMemImportFromShareableHandle", ret);
    if (ret == ACL_SUCCESS) {
        CHECK(aclrtFreePhysical, handle);
    }
    int32_t flag = 1;
    REQUIRE(write_exchange("flag", &flag, sizeof(flag)) == 0, "writing file/flag.bin failed");
    return 0;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(void);
    } cases[] = {
        {"unknown-handle", unknown_handle},     {"misaligned-map", misaligned_map},
        {"setpid-disabled", setpid_disabled},   {"untrusted-export", untrusted_export},
        {"untrusted-import", untrusted_import},
    };
    if (argc != 2) {
        ERROR_LOG("usage: %s CASE", argv[0]);
        return -1;
    }
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (strcmp(argv[1], cases[i].name) == 0) {
            if (init_device() != 0 || cases[i].run() != 0 || teardown() != 0) {
                return -1;
            }
            return 0;
        }
    }
    ERROR_LOG("unknown case %s", argv[1]);
    return -1;
}
