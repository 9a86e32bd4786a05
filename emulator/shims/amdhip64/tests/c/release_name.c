/*
 * What a program built against a ROCm release's libamdhip64 sees: the
 * version queries, and a code that differs between releases (HIP-VMM-011:
 * hipMemAddressReserve with an alignment that is not a power of two gives
 * 2 under 6.x and 1 under 7.x). Declares the few functions it calls, as the
 * HIP headers do, so it builds without them. Prints:
 *   runtime <hipRuntimeGetVersion> driver <hipDriverGetVersion>
 *   reserve-bad-alignment <code>
 */
#include <stddef.h>
#include <stdio.h>

int hipRuntimeGetVersion(int *runtimeVersion);
int hipDriverGetVersion(int *driverVersion);
int hipMemAddressReserve(void **ptr, size_t size, size_t alignment, void *addr, unsigned long long flags);
int hipMemAddressFree(void *ptr, size_t size);

int main(void)
{
    int runtime = 0;
    int driver = 0;
    if (hipRuntimeGetVersion(&runtime) != 0 || hipDriverGetVersion(&driver) != 0) {
        return 1;
    }
    printf("runtime %d driver %d\n", runtime, driver);
    void *p = NULL;
    int rc = hipMemAddressReserve(&p, 2u << 20, 3 << 12, NULL, 0);
    printf("reserve-bad-alignment %d\n", rc);
    if (rc == 0) {
        (void)hipMemAddressFree(p, 2u << 20);
    }
    return 0;
}
