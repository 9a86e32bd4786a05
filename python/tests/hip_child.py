"""A HIP program in Python (ctypes, as hip-python and CuPy call the
library), run by the plugin's tests on an emulated machine:

    hip_child.py count              print hipGetDeviceCount
    hip_child.py alloc free|keep    hipMalloc 1 MiB, then hipFree it or not
    hip_child.py export FILE        hipMalloc 2 MiB, fill it with 0x5a, write its
                                    IPC handle to FILE, wait for FILE.done, free
    hip_child.py import FILE        open FILE's handle, print the first byte,
                                    close it, write FILE.done
    hip_child.py unsupported        hipModuleLoadData (twice) and hipGraphClone
    hip_child.py both               hipMalloc and aclrtMalloc in one process
"""

import ctypes
import os
import sys
import time

hip = ctypes.CDLL("libamdhip64.so")
DEADLINE = time.monotonic() + 30


class IpcHandle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_char * 64)]


def check(err: int, what: str) -> None:
    if err != 0:
        hip.hipGetErrorString.restype = ctypes.c_char_p
        sys.exit(f"{what}: {err} {hip.hipGetErrorString(err).decode()}")


def wait_for(path: str) -> None:
    while not os.path.exists(path):
        if time.monotonic() > DEADLINE:
            sys.exit(f"{path} did not appear in time")
        time.sleep(0.01)


def main(cmd: str, arg: str = "") -> None:
    if cmd == "count":
        n = ctypes.c_int()
        check(hip.hipGetDeviceCount(ctypes.byref(n)), "hipGetDeviceCount")
        print(n.value)
    elif cmd == "alloc":
        p = ctypes.c_void_p()
        check(hip.hipMalloc(ctypes.byref(p), 1 << 20), "hipMalloc")
        if arg == "free":
            check(hip.hipFree(p), "hipFree")
    elif cmd == "export":
        p = ctypes.c_void_p()
        check(hip.hipMalloc(ctypes.byref(p), 2 << 20), "hipMalloc")
        check(hip.hipMemset(p, 0x5A, 2 << 20), "hipMemset")
        h = IpcHandle()
        check(hip.hipIpcGetMemHandle(ctypes.byref(h), p), "hipIpcGetMemHandle")
        with open(arg + ".tmp", "wb") as f:
            f.write(bytes(h))
        os.rename(arg + ".tmp", arg)
        wait_for(arg + ".done")
        check(hip.hipFree(p), "hipFree")
    elif cmd == "import":
        wait_for(arg)
        with open(arg, "rb") as f:
            h = IpcHandle.from_buffer_copy(f.read())
        p = ctypes.c_void_p()
        check(hip.hipIpcOpenMemHandle(ctypes.byref(p), h, 1), "hipIpcOpenMemHandle")
        b = ctypes.c_ubyte()
        check(hip.hipMemcpy(ctypes.byref(b), p, 1, 2), "hipMemcpy")  # hipMemcpyDeviceToHost
        print(hex(b.value))
        check(hip.hipIpcCloseMemHandle(p), "hipIpcCloseMemHandle")
        open(arg + ".done", "w").close()
    elif cmd == "unsupported":
        module = ctypes.c_void_p()
        print(hip.hipModuleLoadData(ctypes.byref(module), b"\x7fELF"))
        print(hip.hipModuleLoadData(ctypes.byref(module), b"\x7fELF"))
        graph = ctypes.c_void_p()
        print(hip.hipGraphClone(ctypes.byref(graph), None))
    elif cmd == "both":
        acl = ctypes.CDLL("libascendcl.so")
        check(acl.aclInit(None), "aclInit")
        check(acl.aclrtSetDevice(0), "aclrtSetDevice")
        a = ctypes.c_void_p()
        check(acl.aclrtMalloc(ctypes.byref(a), 1 << 20, 0), "aclrtMalloc")
        check(acl.aclrtFree(a), "aclrtFree")
        p = ctypes.c_void_p()
        check(hip.hipMalloc(ctypes.byref(p), 1 << 20), "hipMalloc")
        check(hip.hipFree(p), "hipFree")
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main(*sys.argv[1:])
