/*
 * Two streams ordered by an event, the program new users write first:
 *
 *   ordered_copies [nowait]   stream 1 copies 1s into x and records an event;
 *                             stream 2 waits on the event (unless `nowait`),
 *                             then copies 2s into x; the host synchronises
 *                             stream 2 and reads x.
 *
 * Prints "x = <first int>". With the wait it is correctly ordered: x is 2
 * and vmmkit reports nothing, under every VMMKIT_STREAMS. Without it the
 * two copies race (and the host's read races stream 1's): reported.
 */
#include "sample.h"

#define COUNT 1024
#define BYTES (COUNT * sizeof(int))

int main(int argc, char **argv)
{
    int wait = !(argc > 1 && strcmp(argv[1], "nowait") == 0);
    static int ones[COUNT], twos[COUNT], back[COUNT];
    for (int i = 0; i < COUNT; i++) {
        ones[i] = 1;
        twos[i] = 2;
    }
    CHECK(aclInit, NULL);
    CHECK(aclrtSetDevice, 0);
    aclrtStream s1 = NULL, s2 = NULL;
    aclrtEvent ev = NULL;
    void *x = NULL;
    CHECK(aclrtCreateStream, &s1);
    CHECK(aclrtCreateStream, &s2);
    CHECK(aclrtCreateEvent, &ev);
    CHECK(aclrtMalloc, &x, BYTES, ACL_MEM_MALLOC_HUGE_FIRST);

    CHECK(aclrtMemcpyAsync, x, BYTES, ones, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s1);
    CHECK(aclrtRecordEvent, ev, s1);
    if (wait) {
        CHECK(aclrtStreamWaitEvent, s2, ev);
    }
    CHECK(aclrtMemcpyAsync, x, BYTES, twos, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s2);
    CHECK(aclrtSynchronizeStream, s2);
    CHECK(aclrtMemcpy, back, BYTES, x, BYTES, ACL_MEMCPY_DEVICE_TO_HOST);
    INFO_LOG("x = %d", back[0]);

    CHECK(aclrtSynchronizeStream, s1);
    CHECK(aclrtFree, x);
    CHECK(aclrtDestroyEvent, ev);
    CHECK(aclrtDestroyStream, s1);
    CHECK(aclrtDestroyStream, s2);
    CHECK(aclrtResetDevice, 0);
    CHECK(aclFinalize);
    return 0;
}
