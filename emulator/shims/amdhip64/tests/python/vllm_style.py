#!/usr/bin/env python3
"""A vLLM-style ctypes wrapper over libamdhip64.so, run on vmmkit's drop-in.

vLLM's HIP path (vllm-project/vllm@03f97cc,
vllm/distributed/device_communicators/cuda_wrapper.py) opens the loaded
libamdhip64 with ctypes and binds ten functions by their HIP names, with
these C types (the fact list this script checks; the code is ours):

    hipSetDevice(int) -> int
    hipDeviceSynchronize(void) -> int
    hipDeviceReset(void) -> int
    hipGetErrorString(int) -> const char*
    hipMalloc(void**, size_t) -> int
    hipFree(void*) -> int
    hipMemset(void*, int, size_t) -> int
    hipMemcpy(void*, const void*, size_t, int kind) -> int   (kind 4, default)
    hipIpcGetMemHandle(handle*, void*) -> int
    hipIpcOpenMemHandle(void**, handle by value, unsigned flags) -> int  (flags 1)

vLLM's handle type is 128 bytes (`c_byte * 128`); HIP's is 64: passed by
value on the stack, the callee reads the first 64. The script binds every
one of them, then runs a round trip between two processes: the parent
allocates and fills a buffer and sends its IPC handle; the child opens it,
checks the bytes, writes its own and exits; the parent sees them.

    vllm_style.py LIBRARY            # the parent (starts the child itself)
    vllm_style.py LIBRARY child HEX  # the child
"""

import ctypes
import subprocess
import sys

SIZE = 1 << 20
HIP_ERROR_INVALID_VALUE = 1


class HandleT(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_byte * 128)]


SIGNATURES = [
    ("hipSetDevice", ctypes.c_int, [ctypes.c_int]),
    ("hipDeviceSynchronize", ctypes.c_int, []),
    ("hipDeviceReset", ctypes.c_int, []),
    ("hipGetErrorString", ctypes.c_char_p, [ctypes.c_int]),
    ("hipMalloc", ctypes.c_int, [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]),
    ("hipFree", ctypes.c_int, [ctypes.c_void_p]),
    ("hipMemset", ctypes.c_int, [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]),
    ("hipMemcpy", ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]),
    ("hipIpcGetMemHandle", ctypes.c_int, [ctypes.POINTER(HandleT), ctypes.c_void_p]),
    ("hipIpcOpenMemHandle", ctypes.c_int, [ctypes.POINTER(ctypes.c_void_p), HandleT, ctypes.c_uint]),
]


class Hip:
    def __init__(self, path):
        lib = ctypes.CDLL(path)
        self.f = {}
        for name, restype, argtypes in SIGNATURES:
            fn = getattr(lib, name)  # AttributeError: the wrapper cannot load
            fn.restype = restype
            fn.argtypes = argtypes
            self.f[name] = fn
        print(f"bound {len(self.f)} functions: {' '.join(self.f)}")

    def check(self, name, *args):
        rc = self.f[name](*args)
        if rc != 0:
            text = self.f["hipGetErrorString"](rc).decode()
            raise RuntimeError(f"{name} returned {rc}: {text}")


def host_bytes(hip, ptr, n):
    buf = ctypes.create_string_buffer(n)
    hip.check("hipMemcpy", buf, ptr, n, 4)
    return buf.raw


def child(hip, hexhandle):
    hip.check("hipSetDevice", 0)
    handle = HandleT()
    raw = bytes.fromhex(hexhandle)
    ctypes.memmove(ctypes.addressof(handle), raw, len(raw))
    ptr = ctypes.c_void_p()
    hip.check("hipIpcOpenMemHandle", ctypes.byref(ptr), handle, 1)
    got = host_bytes(hip, ptr, SIZE)
    assert got == b"\x5a" * SIZE, "the child read other bytes"
    hip.check("hipMemset", ptr, 0xA5, SIZE)
    hip.check("hipDeviceSynchronize")
    print("child: ok")


def parent(hip, path):
    assert hip.f["hipGetErrorString"](HIP_ERROR_INVALID_VALUE) == b"invalid argument"
    hip.check("hipSetDevice", 0)
    ptr = ctypes.c_void_p()
    hip.check("hipMalloc", ctypes.byref(ptr), SIZE)
    hip.check("hipMemset", ptr, 0x5A, SIZE)
    handle = HandleT()
    hip.check("hipIpcGetMemHandle", ctypes.byref(handle), ptr)
    hexhandle = bytes(handle.internal)[:64].hex()
    out = subprocess.run([sys.executable, __file__, path, "child", hexhandle], capture_output=True, text=True, timeout=60)
    sys.stdout.write(out.stdout)
    sys.stderr.write(out.stderr)
    assert out.returncode == 0, f"the child failed ({out.returncode})"
    assert host_bytes(hip, ptr, SIZE) == b"\xa5" * SIZE, "the parent does not see the child's write"
    rc = hip.f["hipSetDevice"](99)
    assert rc != 0 and hip.f["hipGetErrorString"](rc), "a bad device is refused"
    hip.check("hipFree", ptr)
    hip.check("hipDeviceSynchronize")
    hip.check("hipDeviceReset")
    print("parent: ok")


def main():
    path = sys.argv[1]
    hip = Hip(path)
    if len(sys.argv) > 2 and sys.argv[2] == "child":
        child(hip, sys.argv[3])
    else:
        parent(hip, path)


if __name__ == "__main__":
    main()
