/*
 * Two processes ordered by a notify or an IPC event:
 *
 *   stream_pair a <notify|event>         A: aclrtMalloc, IPC key of it; writes
 *                                        123s into it with aclrtMemcpyAsync on a
 *                                        stream and records the notify / event
 *                                        after it, without synchronising; hands
 *                                        out the keys; waits for B, then cleans up.
 *   stream_pair b <notify|event> [nowait] B: imports the memory and the notify /
 *                                        event; waits on it on its own stream
 *                                        (aclrtWaitAndResetNotify /
 *                                        aclrtStreamWaitEvent), unless `nowait`;
 *                                        copies the memory back on that stream,
 *                                        synchronises and prints what it read.
 *
 * B prints "Destination data: <first int>" and "Consistent: yes|no" (all
 * 1024 ints equal 123). Without the wait, B may read before A's copy has run:
 * under VMMKIT_STREAMS=adversarial it always does.
 */
#include "sample.h"

#define COUNT 1024
#define BYTES (COUNT * sizeof(int))
#define VALUE 123

struct keys {
    char mem[65];
    char notify[65];
    aclrtIpcEventHandle event;
};

static int run_a(int use_notify)
{
    CHECK(aclInit, NULL);
    CHECK(aclrtSetDevice, 0);
    aclrtStream stream = NULL;
    CHECK(aclrtCreateStream, &stream);
    void *dev = NULL;
    CHECK(aclrtMalloc, &dev, BYTES, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK(aclrtMemset, dev, BYTES, 0, BYTES);

    struct keys k;
    memset(&k, 0, sizeof(k));
    CHECK(aclrtIpcMemGetExportKey, dev, BYTES, k.mem, sizeof(k.mem), 1);
    aclrtNotify notify = NULL;
    aclrtEvent event = NULL;
    if (use_notify) {
        CHECK(aclrtCreateNotify, &notify, ACL_NOTIFY_DEFAULT);
        CHECK(aclrtNotifyGetExportKey, notify, k.notify, sizeof(k.notify),
              ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION);
    } else {
        CHECK(aclrtCreateEventExWithFlag, &event, ACL_EVENT_IPC);
        CHECK(aclrtIpcGetEventHandle, event, &k.event);
    }

    static int host[COUNT];
    for (int i = 0; i < COUNT; i++) {
        host[i] = VALUE;
    }
    CHECK(aclrtMemcpyAsync, dev, BYTES, host, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, stream);
    if (use_notify) {
        CHECK(aclrtRecordNotify, notify, stream);
    } else {
        CHECK(aclrtRecordEvent, event, stream);
    }
    printf("Source data: %d\n", VALUE);
    fflush(stdout);
    REQUIRE(write_exchange("keys", &k, sizeof(k)) == 0, "cannot write file/keys.bin");

    char done = 0;
    REQUIRE(read_exchange("done", &done, 1) == 0, "B did not finish");
    CHECK(aclrtSynchronizeStream, stream);
    if (use_notify) {
        CHECK(aclrtDestroyNotify, notify);
    } else {
        CHECK(aclrtDestroyEvent, event);
    }
    CHECK(aclrtIpcMemClose, k.mem);
    CHECK(aclrtFree, dev);
    CHECK(aclrtDestroyStream, stream);
    CHECK(aclrtResetDevice, 0);
    CHECK(aclFinalize);
    return 0;
}

static int run_b(int use_notify, int wait)
{
    CHECK(aclInit, NULL);
    CHECK(aclrtSetDevice, 0);
    aclrtStream stream = NULL;
    CHECK(aclrtCreateStream, &stream);
    struct keys k;
    REQUIRE(read_exchange("keys", &k, sizeof(k)) == 0, "A handed out no keys");
    void *dev = NULL;
    CHECK(aclrtIpcMemImportByKey, &dev, k.mem, 0);
    aclrtNotify notify = NULL;
    aclrtEvent event = NULL;
    if (use_notify) {
        CHECK(aclrtNotifyImportByKey, &notify, k.notify, ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT);
        if (wait) {
            CHECK(aclrtWaitAndResetNotify, notify, stream, 0);
        }
    } else {
        CHECK(aclrtIpcOpenEventHandle, k.event, &event);
        if (wait) {
            CHECK(aclrtStreamWaitEvent, stream, event);
        }
    }
    static int host[COUNT];
    CHECK(aclrtMemcpyAsync, host, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, stream);
    CHECK(aclrtSynchronizeStream, stream);
    int same = 1;
    for (int i = 0; i < COUNT; i++) {
        same &= host[i] == VALUE;
    }
    printf("Destination data: %d\n", host[0]);
    printf("Consistent: %s\n", same ? "yes" : "no");
    fflush(stdout);

    if (use_notify) {
        CHECK(aclrtDestroyNotify, notify);
    } else {
        CHECK(aclrtDestroyEvent, event);
    }
    CHECK(aclrtIpcMemClose, k.mem);
    char done = 1;
    REQUIRE(write_exchange("done", &done, 1) == 0, "cannot write file/done.bin");
    CHECK(aclrtDestroyStream, stream);
    CHECK(aclrtResetDevice, 0);
    CHECK(aclFinalize);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[2], "notify") != 0 && strcmp(argv[2], "event") != 0)) {
        ERROR_LOG("%s", "usage: stream_pair a|b notify|event [nowait]");
        return 2;
    }
    int use_notify = strcmp(argv[2], "notify") == 0;
    if (strcmp(argv[1], "a") == 0) {
        return run_a(use_notify);
    }
    return run_b(use_notify, !(argc > 3 && strcmp(argv[3], "nowait") == 0));
}
