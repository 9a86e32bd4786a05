/*
 * Model capture through the drop-in (ACL-MRI): a copy, a fill of the first
 * half after it and a host function are captured on one stream into a
 * model, which runs nothing until it is executed; each execution runs the
 * three again, in that order. The calls a capture refuses are refused
 * without ending it; a destroyed model is refused.
 *
 * Prints one "[INFO]  <what> returned <code>" line per refused call, the
 * bytes and host-function count after each execution, and exits 0 only
 * when every value is the expected one.
 */
#include "sample.h"

#define BYTES 4096

static int runs;

static void bump(void *args)
{
    __atomic_add_fetch((int *)args, 1, __ATOMIC_SEQ_CST);
}

/* Expects `got` == `want` for `what`; prints the code either way. */
#define EXPECT(what, want, got)                                                      \
    do {                                                                             \
        aclError expect_ret_ = (got);                                                \
        INFO_LOG("%s returned %d", what, expect_ret_);                               \
        if (expect_ret_ != (want)) {                                                 \
            ERROR_LOG("%s: expected %d", what, (int)(want));                         \
            return 1;                                                                \
        }                                                                            \
    } while (0)

/* 1 when the first half of `b` is 0x22 and the second 0x11 (the fill ran after the copy). */
static int in_order(const unsigned char *b)
{
    for (int i = 0; i < BYTES; i++) {
        if (b[i] != (i < BYTES / 2 ? 0x22 : 0x11)) {
            return 0;
        }
    }
    return 1;
}

int main(void)
{
    static unsigned char src[BYTES], back[BYTES];
    memset(src, 0x11, sizeof(src));
    CHECK(aclInit, NULL);
    CHECK(aclrtSetDevice, 0);
    aclrtStream s = NULL;
    void *dev = NULL;
    CHECK(aclrtCreateStream, &s);
    CHECK(aclrtMalloc, &dev, BYTES, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK(aclrtMemset, dev, BYTES, 0, BYTES);

    CHECK(aclmdlRICaptureBegin, s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
    CHECK(aclrtMemcpyAsync, dev, BYTES, src, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s);
    CHECK(aclrtMemsetAsync, dev, BYTES, 0x22, BYTES / 2, s);
    CHECK(aclrtLaunchHostFunc, s, bump, &runs);
    EXPECT("aclrtSynchronizeStream (capturing)", ACL_ERROR_RT_STREAM_CAPTURED, aclrtSynchronizeStream(s));
    EXPECT("aclrtMemcpy (GLOBAL capture)", ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
           aclrtMemcpy(back, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
    aclmdlRICaptureStatus status = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    aclmdlRI during = NULL;
    CHECK(aclmdlRICaptureGetInfo, s, &status, &during);
    INFO_LOG("status while capturing: %d", (int)status);
    aclmdlRI model = NULL;
    CHECK(aclmdlRICaptureEnd, s, &model);
    if (status != ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE || model != during || model == NULL) {
        ERROR_LOG("%s", "aclmdlRICaptureGetInfo did not give the capture's model");
        return 1;
    }

    CHECK(aclrtMemcpy, back, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST);
    INFO_LOG("before executing: byte 0 = %d, host function runs = %d", back[0], runs);
    if (back[0] != 0 || runs != 0) {
        return 1;
    }
    for (int round = 1; round <= 2; round++) {
        CHECK(aclrtMemset, dev, BYTES, 0, BYTES);
        CHECK(aclmdlRIExecuteAsync, model, s);
        CHECK(aclrtSynchronizeStream, s);
        CHECK(aclrtMemcpy, back, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST);
        INFO_LOG("execution %d: in order = %d, host function runs = %d", round, in_order(back), runs);
        if (!in_order(back) || runs != round) {
            return 1;
        }
    }
    CHECK(aclmdlRIDestroy, model);
    EXPECT("aclmdlRIExecuteAsync (destroyed model)", ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIExecuteAsync(model, s));

    CHECK(aclrtFree, dev);
    CHECK(aclrtDestroyStream, s);
    CHECK(aclrtResetDevice, 0);
    CHECK(aclFinalize);
    INFO_LOG("%s", "model capture: done");
    return 0;
}
