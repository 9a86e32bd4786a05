/*
 * Shared parts of vmmkit's C test programs, modelled on the CANN
 * memory-sharing samples of reference acl.md section 7: the log lines, the
 * checked-call macro, the file/ handshake (payload, then an empty marker,
 * the reader polling for the marker) and a host stand-in for the WriteDo
 * kernel. Every wait is bounded, so a missing peer ends in an error line and
 * exit status 255, never a hang.
 */
#ifndef VMMKIT_TEST_SAMPLE_H_
#define VMMKIT_TEST_SAMPLE_H_

#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"

#define INFO_LOG(fmt, ...) (fprintf(stdout, "[INFO]  " fmt "\n", __VA_ARGS__), fflush(stdout))
#define WARN_LOG(fmt, ...) (fprintf(stdout, "[WARN]  " fmt "\n", __VA_ARGS__), fflush(stdout))
#define ERROR_LOG(fmt, ...) (fprintf(stderr, "[ERROR]  " fmt "\n", __VA_ARGS__), fflush(stderr))

/* Calls fn(...); on failure prints the samples' error line and returns -1 from main. */
#define CHECK(fn, ...)                                                                   \
    do {                                                                                 \
        aclError check_ret_ = fn(__VA_ARGS__);                                           \
        if (check_ret_ != ACL_SUCCESS) {                                                 \
            ERROR_LOG("Operation failed: %s returned error code %d", #fn, check_ret_);    \
            ERROR_LOG("aclGetRecentErrMsg: %s", aclGetRecentErrMsg());                    \
            return -1;                                                                   \
        }                                                                                \
    } while (0)

/* Fails main with a message (a file or wait problem, not an ACL code). */
#define REQUIRE(cond, what)                                                              \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            ERROR_LOG("%s", what);                                                       \
            return -1;                                                                   \
        }                                                                                \
    } while (0)

/* How long any wait for the peer may take. */
#define WAIT_SECONDS 10

/* The property record of samples 7 and 8: NONE, PINNED, HBM normal, device 0. */
static inline aclrtPhysicalMemProp sample_prop(void)
{
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof(prop));
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.memAttr = ACL_HBM_MEM_NORMAL;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    prop.reserve = 0;
    return prop;
}

/* One READWRITE descriptor for device 0. */
static inline aclrtMemAccessDesc sample_access(void)
{
    aclrtMemAccessDesc desc;
    memset(&desc, 0, sizeof(desc));
    desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
    desc.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    desc.location.id = 0;
    return desc;
}

/*
 * Host stand-in for the AscendC kernel WriteDo(blockDim, stream, ptr, value):
 * stores value at ptr[block] for each block, through aclrtMemcpy host to
 * device, and prints the kernel's line. Synchronous, as reference section
 * 7.1 allows.
 */
static inline aclError WriteDo(uint32_t blockDim, aclrtStream stream, int *ptr, int value)
{
    (void)stream;
    for (uint32_t block = 0; block < blockDim; block++) {
        aclError ret = aclrtMemcpy(ptr + block, sizeof(int), &value, sizeof(int), ACL_MEMCPY_HOST_TO_DEVICE);
        if (ret != ACL_SUCCESS) {
            return ret;
        }
    }
    printf("Source data: %d\n", value);
    fflush(stdout);
    return ACL_SUCCESS;
}

static inline void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* file/<name>.bin and its marker file/<name>.done. */
static inline void exchange_paths(const char *name, char *data, char *done, size_t len)
{
    snprintf(data, len, "file/%s.bin", name);
    snprintf(done, len, "file/%s.done", name);
}

/* Writer side: the payload with raw bytes, then the empty marker. 0 on success. */
static inline int write_exchange(const char *name, const void *bytes, size_t len)
{
    char data[256], done[256];
    exchange_paths(name, data, done, sizeof(data));
    FILE *f = fopen(data, "wb");
    if (f == NULL) {
        return -1;
    }
    size_t n = fwrite(bytes, 1, len, f);
    if (fclose(f) != 0 || n != len) {
        return -1;
    }
    f = fopen(done, "wb");
    return (f != NULL && fclose(f) == 0) ? 0 : -1;
}

/*
 * Reader side: polls for the marker (every 10 ms, warning once a second,
 * as the samples do on each one-second miss), for at most WAIT_SECONDS,
 * then reads exactly len bytes. 0 on success.
 */
static inline int read_exchange(const char *name, void *bytes, size_t len)
{
    char data[256], done[256];
    exchange_paths(name, data, done, sizeof(data));
    for (int tick = 0; access(done, F_OK) != 0; tick++) {
        if (tick >= WAIT_SECONDS * 100) {
            ERROR_LOG("no %s after %d s", done, WAIT_SECONDS);
            return -1;
        }
        if (tick % 100 == 99) {
            WARN_LOG("%s", "Data writing not yet complete");
        }
        sleep_ms(10);
    }
    FILE *f = fopen(data, "rb");
    if (f == NULL) {
        return -1;
    }
    size_t n = fread(bytes, 1, len, f);
    fclose(f);
    return n == len ? 0 : -1;
}

#endif /* VMMKIT_TEST_SAMPLE_H_ */
