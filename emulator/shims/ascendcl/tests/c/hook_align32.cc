// An LD_PRELOAD hook of aclrtMallocAlign32 written in C++, as sglang's
// torch_memory_saver hooks torch_npu's allocations (issue 18): built
// against our headers, the definition takes the header's C linkage, so the
// hook exports the plain name and intercepts the call; it counts it and
// forwards to the next definition (the drop-in's).
#include <dlfcn.h>

#include <cstdio>

#include <acl/acl.h>

aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    typedef aclError (*Fn)(void **, size_t, aclrtMemMallocPolicy);
    static Fn next = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "aclrtMallocAlign32"));
    std::printf("[HOOK]  aclrtMallocAlign32(%zu)\n", size);
    std::fflush(stdout);
    return next == nullptr ? ACL_ERROR_FAILURE : next(devPtr, size, policy);
}
