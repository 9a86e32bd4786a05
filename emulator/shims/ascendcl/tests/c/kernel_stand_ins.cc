/*
 * Host stand-ins for the kernels of the CANN samples (the functions of the
 * samples' kernel_func/kernel_ops.h), for the emulator: each enqueues a host
 * function on the kernel's stream with aclrtLaunchHostFunc, so it runs in
 * stream order after the work before it and before the work after it, as
 * the kernel would on a device. The host may read and write device memory
 * in the emulator (VMMKIT_HOST_ACCESS=1, the default). Every stand-in runs
 * block 0 only, which is all the samples launch (blockDim 1) or read back.
 */
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>

#include "acl/acl.h"

namespace {

struct IntArgs {
    int *ptr;
    int value;
};

struct UintArgs {
    uint32_t *ptr;
};

void Enqueue(void *stream, aclrtHostFunc fn, void *args)
{
    aclError ret = aclrtLaunchHostFunc(static_cast<aclrtStream>(stream), fn, args);
    if (ret != ACL_SUCCESS) {
        std::printf("[ERROR] aclrtLaunchHostFunc returned %d\n", static_cast<int>(ret));
    }
}

void Write(void *p)
{
    IntArgs *a = static_cast<IntArgs *>(p);
    a->ptr[0] = a->value;
    std::printf("Source data: %d\n", a->value);
    std::fflush(stdout);
    delete a;
}

void Read(void *p)
{
    IntArgs *a = static_cast<IntArgs *>(p);
    std::printf("Destination data: %d\n", a->ptr[0]);
    std::fflush(stdout);
    delete a;
}

void Long(void *p)
{
    UintArgs *a = static_cast<UintArgs *>(p);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    a->ptr[0] += 1;
    delete a;
}

void Short(void *p)
{
    UintArgs *a = static_cast<UintArgs *>(p);
    a->ptr[0] *= 2;
    delete a;
}

void Easy(void *p)
{
    UintArgs *a = static_cast<UintArgs *>(p);
    a->ptr[0] += 1;
    delete a;
}

void Print(void *)
{
    std::printf("Hello from the kernel stand-in\n");
    std::fflush(stdout);
}

}  // namespace

void EasyOP(uint32_t, void *stream, uint32_t *x) { Enqueue(stream, Easy, new UintArgs{x}); }
void ErrorOP(uint32_t, void *) {}
void LongOP(uint32_t, void *stream, uint32_t *x) { Enqueue(stream, Long, new UintArgs{x}); }
void ShortOP(uint32_t, void *stream, uint32_t *x) { Enqueue(stream, Short, new UintArgs{x}); }
void WriteDo(uint32_t, void *stream, int *devPtr, int value) { Enqueue(stream, Write, new IntArgs{devPtr, value}); }
void ReadDo(uint32_t, void *stream, int *devPtr) { Enqueue(stream, Read, new IntArgs{devPtr, 0}); }
void PrintDo(uint32_t, void *stream) { Enqueue(stream, Print, nullptr); }
