/*
 * A deliberately leaky pair of processes, for `vmmkit run`'s leak report.
 *
 * The exporter (no arguments) allocates 4 MiB on device 0, exports it to any
 * process, and starts the importer (itself, with `import <key>`), which
 * imports the memory onto device 1 and exits without freeing it. The
 * exporter then maps a second 2 MiB allocation, retains it once, frees it
 * once (so the retain keeps it alive) and exits without freeing the
 * exported memory either. Expected report:
 *   importer: Import    4 MiB from aclrtMemImportFromShareableHandle
 *   exporter: Export    4 MiB from aclrtMallocPhysical
 *             Retain    2 MiB from aclrtMallocPhysical
 */
/* The CANN samples' shared parts (CHECK, the property record of device 0),
 * from emulator/shims/ascendcl/tests/c/; first, as it sets _POSIX_C_SOURCE. */
#include "sample.h"

#include <inttypes.h>
#include <sys/wait.h>

static int importer(uint64_t key)
{
    CHECK(aclInit, NULL);
    CHECK(aclrtSetDevice, 1);
    aclrtDrvMemHandle handle = NULL;
    CHECK(aclrtMemImportFromShareableHandle, key, 1, &handle);
    printf("importer: imported %#" PRIx64 ", leaving it\n", key);
    return 0;
}

static int exporter(void)
{
    CHECK(aclInit, NULL);
    CHECK(aclrtSetDevice, 0);
    aclrtPhysicalMemProp prop = sample_prop();
    aclrtDrvMemHandle shared = NULL;
    CHECK(aclrtMallocPhysical, &shared, 4 << 20, &prop, 0);
    uint64_t key = 0;
    CHECK(aclrtMemExportToShareableHandle, shared, ACL_MEM_HANDLE_TYPE_NONE,
          ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, &key);
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        return 1;
    }
    if (child == 0) {
        char arg[32];
        snprintf(arg, sizeof arg, "%" PRIu64, key);
        execl("/proc/self/exe", "leaky_pair", "import", arg, (char *)NULL);
        perror("exec");
        _exit(127);
    }
    int status = 0;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "exporter: the importer failed (status %d)\n", status);
        return 1;
    }

    aclrtDrvMemHandle kept = NULL;
    CHECK(aclrtMallocPhysical, &kept, 2 << 20, &prop, 0);
    void *va = NULL;
    CHECK(aclrtReserveMemAddress, &va, 2 << 20, 0, NULL, 0);
    CHECK(aclrtMapMem, va, 2 << 20, 0, kept, 0);
    aclrtDrvMemHandle retained = NULL;
    CHECK(aclrtMemRetainAllocationHandle, va, &retained);
    CHECK(aclrtUnmapMem, va);
    CHECK(aclrtReleaseMemAddress, va);
    CHECK(aclrtFreePhysical, kept);
    printf("exporter: exported %#" PRIx64 ", retained once and freed once, leaving both\n", key);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "import") == 0) {
        return importer(strtoull(argv[2], NULL, 10));
    }
    return exporter();
}
