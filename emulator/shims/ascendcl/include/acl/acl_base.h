/*
 * vmmkit: ACL base definitions (reference acl.md sections 2 and 3): the
 * aclError type and codes, the opaque runtime handles, and
 * aclGetRecentErrMsg. Written for vmmkit from that reference; not a vendor
 * header. Programs normally include <acl/acl.h>.
 */
#ifndef VMMKIT_ACL_ACL_BASE_H_
#define VMMKIT_ACL_ACL_BASE_H_

#include <stddef.h>
#include <stdint.h>

#include "error_codes/rt_error_codes.h"

#ifndef ACL_FUNC_VISIBILITY
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Every ACL call returns an aclError (a C int); 0 is success. */
typedef int aclError;

/* Opaque per-process handles. */
typedef void *aclrtStream;
typedef void *aclrtContext;
typedef void *aclrtEvent;

/* Issue 18: memory (acl_base_rt.h:54-61 of hicann/runtime). */
typedef void *aclrtMbuf;
typedef void *aclrtAllocatorDesc;
typedef void *aclrtAllocator;
typedef void *aclrtAllocatorBlock;
typedef void *aclrtAllocatorAddr;

static const int ACL_SUCCESS = 0;
static const int ACL_ERROR_NONE = 0;

static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_REPEAT_FINALIZE = 100037;
static const int ACL_ERROR_COMPILING_STUB_MODE = 100039;

static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_API_NOT_SUPPORT = 200001;
static const int ACL_ERROR_INVALID_DEVICE = 200002;
static const int ACL_ERROR_MEMORY_ADDRESS_UNALIGNED = 200003;
static const int ACL_ERROR_INVALID_RESOURCE_HANDLE = 200005;
static const int ACL_ERROR_FEATURE_UNSUPPORTED = 200006;

static const int ACL_ERROR_INTERNAL_ERROR = 500000;
static const int ACL_ERROR_FAILURE = 500001;
static const int ACL_ERROR_RT_FAILURE = 500003;
static const int ACL_ERROR_DRV_FAILURE = 500004;

/*
 * Text of the last error on the calling thread. There is no "rt" in the
 * name. On the emulator the text starts with the rule that failed, e.g.
 * "ACL-MAP-007: aclrtMapMem: ...".
 */
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

#ifdef __cplusplus
}
#endif

#endif /* VMMKIT_ACL_ACL_BASE_H_ */
