/*
 * The chip a program sees and the address windows it gets, as a program
 * that branches on the chip name would (Mooncake's Ascend shared segment:
 * on an A3 it reserves with aclrtReserveMemAddressNoUCMemory at 78 TiB,
 * 1 GiB with flags 1, and falls back to aclrtReserveMemAddress only on
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT). Prints one line per step:
 *   soc <name> a3=<0|1>
 *   reserve <ret> <address>
 *   nouc <ret> <address>
 *   nouc-map <ret> <value read back>
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

static const char *const A3_NAMES[] = {"Ascend910_9391", "Ascend910_9381", "Ascend910_9392",
                                       "Ascend910_9382", "Ascend910_9372", "Ascend910_9362"};

static int is_a3(const char *soc)
{
    for (size_t i = 0; i < sizeof(A3_NAMES) / sizeof(A3_NAMES[0]); i++) {
        if (strcmp(soc, A3_NAMES[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

int main(void)
{
    const char *soc = aclrtGetSocName();
    if (soc == NULL) {
        return 1;
    }
    printf("soc %s a3=%d\n", soc, is_a3(soc));
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        return 2;
    }
    void *va = NULL;
    aclError ret = aclrtReserveMemAddress(&va, 2u << 20, 0, NULL, 1);
    printf("reserve %d %p\n", (int)ret, va);
    if (ret == ACL_SUCCESS) {
        (void)aclrtReleaseMemAddress(va);
    }

    const size_t gib = (size_t)1 << 30;
    void *start = (void *)(uintptr_t)(78ULL << 40);
    void *nouc = NULL;
    ret = aclrtReserveMemAddressNoUCMemory(&nouc, gib, 0, start, 1);
    printf("nouc %d %p\n", (int)ret, nouc);
    if (ret == ACL_SUCCESS) {
        aclrtPhysicalMemProp prop;
        memset(&prop, 0, sizeof(prop));
        prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
        prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
        prop.memAttr = ACL_HBM_MEM_HUGE;
        prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = 0;
        aclrtDrvMemHandle h = NULL;
        uint32_t value = 0x78;
        uint32_t back = 0;
        aclError r = aclrtMallocPhysical(&h, 2u << 20, &prop, 0);
        if (r == ACL_SUCCESS) {
            r = aclrtMapMem(nouc, 2u << 20, 0, h, 0);
        }
        if (r == ACL_SUCCESS) {
            r = aclrtMemcpy(nouc, sizeof(value), &value, sizeof(value), ACL_MEMCPY_HOST_TO_DEVICE);
        }
        if (r == ACL_SUCCESS) {
            r = aclrtMemcpy(&back, sizeof(back), nouc, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST);
        }
        printf("nouc-map %d %u\n", (int)r, back);
        (void)aclrtUnmapMem(nouc);
        (void)aclrtFreePhysical(h);
        (void)aclrtReleaseMemAddress(nouc);
    }
    (void)aclrtResetDevice(0);
    (void)aclFinalize();
    return 0;
}
