/*
 * Compile-time checks of the headers against reference acl.md section 2:
 * struct sizes, alignments and offsets (x86-64), enum values and the
 * macros of section 2.2. Compiling this file is the test.
 */
#include <stddef.h>

#include "acl/acl.h"

#define SAME_TYPE(expr, type) _Generic((expr), type: 1, default: 0)

/* 2.1 typedefs */
_Static_assert(SAME_TYPE((aclError)0, int), "aclError is int");
_Static_assert(sizeof(aclrtStream) == 8 && sizeof(aclrtContext) == 8 && sizeof(aclrtEvent) == 8, "opaque pointers");
_Static_assert(SAME_TYPE((aclrtDrvMemHandle)0, void *), "aclrtDrvMemHandle is void *");

/* 2.3 enums: 4-byte int on x86-64 */
_Static_assert(sizeof(aclrtMemHandleType) == 4, "enum size");
_Static_assert(sizeof(aclrtMemAttr) == 4, "enum size");
_Static_assert(sizeof(aclrtMemcpyKind) == 4, "enum size");
_Static_assert(sizeof(aclrtMemMallocPolicy) == 4, "enum size");

_Static_assert(ACL_MEM_HANDLE_TYPE_NONE == 0 && ACL_MEM_HANDLE_TYPE_POSIX == 2, "aclrtMemHandleType");
_Static_assert(ACL_MEM_ALLOCATION_TYPE_PINNED == 0, "aclrtMemAllocationType");
_Static_assert(ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT == 1 && ACL_MEM_SHARE_HANDLE_TYPE_FABRIC == 2,
               "aclrtMemSharedHandleType");
_Static_assert(ACL_MEM_LOCATION_TYPE_HOST == 0 && ACL_MEM_LOCATION_TYPE_DEVICE == 1 &&
                   ACL_MEM_LOCATION_TYPE_UNREGISTERED == 2 && ACL_MEM_LOCATION_TYPE_MANAGED == 3 &&
                   ACL_MEM_LOCATION_TYPE_HOST_NUMA == 4,
               "aclrtMemLocationType");
_Static_assert(ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM == 0 && ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED == 1 &&
                   ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF == 0xFFFF,
               "aclrtMemGranularityOptions");
_Static_assert(ACL_RT_MEM_ACCESS_FLAGS_NONE == 0 && ACL_RT_MEM_ACCESS_FLAGS_READ == 1 &&
                   ACL_RT_MEM_ACCESS_FLAGS_READWRITE == 3,
               "aclrtMemAccessFlags");
_Static_assert(ACL_MEMCPY_HOST_TO_HOST == 0 && ACL_MEMCPY_HOST_TO_DEVICE == 1 && ACL_MEMCPY_DEVICE_TO_HOST == 2 &&
                   ACL_MEMCPY_DEVICE_TO_DEVICE == 3 && ACL_MEMCPY_DEFAULT == 4 &&
                   ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE == 5 && ACL_MEMCPY_INNER_DEVICE_TO_DEVICE == 6 &&
                   ACL_MEMCPY_INTER_DEVICE_TO_DEVICE == 7,
               "aclrtMemcpyKind");
_Static_assert(ACL_MEM_MALLOC_HUGE_FIRST == 0 && ACL_MEM_MALLOC_HUGE_ONLY == 1 && ACL_MEM_MALLOC_NORMAL_ONLY == 2 &&
                   ACL_MEM_MALLOC_HUGE_FIRST_P2P == 3 && ACL_MEM_MALLOC_HUGE_ONLY_P2P == 4 &&
                   ACL_MEM_MALLOC_NORMAL_ONLY_P2P == 5 && ACL_MEM_MALLOC_HUGE1G_ONLY == 6 &&
                   ACL_MEM_MALLOC_HUGE1G_ONLY_P2P == 7,
               "aclrtMemMallocPolicy values");
_Static_assert(ACL_MEM_TYPE_LOW_BAND_WIDTH == 0x100 && ACL_MEM_TYPE_HIGH_BAND_WIDTH == 0x1000 &&
                   ACL_MEM_ACCESS_USER_SPACE_READONLY == 0x100000,
               "aclrtMemMallocPolicy bit flags");
