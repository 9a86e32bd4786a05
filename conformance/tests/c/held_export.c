/*
 * An exporter that holds its memory until it is killed, for `vmmkit run`
 * under signals: it allocates 4 MiB on device 0, exports it, writes its pid
 * to the file named by its first argument, and sleeps (two minutes at most,
 * so that a failed test leaves nothing behind for long). Ended by a signal,
 * it writes no exit record; what it held is gc's to collect.
 */
/* The CANN samples' shared parts (CHECK, the property record of device 0),
 * from emulator/shims/ascendcl/tests/c/; first, as it sets _POSIX_C_SOURCE. */
#include "sample.h"

#include <inttypes.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: held_export READY_FILE\n");
        return 2;
    }
    CHECK(aclInit, NULL);
    CHECK(aclrtSetDevice, 0);
    aclrtPhysicalMemProp prop = sample_prop();
    aclrtDrvMemHandle shared = NULL;
    CHECK(aclrtMallocPhysical, &shared, 4 << 20, &prop, 0);
    uint64_t key = 0;
    CHECK(aclrtMemExportToShareableHandle, shared, ACL_MEM_HANDLE_TYPE_NONE,
          ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, &key);
    FILE *f = fopen(argv[1], "w");
    if (f == NULL || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0) {
        perror(argv[1]);
        return 1;
    }
    sleep(120);
    return 3;
}
