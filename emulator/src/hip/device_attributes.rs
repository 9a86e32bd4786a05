//! `hipDeviceAttribute_t`: the answer to every value of the 7.x header's
//! enum, and the field of `hipDeviceProp_tR0600` that holds the same value,
//! so that hipDeviceGetAttribute and hipGetDeviceProperties agree (clr
//! `hip_device_runtime.cpp` answers each attribute from the properties).
//!
//! Values: the enum and the R0600 offsets were read off Debian's 7.2.4
//! `hip_runtime_api.h` with g++ (`offsetof`, docs/hip.md "Facts learned");
//! the values are those of an MI300-class device (gfx942, the profile's
//! `ARCH`) where the emulator has no reason to differ, and the emulator's own
//! where it has one: memory is `VMMKIT_DEVICE_MEMORY`, the PCI bus is the
//! ordinal + 1, features that need device code (cooperative launch, images)
//! read 0, those the emulator provides (memory pools, VMM, stream wait value,
//! host registration) read 1.

use vmmkit_sys::hip::hipMemHandleTypePosixFileDescriptor;

use super::profile;

/// What an answer may depend on.
pub(super) struct Facts {
    /// The device ordinal.
    pub device: u32,
    /// Bytes of device memory.
    pub memory: u64,
    /// Whether host code may dereference device addresses (`VMMKIT_HOST_ACCESS`).
    pub host_access: bool,
}

/// One attribute: its enum value and name, its field in
/// `hipDeviceProp_tR0600` (offset, bytes) if it has one, and its value.
pub(super) struct Attr {
    pub id: i32,
    pub name: &'static str,
    pub field: Option<(usize, usize)>,
    pub value: fn(&Facts) -> i64,
}

/// `hipDeviceAttributeCudaCompatibleBegin`: the first of the CUDA-compatible block (0 … 92).
const AMD_BEGIN: i32 = 10000;

const fn a(id: i32, name: &'static str, field: Option<(usize, usize)>, value: fn(&Facts) -> i64) -> Attr {
    Attr { id, name, field, value }
}

const fn i(at: usize) -> Option<(usize, usize)> {
    Some((at, 4))
}

const fn z(at: usize) -> Option<(usize, usize)> {
    Some((at, 8))
}

