/*
 * The helper of the CANN sample environment script (reference acl.md
 * section 1.1): linked with -lacl_rt, prints the chip name.
 */
#include <stdio.h>

#include "acl/acl.h"

int main(void)
{
    const char *soc = aclrtGetSocName();
    if (soc == NULL) {
        return 1;
    }
    printf("%s\n", soc);
    return 0;
}
