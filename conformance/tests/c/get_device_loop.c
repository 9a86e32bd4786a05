/*
 * N cheap control calls (aclrtGetDevice), for the memory `vmmkit run
 * --trace` takes: each is one `call` record in the journal.
 *   get_device_loop N
 */
/* The CANN samples' shared parts (CHECK), from emulator/shims/ascendcl/tests/c/;
 * first, as it sets _POSIX_C_SOURCE. */
#include "sample.h"

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
    CHECK(aclInit, NULL);
    CHECK(aclrtSetDevice, 0);
    int32_t device = -1;
    for (long i = 0; i < n; i++) {
        CHECK(aclrtGetDevice, &device);
    }
    CHECK(aclrtResetDevice, 0);
    CHECK(aclFinalize);
    printf("get_device_loop: %ld calls of aclrtGetDevice\n", n);
    return 0;
}