/// Every attribute the emulator answers, in enum order. Not listed, and
/// refused with 1 as clr's `default:` does: the `Unused1` … `Unused5`
/// placeholders (64, 86, 10001, 10003, 10004) and the range markers
/// (`CudaCompatibleEnd` 9999, `AmdSpecificEnd` 19999, `VendorSpecificBegin` 20000).
pub(super) const ATTRIBUTES: &[Attr] = &[
    a(0, "EccEnabled", i(580), |_| 0),
    a(1, "AccessPolicyMaxWindowSize", i(716), |_| 0),
    a(2, "AsyncEngineCount", i(600), |_| 2),
    a(3, "CanMapHostMemory", i(400), |_| 1),
    a(4, "CanUseHostPointerForRegisteredMem", i(684), |_| 0),
    a(5, "ClockRate", i(348), |_| 2_100_000),
    a(6, "ComputeMode", i(404), |_| 0),
    a(7, "ComputePreemptionSupported", i(680), |_| 0),
    a(8, "ConcurrentKernels", i(576), |_| 1),
    a(9, "ConcurrentManagedAccess", i(676), |_| 1),
    a(10, "CooperativeLaunch", i(688), |_| 0),
    a(11, "CooperativeMultiDeviceLaunch", i(692), |_| 0),
    a(12, "DeviceOverlap", i(384), |_| 1),
    // The host reads and writes device memory in place when the emulator
    // lets host code dereference device addresses.
    a(13, "DirectManagedMemAccessFromHost", i(708), |f| i64::from(f.host_access)),
    a(14, "GlobalL1CacheSupported", i(632), |_| 1),
    a(15, "HostNativeAtomicSupported", i(664), |_| 1),
    a(16, "Integrated", i(396), |_| 0),
    a(17, "IsMultiGpuBoard", i(656), |_| 0),
    a(18, "KernelExecTimeout", i(392), |_| 0),
    a(19, "L2CacheSize", i(616), |_| 4 << 20),
    a(20, "LocalL1CacheSupported", i(636), |_| 1),
    a(21, "Luid", None, |_| 0),
    a(22, "LuidDeviceNodeMask", i(280), |_| 0),
    a(23, "ComputeCapabilityMajor", i(360), |_| i64::from(profile::ARCH.0)),
    a(24, "ManagedMemory", i(652), |_| 1),
    a(25, "MaxBlocksPerMultiProcessor", i(712), |_| 2),
    a(26, "MaxBlockDimX", i(324), |_| 1024),
    a(27, "MaxBlockDimY", i(328), |_| 1024),
    a(28, "MaxBlockDimZ", i(332), |_| 1024),
    a(29, "MaxGridDimX", i(336), |_| i64::from(i32::MAX)),
    a(30, "MaxGridDimY", i(340), |_| 65536),
    a(31, "MaxGridDimZ", i(344), |_| 65536),
    a(32, "MaxSurface1D", i(512), |_| 16384),
    a(33, "MaxSurface1DLayered", i(536), |_| 16384),
    a(34, "MaxSurface2D", i(516), |_| 16384),
    a(35, "MaxSurface2DLayered", i(544), |_| 16384),
    a(36, "MaxSurface3D", i(524), |_| 16384),
    a(37, "MaxSurfaceCubemap", i(556), |_| 16384),
    a(38, "MaxSurfaceCubemapLayered", i(560), |_| 16384),
    a(39, "MaxTexture1DWidth", i(408), |_| 16384),
    a(40, "MaxTexture1DLayered", i(484), |_| 16384),
    a(41, "MaxTexture1DLinear", i(416), |_| 1 << 27),
    a(42, "MaxTexture1DMipmap", i(412), |_| 16384),
    a(43, "MaxTexture2DWidth", i(420), |_| 16384),
    a(44, "MaxTexture2DHeight", i(424), |_| 16384),
    a(45, "MaxTexture2DGather", i(448), |_| 16384),
    a(46, "MaxTexture2DLayered", i(492), |_| 16384),
    a(47, "MaxTexture2DLinear", i(436), |_| 16384),
    a(48, "MaxTexture2DMipmap", i(428), |_| 16384),
    a(49, "MaxTexture3DWidth", i(456), |_| 16384),
    a(50, "MaxTexture3DHeight", i(460), |_| 16384),
    a(51, "MaxTexture3DDepth", i(464), |_| 8192),
    a(52, "MaxTexture3DAlt", i(468), |_| 16384),
    a(53, "MaxTextureCubemap", i(480), |_| 16384),
    a(54, "MaxTextureCubemapLayered", i(504), |_| 16384),
    a(55, "MaxThreadsDim", None, |_| 1024),
    a(56, "MaxThreadsPerBlock", i(320), |_| 1024),
    a(57, "MaxThreadsPerMultiProcessor", i(624), |_| 2048),
    // memPitch: the largest allocation, capped at INT32_MAX in the property
    // as in the attribute (clr hip_device.cpp:557, :741).
    a(58, "MaxPitch", z(312), |f| (f.memory as i64).min(i64::from(i32::MAX))),
    a(59, "MemoryBusWidth", i(612), |_| 8192),
    a(60, "MemoryClockRate", i(608), |_| 1_300_000),
    a(61, "ComputeCapabilityMinor", i(364), |_| i64::from(profile::ARCH.1)),
    a(62, "MultiGpuBoardGroupID", i(660), |_| 0),
    a(63, "MultiprocessorCount", i(388), |_| i64::from(profile::COMPUTE_UNITS)),
    a(65, "PageableMemoryAccess", i(672), |_| 0),
    a(66, "PageableMemoryAccessUsesHostPageTables", i(704), |_| 0),
    a(67, "PciBusId", i(584), |f| i64::from(f.device) + 1),
    a(68, "PciDeviceId", i(588), |_| 0),
    a(69, "PciDomainId", i(592), |_| 0),
    a(70, "PersistingL2CacheMaxSize", i(620), |_| 0),
    a(71, "MaxRegistersPerBlock", i(304), |_| 65536),
    a(72, "MaxRegistersPerMultiprocessor", i(648), |_| 65536),
    a(73, "ReservedSharedMemPerBlock", z(720), |_| 0),
    a(74, "MaxSharedMemoryPerBlock", z(296), |_| 65536),
    a(75, "SharedMemPerBlockOptin", z(696), |_| 65536),
    a(76, "SharedMemPerMultiprocessor", z(640), |_| 65536),
    a(77, "SingleToDoublePrecisionPerfRatio", i(668), |_| 1),
    a(78, "StreamPrioritiesSupported", i(628), |_| 1),
    a(79, "SurfaceAlignment", z(568), |_| 256),
    a(80, "TccDriver", i(596), |_| 0),
    a(81, "TextureAlignment", z(368), |_| 256),
    a(82, "TexturePitchAlignment", z(376), |_| 256),
    a(83, "TotalConstantMemory", z(352), |_| i64::from(i32::MAX)),
    a(84, "TotalGlobalMem", z(288), |f| f.memory as i64),
    a(85, "UnifiedAddressing", i(604), |_| 1),
    a(87, "WarpSize", i(308), |_| i64::from(profile::WARP_SIZE)),
    // HIP-POOL-019: clr's HIP_MEM_POOL_SUPPORT, and a POSIX-fd pool handle type.
    a(88, "MemoryPoolsSupported", i(744), |_| 1),
    a(89, "VirtualMemoryManagementSupported", None, |_| i64::from(profile::VMM_SUPPORTED)),
    a(90, "HostRegisterSupported", i(728), |_| 1),
    a(91, "MemoryPoolSupportedHandleTypes", i(760), |_| i64::from(hipMemHandleTypePosixFileDescriptor)),
    a(92, "HostNumaId", None, |_| 0),
    a(AMD_BEGIN, "ClockInstructionRate", i(1424), |_| 100_000),
    a(10002, "MaxSharedMemoryPerMultiprocessor", z(1416), |_| 65536),
    // clr stores a pointer through `int*` for these two; vmmkit has no HDP
    // registers and answers a 4-byte 0.
    a(10005, "HdpMemFlushCntl", None, |_| 0),
    a(10006, "HdpRegFlushCntl", None, |_| 0),
    a(10007, "CooperativeMultiDeviceUnmatchedFunc", i(1448), |_| 0),
    a(10008, "CooperativeMultiDeviceUnmatchedGridDim", i(1452), |_| 0),
    a(10009, "CooperativeMultiDeviceUnmatchedBlockDim", i(1456), |_| 0),
    a(10010, "CooperativeMultiDeviceUnmatchedSharedMem", i(1460), |_| 0),
    a(10011, "IsLargeBar", i(1464), |_| 1),
    a(10012, "AsicRevision", i(1468), |_| 0),
    a(10013, "CanUseStreamWaitValue", None, |_| 1),
    a(10014, "ImageSupport", None, |_| 0),
    a(10015, "PhysicalMultiProcessorCount", None, |_| i64::from(profile::COMPUTE_UNITS)),
    a(10016, "FineGrainSupport", None, |_| 1),
    a(10017, "WallClockRate", None, |_| 100_000),
    a(10018, "NumberOfXccs", None, |_| 1),
    a(10019, "MaxAvailableVgprsPerThread", None, |_| 512),
    a(10020, "PciChipId", None, |_| 0x74a1),
];

