#!/usr/bin/env python3
"""Lists the runtime functions that a vendor's headers declare, with the
family each belongs to, into the kept lists docs/api/<vendor>.tsv that
docs/api-coverage.md and the drop-ins' coverage tests are made from.

The headers stay outside the repository; only the names are kept.

    scripts/api-names.py acl <CANN include dir>    # e.g. a hicann/runtime checkout's include/external
    scripts/api-names.py hip <HIP include dir> <libamdhip64.so>

ACL: every `ACL_FUNC_VISIBILITY` declaration of acl/acl_rt.h, acl/acl_base.h
and the headers they include (acl_base_rt.h, acl_rt_allocator.h). The family
is read from the name (see ACL_FAMILIES); the CANN header has no groups.

HIP: every name of hip/hip_runtime_api.h and
hip/amd_detail/amd_hip_runtime_pt_api.h that is declared as a function
(a return type, the name, `(`) outside comments AND exported by the vendor's
libamdhip64.so (`nm -D`): that drops the inline helpers and templates that
the header defines, which no library exports. The family is the header's
own doxygen group (`@defgroup Memory Memory Management` ...) that the
declaration sits in.

Then run `scripts/api-coverage` to write docs/api-coverage.md.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ACL families, first match wins: (family, name pattern).
ACL_FAMILIES = [
    ("graph", r"^aclmdlRI|^aclrt(Create|Destroy|Set)Label|^aclrtSwitchLabel|^aclrtTaskUpdateAsync|^aclrtPersistentTaskClean"),
    ("callback", r"^aclrt(?!Binary)(LaunchCallback|Set.*Callback|.*Callback(?!Register|Unregister)|.*Report|.*HostFunc)"),
    ("memory", r"^aclrtAllocator"),
    ("device code", r"^aclmdl|^aclrt(Launch(?!Callback|HostFunc)|.*Kernel|.*Binary|.*Func|GetFunction|GetSymbol|.*Args?(Handle|Append|Init|Finalize|Get|Set|Placeholder)|.*Aicpu|.*AiCore|RegisterCpuFunc|.*OpExecuteTime[Oo]ut|.*OpTimeOut|.*OpWaitTimeout|GetHardwareSync|CheckArchCompatibility|ProfTrace|ReduceAsync|RandomNumAsync)"),
    ("memory", r"^aclrt(Malloc|Free|Memcpy|Memset|Mem|Host|PointerGetAttributes|GetMemInfo|GetMemUsageInfo|GetMemUceInfo|CheckMemType|Allocator|IpcMem|ReserveMem|ReleaseMemAddress|MapMem|UnmapMem|.*Physical|GetAllocationGranularity|.*Shareable|.*MemAttr|DevicePeerAccess|.*Cmo|.*Cache|.*Buf|GetMemcpyDescSize|SetMemcpyDesc)"),
    ("stream", r"^aclrt(.*Stream|GetThreadLastTaskId)"),
    ("event", r"^aclrt(.*Event|.*Notify|Value)"),
    ("context", r"^aclrt.*(Context|Ctx)"),
    ("device", r"^aclrt(.*Device|.*DevId|GetSocName|GetRunMode|.*Overflow|.*Group|.*Limit|.*Res|.*Deterministic|.*SysParam|.*ExceptionInfo|.*Status|SnapShot|RepairError)|^aclGetDeviceCapability"),
    ("host data", r"^acl(Create|Destroy|Get|Update)(DataBuffer|TensorDesc)|^aclFloat|^aclDataType|^aclDataBuffer|^acl(Get|Set).*Tensor|^aclGetDataBuffer"),
    ("library", r"^acl(Init|Finalize|GetRecentErrMsg|sys|rtGetVersion|AppLog|GetVersion|GetCann|rtSetExceptionInfoCallback|rtGetErrorVerbose|rtGetLastError|rtPeekAtLastError)"),
]


def strip_comments(text):
    """The text with /* */ and // comments replaced by spaces, lines kept."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"/\*.*?\*/|//[^\n]*", blank, text, flags=re.S)


def acl(include):
    headers = ["acl/acl_base.h", "acl/acl_base_rt.h", "acl/acl_rt.h", "acl/acl_rt_allocator.h"]
    rows = {}
    for h in headers:
        text = strip_comments(open(os.path.join(include, h), encoding="utf-8").read())
        for m in re.finditer(r"ACL_FUNC_VISIBILITY\s+[^;{(]*?\b(acl\w+)\s*\(", text):
            name = m.group(1)
            family = next((f for f, p in ACL_FAMILIES if re.search(p, name)), "other")
            rows.setdefault(name, (family, h))
    return rows


def hip(include, library):
    out = subprocess.run(["nm", "-D", "--defined-only", library], check=True, capture_output=True, text=True).stdout
    exported = {line.split()[-1].split("@")[0] for line in out.splitlines() if " T " in line}
    rows = {}
    for h in ["hip/hip_runtime_api.h", "hip/amd_detail/amd_hip_runtime_pt_api.h"]:
        raw = open(os.path.join(include, h), encoding="utf-8").read()
        code = strip_comments(raw)
        # The doxygen group of each line: @defgroup/@addtogroup opens on its
        # `@{`, `@}` closes the innermost.
        groups, stack, pending = [], [], None
        for line in raw.splitlines():
            g = re.search(r"@(?:defgroup|addtogroup)\s+\w+\s*(.*?)\s*(?:\*/)?$", line)
            if g:
                pending = g.group(1) or "unnamed"
            if re.search(r"@\{", line):
                stack.append(pending or (stack[-1] if stack else "other"))
                pending = None
            groups.append(stack[-1] if stack else "other")
            if re.search(r"@\}", line) and stack:
                stack.pop()
        decl = re.compile(r"(?:^|[;}\n])\s*(?:[A-Za-z_][\w\s\*]*?[\s\*])\b((?:__)?hip\w+)\s*\(", re.M)
        for m in decl.finditer(code):
            name = m.group(1)
            if name not in exported or name in rows:
                continue
            line = code.count("\n", 0, m.start(1))
            rows[name] = (groups[line], h)
    # The per-thread variants (`hipMemcpy_spt`) belong to their base function's family.
    for name, (family, h) in rows.items():
        base = rows.get(name.removesuffix("_spt"))
        if name.endswith("_spt") and base:
            rows[name] = (base[0], h)
    return rows


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("acl", "hip") or (sys.argv[1] == "hip" and len(sys.argv) != 4):
        sys.exit(__doc__)
    vendor = sys.argv[1]
    rows = acl(sys.argv[2]) if vendor == "acl" else hip(sys.argv[2], sys.argv[3])
    os.makedirs(os.path.join(ROOT, "docs/api"), exist_ok=True)
    path = os.path.join(ROOT, "docs/api", vendor + ".tsv")
    with open(path, "w", encoding="utf-8") as f:
        f.write("# name\tfamily\theader  (written by scripts/api-names.py; do not edit)\n")
        for name in sorted(rows):
            family, header = rows[name]
            f.write(f"{name}\t{family}\t{header}\n")
    print(f"{path}: {len(rows)} functions")


if __name__ == "__main__":
    main()
