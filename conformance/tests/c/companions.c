/* A program linked against two of ROCm's companion libraries, as CuPy for
 * ROCm is: before any device work it starts and stops the profiler
 * (libroctracer64.so.4) and sets rocFFT up (librocfft.so.0). Under
 * `vmmkit run --stand-ins` both are vmmkit's stand-ins, which return the
 * libraries' own failure statuses. The prototypes are the vendors' ABI. */
#include <stddef.h>
#include <stdio.h>

int rocfft_setup(void);
void roctracer_start(void);
void roctracer_stop(void);
int roctracer_open_pool_expl(const void *properties, void **pool);

int main(void) {
    roctracer_start();
    roctracer_stop();
    int fft = rocfft_setup();
    int pool = roctracer_open_pool_expl(NULL, NULL);
    printf("rocfft_setup %d roctracer_open_pool_expl %d\n", fft, pool);
    return fft == 1 && pool == -8 ? 0 : 1;
}
