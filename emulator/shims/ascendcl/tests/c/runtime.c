/*
 * Through the drop-in: each family of the runtime header that
 * vmmkit emulates, called as a CANN program calls it, with the documented
 * results (docs/acl-runtime.md). One family per command-line argument:
 *
 *   device       run mode, device attributes, id conversions, PCI bus ids,
 *                topology, limits, status
 *   context      DestroyContext, primary context state, system parameters
 *   stream       CreateStreamWithConfig, the default stream's handle,
 *                priority/flags/id, abort, value write/wait
 *   event        ids, counts, record/wait with a flag, timestamps
 *   callback     SubscribeReport, LaunchCallback (BLOCK), ProcessReport on a
 *                report thread, LaunchHostFunc
 *   hostdata     data buffers, type sizes, half precision, last error
 *   unsupported  a device-code function and one not emulated yet: 207000
 *                and a message naming them
 *
 * Each check prints "[INFO]  <what>: ok" or "[ERROR]  <what>: ..." and the
 * program exits 0 only if all passed, printing "<family>: N checks passed".
 */
#include "sample.h"

#include <pthread.h>
#include <string.h>

static int checks = 0;
static int failures = 0;

/* Records one check of `what`. */
static void expect(const char *what, int ok, long long got, long long want)
{
    checks++;
    if (ok) {
        INFO_LOG("%s: ok", what);
    } else {
        failures++;
        ERROR_LOG("%s: got %lld, want %lld (%s)", what, got, want, aclGetRecentErrMsg());
    }
}

#define EXPECT_CODE(what, call, want)                                          \
    do {                                                                       \
        aclError got_ = (call);                                                \
        expect(what, got_ == (want), (long long)got_, (long long)(want));      \
    } while (0)

#define EXPECT_EQ(what, got, want)                                             \
    do {                                                                       \
        long long g_ = (long long)(got), w_ = (long long)(want);               \
        expect(what, g_ == w_, g_, w_);                                        \
    } while (0)

static int device_family(void)
{
    aclrtRunMode mode = ACL_DEVICE;
    EXPECT_CODE("aclrtGetRunMode", aclrtGetRunMode(&mode), ACL_SUCCESS);
    EXPECT_EQ("run mode is ACL_HOST", mode, ACL_HOST);
    int64_t v = 0;
    EXPECT_CODE("aclrtGetDeviceInfo(VECTOR_CORE_NUM)", aclrtGetDeviceInfo(0, ACL_DEV_ATTR_VECTOR_CORE_NUM, &v),
                ACL_SUCCESS);
    EXPECT_EQ("48 vector cores", v, 48);
    EXPECT_CODE("aclrtGetDeviceInfo(unknown attr)", aclrtGetDeviceInfo(0, (aclrtDevAttr)999, &v),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE("aclrtGetDeviceInfo(value NULL)", aclrtGetDeviceInfo(0, ACL_DEV_ATTR_WARP_SIZE, NULL),
                ACL_ERROR_INVALID_PARAM);
    int32_t id = -1;
    EXPECT_CODE("aclrtGetUserDevIdByLogicDevId", aclrtGetUserDevIdByLogicDevId(1, &id), ACL_SUCCESS);
    EXPECT_EQ("the identity", id, 1);
    EXPECT_CODE("aclrtGetPhyDevIdByUserDevId(7)", aclrtGetPhyDevIdByUserDevId(7, &id), ACL_ERROR_RT_INVALID_DEVICEID);
    char bus[32] = {0};
    EXPECT_CODE("aclrtDeviceGetPCIBusId", aclrtDeviceGetPCIBusId(1, bus, (int32_t)sizeof(bus)), ACL_SUCCESS);
    EXPECT_EQ("bus id 0000:02:00.0", strcmp(bus, "0000:02:00.0"), 0);
    EXPECT_CODE("aclrtDeviceGetByPCIBusId", aclrtDeviceGetByPCIBusId(bus, &id), ACL_SUCCESS);
    EXPECT_EQ("device 1 back", id, 1);
    uint64_t topo = 0;
    EXPECT_CODE("aclrtGetDevicesTopo", aclrtGetDevicesTopo(0, 1, &topo), ACL_SUCCESS);
    EXPECT_EQ("HCCS", topo, ACL_RT_DEVS_TOPOLOGY_HCCS);
    int32_t least = -1, greatest = -1;
    EXPECT_CODE("aclrtDeviceGetStreamPriorityRange", aclrtDeviceGetStreamPriorityRange(&least, &greatest), ACL_SUCCESS);
    EXPECT_EQ("least priority 7", least, 7);
    EXPECT_EQ("greatest priority 0", greatest, 0);
    aclrtDeviceStatus st = ACL_RT_DEVICE_STATUS_ABNORMAL;
    EXPECT_CODE("aclrtQueryDeviceStatus", aclrtQueryDeviceStatus(0, &st), ACL_SUCCESS);
    EXPECT_EQ("NORMAL", st, ACL_RT_DEVICE_STATUS_NORMAL);
    size_t limit = 1;
    EXPECT_CODE("aclrtDeviceSetLimit", aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 4096), ACL_SUCCESS);
    EXPECT_CODE("aclrtDeviceGetLimit", aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &limit), ACL_SUCCESS);
    EXPECT_EQ("the limit set", limit, 4096);
    uint32_t cores = 0;
    EXPECT_CODE("aclrtSetDeviceResLimit", aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 8), ACL_SUCCESS);
    EXPECT_CODE("aclrtGetDeviceResLimit", aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &cores), ACL_SUCCESS);
    EXPECT_EQ("8 cube cores", cores, 8);
    EXPECT_CODE("aclrtSetDeviceResLimit(25)", aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 25),
                ACL_ERROR_RT_PARAM_INVALID);
    return 0;
}

