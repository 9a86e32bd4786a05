/*
 * vmmkit: ACL runtime error codes (the ACL_ERROR_RT_* values of reference
 * acl.md section 3.1). Written for vmmkit from that reference; not a vendor
 * header. Included by <acl/acl_base.h>.
 */
#ifndef VMMKIT_ACL_ERROR_CODES_RT_ERROR_CODES_H_
#define VMMKIT_ACL_ERROR_CODES_RT_ERROR_CODES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

static const int32_t ACL_RT_SUCCESS = 0;

static const int32_t ACL_ERROR_RT_PARAM_INVALID = 107000;
static const int32_t ACL_ERROR_RT_INVALID_DEVICEID = 107001;
static const int32_t ACL_ERROR_RT_CONTEXT_NULL = 107002;
static const int32_t ACL_ERROR_RT_STREAM_CONTEXT = 107003;
static const int32_t ACL_ERROR_RT_ADDR_UNALIGNED = 107008;
static const int32_t ACL_ERROR_RT_INVALID_MEMORY_TYPE = 107016;
static const int32_t ACL_ERROR_RT_INVALID_HANDLE = 107017;
static const int32_t ACL_ERROR_RT_INVALID_MALLOC_TYPE = 107018;
static const int32_t ACL_ERROR_RT_WAIT_TIMEOUT = 107019;
static const int32_t ACL_ERROR_RT_STREAM_MODEL = 107005;
static const int32_t ACL_ERROR_RT_STREAM_SUBSCRIBE = 107011;
static const int32_t ACL_ERROR_RT_THREAD_SUBSCRIBE = 107012;
static const int32_t ACL_ERROR_RT_GROUP_NOT_CREATE = 107014;
static const int32_t ACL_ERROR_RT_STREAM_NO_CB_REG = 107015;
static const int32_t ACL_ERROR_RT_SYSPARAMOPT_NOT_SET = 107021;
/* Model capture (rt_error_codes.h:46-52, 57, 59 of hicann/runtime@0b4af8a). */
static const int32_t ACL_ERROR_RT_STREAM_UNJOINED = 107025;
static const int32_t ACL_ERROR_RT_STREAM_CAPTURED = 107027;
static const int32_t ACL_ERROR_RT_EVENT_CAPTURED = 107028;
static const int32_t ACL_ERROR_RT_STREAM_NOT_CAPTURED = 107029;
static const int32_t ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT = 107030;
static const int32_t ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED = 107036;
static const int32_t ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD = 107038;

static const int32_t ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000;
static const int32_t ACL_ERROR_RT_MEMORY_ALLOCATION = 207001;
static const int32_t ACL_ERROR_RT_MEMORY_FREE = 207002;
static const int32_t ACL_ERROR_RT_NO_DEVICE = 207004;
static const int32_t ACL_ERROR_RT_RESOURCE_ALLOC_FAIL = 207005;
static const int32_t ACL_ERROR_RT_NO_PERMISSION = 207006;
static const int32_t ACL_ERROR_RT_OVER_LIMIT = 207012;
static const int32_t ACL_ERROR_RT_DEVICE_OOM = 207018;
static const int32_t ACL_ERROR_RT_TIMEOUT = 207020;
static const int32_t ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED = 207021;

static const int32_t ACL_ERROR_RT_INTERNAL_ERROR = 507000;
static const int32_t ACL_ERROR_RT_LOST_HEARTBEAT = 507010;
static const int32_t ACL_ERROR_RT_REPORT_TIMEOUT = 507012;
static const int32_t ACL_ERROR_RT_IPC_ERROR = 507022;
static const int32_t ACL_ERROR_RT_DEV_SETUP_ERROR = 507033;
static const int32_t ACL_ERROR_RT_COPY_DATA = 507052;
static const int32_t ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID = 107006;
static const int32_t ACL_ERROR_RT_STREAM_NOT_COMPLETE = 507004;
static const int32_t ACL_ERROR_RT_EVENT_NOT_COMPLETE = 507006;
static const int32_t ACL_ERROR_RT_STREAM_SYNC_TIMEOUT = 507046;
static const int32_t ACL_ERROR_RT_EVENT_SYNC_TIMEOUT = 507047;
static const int32_t ACL_ERROR_RT_DRV_INTERNAL_ERROR = 507899;
static const int32_t ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED = 507903; /* rt_error_codes.h:152 */
/* Memory (rt_error_codes.h:161-162 of hicann/runtime). */
static const int32_t ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 507910;
static const int32_t ACL_ERROR_HOST_MEMORY_NOT_REGISTERED = 507911;

#ifdef __cplusplus
}
#endif

#endif /* VMMKIT_ACL_ERROR_CODES_RT_ERROR_CODES_H_ */