_Static_assert(ACL_DDR_MEM == 0 && ACL_HBM_MEM == 1 && ACL_DDR_MEM_HUGE == 2 && ACL_DDR_MEM_NORMAL == 3 &&
                   ACL_HBM_MEM_HUGE == 4 && ACL_HBM_MEM_NORMAL == 5 && ACL_DDR_MEM_P2P_HUGE == 6 &&
                   ACL_DDR_MEM_P2P_NORMAL == 7 && ACL_HBM_MEM_P2P_HUGE == 8 && ACL_HBM_MEM_P2P_NORMAL == 9 &&
                   ACL_HBM_MEM_HUGE1G == 10 && ACL_HBM_MEM_P2P_HUGE1G == 11 && ACL_MEM_NORMAL == 12 &&
                   ACL_MEM_HUGE == 13 && ACL_MEM_HUGE1G == 14 && ACL_MEM_P2P_NORMAL == 15 &&
                   ACL_MEM_P2P_HUGE == 16 && ACL_MEM_P2P_HUGE1G == 17,
               "aclrtMemAttr");

/* 2.2 macros: unsigned long constants */
_Static_assert(SAME_TYPE(ACL_RT_VMM_EXPORT_FLAG_DEFAULT, unsigned long) && ACL_RT_VMM_EXPORT_FLAG_DEFAULT == 0x0,
               "ACL_RT_VMM_EXPORT_FLAG_DEFAULT");
_Static_assert(SAME_TYPE(ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, unsigned long) &&
                   ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION == 0x1,
               "ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION");
_Static_assert(SAME_TYPE(ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT, unsigned long) && ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT == 0x0,
               "ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT");
_Static_assert(SAME_TYPE(ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION, unsigned long) &&
                   ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION == 0x1,
               "ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION");
_Static_assert(SAME_TYPE(ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT, unsigned long) && ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT == 0x0,
               "ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT");
_Static_assert(SAME_TYPE(ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS, unsigned long) &&
                   ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS == 0x1,
               "ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS");
_Static_assert(ACL_MAJOR_VERSION == 1 && ACL_MINOR_VERSION == 17 && ACL_PATCH_VERSION == 0, "version 1.17.0");

/* 2.4 structures */
_Static_assert(sizeof(aclrtMemLocation) == 8 && _Alignof(aclrtMemLocation) == 4, "aclrtMemLocation size");
_Static_assert(offsetof(aclrtMemLocation, id) == 0 && offsetof(aclrtMemLocation, type) == 4, "aclrtMemLocation");

_Static_assert(sizeof(aclrtPhysicalMemProp) == 32 && _Alignof(aclrtPhysicalMemProp) == 8, "aclrtPhysicalMemProp size");
_Static_assert(offsetof(aclrtPhysicalMemProp, handleType) == 0, "handleType");
_Static_assert(offsetof(aclrtPhysicalMemProp, allocationType) == 4, "allocationType");
_Static_assert(offsetof(aclrtPhysicalMemProp, memAttr) == 8, "memAttr");
_Static_assert(offsetof(aclrtPhysicalMemProp, location) == 12, "location");
_Static_assert(offsetof(aclrtPhysicalMemProp, location.id) == 12, "location.id");
_Static_assert(offsetof(aclrtPhysicalMemProp, location.type) == 16, "location.type");
_Static_assert(offsetof(aclrtPhysicalMemProp, reserve) == 24, "reserve");
_Static_assert(SAME_TYPE(((aclrtPhysicalMemProp *)0)->reserve, uint64_t), "reserve is uint64_t");

_Static_assert(sizeof(aclrtMemAccessDesc) == 24 && _Alignof(aclrtMemAccessDesc) == 4, "aclrtMemAccessDesc size");
_Static_assert(offsetof(aclrtMemAccessDesc, flags) == 0, "flags");
_Static_assert(offsetof(aclrtMemAccessDesc, location) == 4, "location");
_Static_assert(offsetof(aclrtMemAccessDesc, rsv) == 12 && sizeof(((aclrtMemAccessDesc *)0)->rsv) == 12, "rsv");

_Static_assert(sizeof(aclrtMemFabricHandle) == 128 && _Alignof(aclrtMemFabricHandle) == 1, "aclrtMemFabricHandle");
_Static_assert(offsetof(aclrtMemFabricHandle, data) == 0, "data");

_Static_assert(sizeof(aclrtPtrAttributes) == 28 && _Alignof(aclrtPtrAttributes) == 4, "aclrtPtrAttributes size");
_Static_assert(offsetof(aclrtPtrAttributes, location) == 0, "location");
_Static_assert(offsetof(aclrtPtrAttributes, pageSize) == 8, "pageSize");
_Static_assert(offsetof(aclrtPtrAttributes, rsv) == 12 && sizeof(((aclrtPtrAttributes *)0)->rsv) == 16, "rsv");