static int context_family(void)
{
    int32_t active = -1;
    EXPECT_CODE("aclrtGetPrimaryCtxState", aclrtGetPrimaryCtxState(0, NULL, &active), ACL_SUCCESS);
    EXPECT_EQ("device 0 is active", active, 1);
    uint32_t flags = 0;
    EXPECT_CODE("aclrtGetPrimaryCtxState(flags set)", aclrtGetPrimaryCtxState(0, &flags, &active),
                ACL_ERROR_INVALID_PARAM);
    int64_t v = 0;
    EXPECT_CODE("aclrtCtxGetSysParamOpt before a set", aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v),
                ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
    EXPECT_CODE("aclrtCtxSetSysParamOpt", aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
    EXPECT_CODE("aclrtCtxGetSysParamOpt", aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v), ACL_SUCCESS);
    EXPECT_EQ("deterministic", v, 1);
    void *overflow = NULL;
    unsigned char status[512];
    EXPECT_CODE("aclrtCtxGetFloatOverflowAddr", aclrtCtxGetFloatOverflowAddr(&overflow), ACL_SUCCESS);
    EXPECT_CODE("read the overflow status",
                aclrtMemcpy(status, sizeof status, overflow, sizeof status, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT_EQ("no overflow flagged", status[0] == 0 && status[511] == 0, 1);
    EXPECT_CODE("aclrtCtxGetFloatOverflowAddr(NULL)", aclrtCtxGetFloatOverflowAddr(NULL), ACL_ERROR_RT_PARAM_INVALID);
    aclrtContext ctx = NULL;
    CHECK(aclrtCreateContext, &ctx, 1);
    EXPECT_CODE("aclrtDestroyContext(NULL)", aclrtDestroyContext(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE("aclrtDestroyContext", aclrtDestroyContext(ctx), ACL_SUCCESS);
    aclrtContext cur = NULL;
    EXPECT_CODE("no current context after the destroy", aclrtGetCurrentContext(&cur), ACL_ERROR_RT_CONTEXT_NULL);
    return 0;
}

static int stream_family(void)
{
    aclrtStream s = NULL, d = NULL;
    EXPECT_CODE("aclrtCreateStreamWithConfig", aclrtCreateStreamWithConfig(&s, 2, ACL_STREAM_FAST_LAUNCH), ACL_SUCCESS);
    uint32_t p = 9, f = 0;
    EXPECT_CODE("aclrtStreamGetPriority", aclrtStreamGetPriority(s, &p), ACL_SUCCESS);
    EXPECT_EQ("priority 2", p, 2);
    EXPECT_CODE("aclrtStreamGetFlags", aclrtStreamGetFlags(s, &f), ACL_SUCCESS);
    EXPECT_EQ("FAST_LAUNCH", f, ACL_STREAM_FAST_LAUNCH);
    EXPECT_CODE("aclrtCtxGetCurrentDefaultStream", aclrtCtxGetCurrentDefaultStream(&d), ACL_SUCCESS);
    EXPECT_EQ("a non-NULL default stream", d != NULL, 1);
    int32_t a = -1, b = -2;
    EXPECT_CODE("aclrtStreamGetId(default)", aclrtStreamGetId(d, &a), ACL_SUCCESS);
    EXPECT_CODE("aclrtStreamGetId(NULL)", aclrtStreamGetId(NULL, &b), ACL_SUCCESS);
    EXPECT_EQ("one default stream", a, b);

    void *dev = NULL;
    CHECK(aclrtMalloc, &dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK(aclrtMemset, dev, 4096, 0, 4096);
    EXPECT_CODE("aclrtValueWrite", aclrtValueWrite(dev, 42, 0, s), ACL_SUCCESS);
    EXPECT_CODE("aclrtValueWait(EQ 42)", aclrtValueWait(dev, 42, ACL_STREAM_WAIT_VALUE_EQ, s), ACL_SUCCESS);
    EXPECT_CODE("aclrtValueWrite(flag 1)", aclrtValueWrite(dev, 1, 1, s), ACL_ERROR_RT_PARAM_INVALID);
    uint64_t host = 0;
    EXPECT_CODE("aclrtValueWait(host memory)", aclrtValueWait(&host, 0, 0, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE("aclrtSynchronizeStreamWithTimeout", aclrtSynchronizeStreamWithTimeout(s, 5000), ACL_SUCCESS);
    uint64_t word = 0;
    CHECK(aclrtMemcpy, &word, sizeof(word), dev, sizeof(word), ACL_MEMCPY_DEVICE_TO_HOST);
    EXPECT_EQ("the word written on the stream", word, 42);
    EXPECT_CODE("aclrtStreamAbort", aclrtStreamAbort(s), ACL_SUCCESS);
    aclrtStreamStatus status = ACL_STREAM_STATUS_NOT_READY;
    EXPECT_CODE("aclrtStreamQuery", aclrtStreamQuery(s, &status), ACL_SUCCESS);
    EXPECT_EQ("COMPLETE after the abort", status, ACL_STREAM_STATUS_COMPLETE);
    CHECK(aclrtFree, dev);
    CHECK(aclrtDestroyStream, s);
    return 0;
}

static int event_family(void)
{
    aclrtStream s = NULL;
    aclrtEvent e = NULL;
    CHECK(aclrtCreateStream, &s);
    CHECK(aclrtCreateEvent, &e);
    uint32_t id = 0, avail = 0;
    EXPECT_CODE("aclrtGetEventId", aclrtGetEventId(e, &id), ACL_SUCCESS);
    EXPECT_CODE("aclrtGetEventAvailNum", aclrtGetEventAvailNum(&avail), ACL_SUCCESS);
    EXPECT_EQ("room for more events", avail > 0, 1);
    EXPECT_CODE("aclrtRecordEventWithFlag", aclrtRecordEventWithFlag(e, s, ACL_EVENT_RECORD_DEFAULT), ACL_SUCCESS);
    EXPECT_CODE("aclrtStreamWaitEventWithTimeout", aclrtStreamWaitEventWithTimeout(s, e, 1000), ACL_SUCCESS);
    EXPECT_CODE("aclrtStreamWaitEventWithFlag(EXTERNAL, timeout 5)",
                aclrtStreamWaitEventWithFlag(s, e, 5, ACL_EVENT_WAIT_EXTERNAL), ACL_ERROR_INVALID_PARAM);
    CHECK(aclrtSynchronizeStream, s);
    uint64_t ts = 0;
    EXPECT_CODE("aclrtEventGetTimestamp", aclrtEventGetTimestamp(e, &ts), ACL_SUCCESS);
    EXPECT_EQ("a timestamp", ts > 0, 1);
    aclrtNotify n[2] = {NULL, NULL};
    CHECK(aclrtCreateNotify, &n[0], ACL_NOTIFY_DEFAULT);
    CHECK(aclrtCreateNotify, &n[1], ACL_NOTIFY_DEFAULT);
    CHECK(aclrtRecordNotify, n[0], s);
    CHECK(aclrtSynchronizeStream, s);
    EXPECT_CODE("aclrtNotifyBatchReset", aclrtNotifyBatchReset(n, 2), ACL_SUCCESS);
    EXPECT_CODE("aclrtNotifyBatchReset(NULL)", aclrtNotifyBatchReset(NULL, 1), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE("aclrtNotifyBatchReset(num 0)", aclrtNotifyBatchReset(n, 0), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(aclrtDestroyNotify, n[0]);
    CHECK(aclrtDestroyNotify, n[1]);
    CHECK(aclrtDestroyEvent, e);
    CHECK(aclrtDestroyStream, s);
    return 0;
}

static volatile int stop_reports = 0;
static int calls = 0;

static void on_callback(void *user)
{
    (*(int *)user)++;
}

static void *report_thread(void *arg)
{
    (void)arg;
    if (aclrtSetDevice(0) != ACL_SUCCESS) {
        return NULL;
    }
    while (!stop_reports) {
        (void)aclrtProcessReport(10);
    }
    return NULL;
}

static int callback_family(void)
{
    aclrtStream s = NULL;
    CHECK(aclrtCreateStream, &s);
    EXPECT_CODE("aclrtLaunchCallback before a subscription",
                aclrtLaunchCallback(on_callback, &calls, ACL_CALLBACK_BLOCK, s), ACL_ERROR_RT_STREAM_NO_CB_REG);
    EXPECT_CODE("aclrtProcessReport(0)", aclrtProcessReport(0), ACL_ERROR_INVALID_PARAM);
    pthread_t tid;
    REQUIRE(pthread_create(&tid, NULL, report_thread, NULL) == 0, "pthread_create failed");
    EXPECT_CODE("aclrtSubscribeReport", aclrtSubscribeReport((uint64_t)tid, s), ACL_SUCCESS);
    EXPECT_CODE("aclrtLaunchCallback(BLOCK)", aclrtLaunchCallback(on_callback, &calls, ACL_CALLBACK_BLOCK, s),
                ACL_SUCCESS);
    EXPECT_CODE("aclrtLaunchHostFunc", aclrtLaunchHostFunc(s, on_callback, &calls), ACL_SUCCESS);
    CHECK(aclrtSynchronizeStream, s);
    EXPECT_EQ("both ran before the synchronize returned", calls, 2);
    EXPECT_CODE("aclrtUnSubscribeReport", aclrtUnSubscribeReport((uint64_t)tid, s), ACL_SUCCESS);
    stop_reports = 1;
    pthread_join(tid, NULL);
    CHECK(aclrtDestroyStream, s);
    return 0;
}

static int hostdata_family(void)
{
    char bytes[64];
    aclDataBuffer *b = aclCreateDataBuffer(bytes, sizeof(bytes));
    EXPECT_EQ("aclCreateDataBuffer", b != NULL, 1);
    EXPECT_EQ("aclGetDataBufferAddr", aclGetDataBufferAddr(b) == (void *)bytes, 1);
    EXPECT_EQ("aclGetDataBufferSizeV2", aclGetDataBufferSizeV2(b), 64);
    EXPECT_CODE("aclUpdateDataBuffer", aclUpdateDataBuffer(b, bytes, 32), ACL_SUCCESS);
    EXPECT_EQ("aclGetDataBufferSize", aclGetDataBufferSize(b), 32);
    EXPECT_CODE("aclDestroyDataBuffer", aclDestroyDataBuffer(b), ACL_SUCCESS);
    EXPECT_CODE("aclDestroyDataBuffer(NULL)", aclDestroyDataBuffer(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ("aclDataTypeSize(ACL_BF16)", aclDataTypeSize(ACL_BF16), 2);
    EXPECT_EQ("aclFloatToFloat16(1.5)", aclFloatToFloat16(1.5f), 0x3e00);
    EXPECT_EQ("aclFloat16ToFloat(0x3e00) == 1.5", aclFloat16ToFloat(0x3e00) == 1.5f, 1);
    EXPECT_CODE("aclrtGetLastError (the NULL destroy)", aclrtGetLastError(ACL_RT_THREAD_LEVEL),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE("aclrtPeekAtLastError after the get", aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    return 0;
}

static int unsupported_family(void)
{
    EXPECT_CODE("aclrtLaunchKernel", aclrtLaunchKernel(NULL, 1, NULL, 0, NULL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_EQ("its message names it", strstr(aclGetRecentErrMsg(), "aclrtLaunchKernel: needs device code") != NULL, 1);
    EXPECT_CODE("aclrtSnapShotProcessLock", aclrtSnapShotProcessLock(0, NULL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_EQ("its message says not yet", strstr(aclGetRecentErrMsg(), "is not emulated by vmmkit yet") != NULL, 1);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(void);
    } families[] = {
        {"device", device_family},     {"context", context_family},   {"stream", stream_family},
        {"event", event_family},       {"callback", callback_family}, {"hostdata", hostdata_family},
        {"unsupported", unsupported_family},
    };
    REQUIRE(argc == 2, "usage: runtime <family>");
    CHECK(aclInit, NULL);
    CHECK(aclrtSetDevice, 0);
    for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
        if (strcmp(argv[1], families[i].name) == 0) {
            if (families[i].run() != 0) {
                return 255;
            }
            CHECK(aclrtResetDeviceForce, 0);
            CHECK(aclFinalize);
            INFO_LOG("%s: %d checks passed", argv[1], checks - failures);
            return failures == 0 ? 0 : 1;
        }
    }
    ERROR_LOG("unknown family %s", argv[1]);
    return 255;
}