/// The attribute `id`, if the emulator answers it.
pub(super) fn find(id: i32) -> Option<&'static Attr> {
    ATTRIBUTES.iter().find(|a| a.id == id)
}

/// What hipDeviceGetAttribute writes: the value, clamped to `int` as clr's
/// `std::min(prop.x, int32_max)` does for the `size_t` fields.
pub(super) fn answer(attr: &Attr, facts: &Facts) -> i32 {
    (attr.value)(facts).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

/// Writes every attribute that has a field into an R0600 record.
pub(super) fn fill_r0600(bytes: &mut [u8], facts: &Facts) {
    for attr in ATTRIBUTES {
        let Some((at, n)) = attr.field else { continue };
        let v = (attr.value)(facts);
        if n == 8 {
            bytes[at..at + 8].copy_from_slice(&(v as u64).to_le_bytes());
        } else {
            bytes[at..at + 4].copy_from_slice(&(v as i32).to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_fields_lie_in_the_record() {
        let mut ids: Vec<i32> = ATTRIBUTES.iter().map(|a| a.id).collect();
        ids.dedup();
        assert_eq!(ids.len(), ATTRIBUTES.len(), "sorted and unique");
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        for a in ATTRIBUTES {
            if let Some((at, n)) = a.field {
                assert!(at + n <= 1472 && at % n == 0, "{} at {at}", a.name);
            }
        }
        // The whole CUDA-compatible block but the two placeholders, and the AMD block but three.
        assert_eq!(ids.iter().filter(|&&i| i < AMD_BEGIN).count(), 93 - 2);
        assert_eq!(ids.iter().filter(|&&i| i >= AMD_BEGIN).count(), 21 - 3);
    }
}
