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

#ifdef __cplusplus
}
#endif

#endif /* VMMKIT_ACL_ACL_H_ */
