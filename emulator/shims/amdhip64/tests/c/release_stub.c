/*
 * A link-time stand-in for a ROCm release's libamdhip64: built with the
 * soname of that release (libamdhip64.so.5, .so.6 or .so.7), so a program
 * linked against it records that name in DT_NEEDED, as one built against
 * the real release does. Never loaded: at run time the loader finds the
 * name beside the drop-in (a link to it).
 */
#include <stddef.h>

int hipRuntimeGetVersion(int *v) { (void)v; return 1; }
int hipDriverGetVersion(int *v) { (void)v; return 1; }
int hipMemAddressReserve(void **p, size_t s, size_t a, void *addr, unsigned long long f)
{
    (void)p; (void)s; (void)a; (void)addr; (void)f;
    return 1;
}
int hipMemAddressFree(void *p, size_t s) { (void)p; (void)s; return 1; }
