#!/usr/bin/env python3
"""Writes emulator/shims/ascendcl/include/acl/acl_rt_unsupported.h: the C
declarations of every function that libascendcl.so exports without
emulating it (the DEVICE_CODE and NOT_YET lists of
emulator/shims/ascendcl/src/lib.rs), with the types they need that our other
headers do not declare, read from CANN's headers. Run it after moving a
function out of those lists (and declare the emulated one by hand in its
labelled section of acl_rt.h / acl_base.h / acl.h); the headers test checks
the result.

    scripts/acl-unsupported-header.py <CANN include dir>   # a hicann/runtime checkout's include/external

Declarations are normalised (no comments, one per line, wrapped); enums keep
their values; structures and unions that only unsupported functions take
are declared without their layout. The vendor headers stay outside the
repository.
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if len(sys.argv) != 2:
    sys.exit(__doc__)
VENDOR = os.path.join(sys.argv[1], "acl")
HEADERS = ["acl_base_rt.h", "acl_rt.h", "acl_rt_allocator.h"]


def declarations():
    """Every ACL_FUNC_VISIBILITY declaration of the vendor headers, by name."""
    src = ""
    for f in HEADERS:
        src += open(os.path.join(VENDOR, f)).read() + "\n"
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    src = re.sub(r"//[^\n]*", "", src)
    decls = {}
    for m in re.finditer(r"^\s*ACL_FUNC_VISIBILITY\s+(.*?);", src, flags=re.S | re.M):
        d = " ".join(m.group(1).split())
        d = re.sub(r"ACL_DEPRECATED_MESSAGE\([^)]*\)\s*", "", d)
        d = d.replace("ACL_DEPRECATED ", "")
        nm = re.search(r"(\w+)\s*\(", d)
        if nm:
            decls[nm.group(1)] = d
    return decls


d=declarations()
wt=ROOT
s=open(wt+'/emulator/shims/ascendcl/src/lib.rs').read()
body=re.sub(r'//[^\n]*','',s[s.index('export_unsupported!'):])
dc=re.findall(r'\b(acl\w+)\b', body[body.index('device_code'):body.index('not_yet')])
ny=re.findall(r'\b(acl\w+)\b', body[body.index('not_yet'):])
dc=[n for n in dc if n in d]; ny=[n for n in ny if n in d]
ours=''.join(open(wt+'/emulator/shims/ascendcl/include/acl/'+f).read() for f in ['acl_rt.h','acl_base.h','acl.h','acl_rt_allocator.h'])
src=''.join(open(os.path.join(VENDOR,f)).read() for f in HEADERS)
src=re.sub(r'/\*.*?\*/','',src,flags=re.S); src=re.sub(r'//[^\n]*','',src)
src=re.sub(r'ACL_DEPRECATED_MESSAGE\((?:[^()]|"[^"]*")*\)','',src)
def norm(x): 
    x=' '.join(x.split())
    x=re.sub(r'\s*,\s*',', ',x)
    x=re.sub(r'\s*\*\s*',' *',x).replace('( ','(').replace(' )',')').replace(' *)','*)')
    x=re.sub(r'\(\s*\*',r'(*',x)
    x=x.replace('* *','**')
    return x
def wrap(line):
    """`line` broken after commas of its last parenthesis so no line passes 118 columns."""
    if len(line)<=118: return line
    head,args=line.rsplit('(',1)
    indent=' '*(len(head)+1)
    parts=args.split(', ')
    out=[head+'('+parts[0]]
    for a in parts[1:]:
        if len(out[-1])+2+len(a)+(a is not parts[-1])<=118: out[-1]+=', '+a
        else: out[-1]+=','; out.append(indent+a)
    if any(len(l)>118 for l in out):
        out=[head+'(']+['    '+a+(',' if i<len(parts)-1 else '') for i,a in enumerate(parts)]
    return '\n'.join(out)
need=[]
def want(t):
    if t in need or re.search(r'\b'+t+r'\b',ours) or t=='dim3': return
    need.append(t)
    m=re.search(r'typedef\s+([^;{}]*?\(\s*\*\s*'+t+r'\s*\)\s*\([^;]*?\))\s*;',src,re.S)
    if m:
        for u in re.findall(r'\b(acl\w+|rt\w+)\b',m.group(1)):
            if u!=t: want(u)
for n in dc+ny:
    for t in re.findall(r'\b(acl\w+|rt\w+)\b',d[n]):
        if t!=n: want(t)
out=[]
for t in need:
    if re.search(r'typedef\s+void\s*\*\s*'+t+r'\s*;',src):
        out.append(f'typedef void *{t};'); continue
    if re.search(r'typedef\s+struct\s+\w+\s+'+t+r'\s*;',src) or re.search(r'\}\s*'+t+r'\s*;',src) and re.search(r'typedef\s+(struct|union)[^;{]*\{[^{}]*(\{[^{}]*\}[^{}]*)*\}\s*'+t+r'\s*;',src,re.S):
        kind='union' if re.search(r'typedef\s+union[^;{]*\{(?:[^{}]|\{[^{}]*\})*\}\s*'+t+r'\s*;',src,re.S) else 'struct'
        out.append(f'typedef {kind} {t} {t}; /* layout not declared: use through pointers */'); continue
    m=re.search(r'typedef\s+enum\s*\w*\s*\{([^{}]*)\}\s*'+t+r'\s*;',src,re.S)
    if m:
        items=[' '.join(x.split()) for x in m.group(1).split(',') if x.strip()]
        out.append('typedef enum {\n'+',\n'.join('    '+i for i in items)+'\n} '+t+';'); continue
    m=re.search(r'typedef\s+([^;{}]*?\(\s*\*\s*'+t+r'\s*\)\s*\([^;]*?\))\s*;',src,re.S)
    if m:
        out.append(wrap('typedef '+norm(m.group(1))+';')); continue
    print('UNKNOWN',t,file=sys.stderr)
def decl(n):
    x=norm(d[n])
    x=re.sub(r'\(\s*\)$','(void)',x)
    line='ACL_FUNC_VISIBILITY '+x+';'
    if len(line)<=118: return line
    head,args=line.split('(',1)
    indent=' '*(len(head)+1)
    parts=args.split(', ')
    out=[head+'('+parts[0]]
    for a in parts[1:]:
        if len(out[-1])+2+len(a)+(a is not parts[-1])<=118: out[-1]+=', '+a
        else: out[-1]+=','; out.append(indent+a)
    if any(len(l)>118 for l in out):
        out=[head+'(']+['    '+a+(',' if i<len(parts)-1 else '') for i,a in enumerate(parts)]
    return '\n'.join(out)
hdr=['/*',' * vmmkit: the functions of CANN\'s runtime headers (acl/acl_rt.h, acl/acl_base_rt.h,',
 " * acl/acl_rt_allocator.h of hicann/runtime@681ef76) that libascendcl.so exports but",
 ' * does not emulate, with the types they need: each returns 207000',
 ' * ACL_ERROR_RT_FEATURE_NOT_SUPPORT (NULL or 0 where it returns a pointer or an',
 ' * integer) and sets a message naming it (docs/api-coverage.md). Included by',
 ' * <acl/acl_rt.h>; not a vendor header. Structures that only these functions take',
 ' * are declared without their layout.',' */',
 '#ifndef VMMKIT_ACL_ACL_RT_UNSUPPORTED_H_','#define VMMKIT_ACL_ACL_RT_UNSUPPORTED_H_','',
 '#include <stddef.h>','#include <stdint.h>','','#include "acl_base.h"','#include "acl_rt.h"','','#ifdef __cplusplus','extern "C" {','#endif','',
 '/* ---- Types ---- */','',
 '/* A kernel launch\'s grid and block dimensions, passed by value. */',
 'typedef struct dim3 {','    uint32_t x;','    uint32_t y;','    uint32_t z;','} dim3;','']
rank=lambda o: 0 if o.startswith('typedef void *') or o.startswith('typedef struct') or o.startswith('typedef union') else (1 if o.startswith('typedef enum') else 2)
out.sort(key=rank)
hdr+=[o+'\n' if o.startswith('typedef enum') else o for o in out]
hdr+=['','/* ---- Device code: kernels, binaries, operators, AICPU, dumps, graph labels and conditions', ' * (not supported by design) ---- */','']
hdr+=[decl(n) for n in dc]
hdr+=['','/* ---- Not emulated yet ---- */','']
hdr+=[decl(n) for n in ny]
hdr+=['','#ifdef __cplusplus','}','#endif','','#endif /* VMMKIT_ACL_ACL_RT_UNSUPPORTED_H_ */','']
open(wt+'/emulator/shims/ascendcl/include/acl/acl_rt_unsupported.h','w').write('\n'.join(hdr))
print(f'{len(dc)} device code, {len(ny)} not yet, {len(out)} types')