_Static_assert(sizeof(aclrtServerPid) == 24 && _Alignof(aclrtServerPid) == 8, "aclrtServerPid size");
_Static_assert(offsetof(aclrtServerPid, sdid) == 0, "sdid");
_Static_assert(offsetof(aclrtServerPid, pid) == 8, "pid");
_Static_assert(offsetof(aclrtServerPid, num) == 16, "num");

/* The structures of acl_rt.h:293-298, 580-587, 885-887 (x86-64). */
_Static_assert(sizeof(aclrtStreamConfigHandle) == 32 && _Alignof(aclrtStreamConfigHandle) == 8, "config size");
_Static_assert(offsetof(aclrtStreamConfigHandle, workptr) == 0, "workptr");
_Static_assert(offsetof(aclrtStreamConfigHandle, workSize) == 8, "workSize");
_Static_assert(offsetof(aclrtStreamConfigHandle, flag) == 16, "flag");
_Static_assert(offsetof(aclrtStreamConfigHandle, priority) == 24, "priority");
_Static_assert(sizeof(aclrtStreamAttrValue) == 16 && _Alignof(aclrtStreamAttrValue) == 8, "attribute value");
_Static_assert(sizeof(aclrtUuid) == 16 && _Alignof(aclrtUuid) == 1, "aclrtUuid");
_Static_assert(ACL_STREAM_ATTR_PRIORITY == 5 && ACL_RT_STREAM_PRIORITY == 3, "stream attribute values");
_Static_assert(ACL_DEV_ATTR_SUPER_POD_ID == 405 && ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE == 301, "aclrtDevAttr values");
_Static_assert(ACL_CALLBACK_BLOCK == 1 && ACL_BF16 == 27 && ACL_OPT_ENABLE_KERNEL_EARLY_START == 3, "enum values");
_Static_assert(sizeof(aclrtUtilizationInfo) == 24 && offsetof(aclrtUtilizationInfo, utilizationExtend) == 16,
               "aclrtUtilizationInfo");
/* Memory (acl_rt.h of hicann/runtime@681ef76). */
_Static_assert(sizeof(aclrtMallocAttrValue) == 8 && _Alignof(aclrtMallocAttrValue) == 4, "aclrtMallocAttrValue");
_Static_assert(sizeof(aclrtMallocAttribute) == 12 && offsetof(aclrtMallocAttribute, value) == 4, "aclrtMallocAttribute");
_Static_assert(sizeof(aclrtMallocConfig) == 16 && offsetof(aclrtMallocConfig, numAttrs) == 8, "aclrtMallocConfig");
_Static_assert(sizeof(aclrtMemUsageInfo) == 112 && _Alignof(aclrtMemUsageInfo) == 8, "aclrtMemUsageInfo size");
_Static_assert(offsetof(aclrtMemUsageInfo, curMemSize) == 32, "curMemSize");
_Static_assert(offsetof(aclrtMemUsageInfo, memPeakSize) == 40, "memPeakSize");
_Static_assert(offsetof(aclrtMemUsageInfo, reserved) == 48, "reserved");
_Static_assert(sizeof(aclrtMemManagedLocation) == 8 && offsetof(aclrtMemManagedLocation, id) == 4, "aclrtMemManagedLocation");
_Static_assert(sizeof(aclrtMemcpyBatchAttr) == 32 && _Alignof(aclrtMemcpyBatchAttr) == 4, "aclrtMemcpyBatchAttr size");
_Static_assert(offsetof(aclrtMemcpyBatchAttr, srcLoc) == 8 && offsetof(aclrtMemcpyBatchAttr, rsv) == 16, "srcLoc, rsv");
_Static_assert(sizeof(aclrtBarrierTaskInfo) == 56 && offsetof(aclrtBarrierTaskInfo, cmoInfo) == 8, "aclrtBarrierTaskInfo");
_Static_assert(sizeof(aclrtMemUceInfo) == 128 && offsetof(aclrtMemUceInfo, reserved) == 16, "aclrtMemUceInfo");
_Static_assert(ACL_HOST_REGISTER_IOMEMORY == 4 && ACL_HOST_REGISTER_READONLY == 8, "aclrtHostRegisterType");
_Static_assert(ACL_RT_MEM_ATTR_VA_FLAG == 3 && ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID == 8, "enums");
_Static_assert(ACL_MEM_LOCATIONTYPE_HOST_NUMA_CURRENT == 4 && ACL_RT_CMO_TYPE_FLUSH == 3, "enums");
_Static_assert(ACL_RT_HAC_TYPE_CCU == 9 && ACL_RT_MEM_ACCESS_UB_MULTI_PORT_PATH == 3, "enums");
