/*
 * vmmkit: the umbrella header CANN programs include (reference acl.md
 * section 1.1), declaring exactly what vmmkit's libascendcl.so exports.
 * Written for vmmkit from that reference; not a vendor header.
 */
#ifndef VMMKIT_ACL_ACL_H_
#define VMMKIT_ACL_ACL_H_

#include "acl_base.h"
#include "acl_rt.h"

/* ACL header version 1.17.0. */
#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 17
#define ACL_PATCH_VERSION 0

#ifdef __cplusplus
extern "C" {
#endif

/* Initialise ACL; configPath NULL means no config file. */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);

/* De-initialise ACL. */
ACL_FUNC_VISIBILITY aclError aclFinalize(void);

/* ---- Init/finalize callbacks and references (include/external/acl/acl_rt.h) ---- */

typedef enum aclRegisterCallbackType {
    ACL_REG_TYPE_ACL_MODEL,
    ACL_REG_TYPE_ACL_OP_EXECUTOR,
    ACL_REG_TYPE_ACL_OP_CBLAS,
    ACL_REG_TYPE_ACL_OP_COMPILER,
    ACL_REG_TYPE_ACL_TDT_CHANNEL,
    ACL_REG_TYPE_ACL_TDT_QUEUE,
    ACL_REG_TYPE_ACL_DVPP,
    ACL_REG_TYPE_ACL_RETR,
    ACL_REG_TYPE_OTHER = 0xFFFF
} aclRegisterCallbackType;
typedef aclError (*aclInitCallbackFunc)(const char *configStr, size_t len, void *userData);
typedef aclError (*aclFinalizeCallbackFunc)(void *userData);

ACL_FUNC_VISIBILITY aclError aclInitCallbackRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc,
                                                     void *userData);
ACL_FUNC_VISIBILITY aclError aclInitCallbackUnRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc);
ACL_FUNC_VISIBILITY aclError aclFinalizeCallbackRegister(aclRegisterCallbackType type, aclFinalizeCallbackFunc cbFunc,
                                                         void *userData);
ACL_FUNC_VISIBILITY aclError aclFinalizeCallbackUnRegister(aclRegisterCallbackType type,
                                                           aclFinalizeCallbackFunc cbFunc);
ACL_FUNC_VISIBILITY aclError aclFinalizeReference(uint64_t *refCount);

#ifdef __cplusplus
}
#endif

#endif /* VMMKIT_ACL_ACL_H_ */
