//! The CUDA catalog: each rule of [`vmmkit_sys::cuda::rules`] bound to
//! the check that provokes it, in the table's order (a test holds them equal).
#![forbid(unsafe_code)]

use vmmkit_sys::cuda::rules;

use crate::checks::cuda::*;

crate::bind! {
    CUDA_RULES: Cuda, rules;
    GEN_001 => general::init_flags,
    GEN_002 => general::needs_context,
    GEN_003 => general::error_strings,
    IPC_001 => ipc::get_vmm_memory,
    IPC_002 => ipc::get_interior,
    IPC_003 => ipc::get_repeat_and_realloc,
    IPC_004 => ipc::open_flags,
    IPC_005 => ipc::open_own,
    IPC_006 => ipc::open_twice,
    IPC_008 => ipc::importer_address,
    IPC_009 => ipc::close_never_opened,
    IPC_010 => ipc::free_while_open,
    IPC_011 => ipc::handle_is_bytes,
    VMM_001 => vmm::granularity,
    VMM_002 => vmm::create_size,
    VMM_003 => vmm::flags_nonzero,
    VMM_004 => vmm::create_location,
    VMM_005 => vmm::release_while_mapped,
    VMM_006 => vmm::reserve_alignment,
    VMM_007 => vmm::address_free_exact,
    VMM_008 => vmm::map_args,
    VMM_009 => vmm::partial_map,
    VMM_010 => vmm::map_over_mapping,
    VMM_011 => vmm::unmap_whole,
    VMM_012 => vmm::access_required,
    VMM_013 => vmm::set_access_rules,
    VMM_015 => share::export_not_requested,
    VMM_016 => share::export_writes_int,
    VMM_017 => share::import_in_peer,
    VMM_018 => share::import_in_exporter,
    VMM_019 => vmm::retain_inside,
    VMM_020 => share::data_outlives_handles,
    CPY_001 => copy::unmappable_host_address,
    FORK_001 => fork::forked_child,
    POOL_001 => pool::create_args,
    POOL_002 => pool::destroy_default,
    POOL_003 => pool::get_pool_args,
    POOL_004 => pool::set_pool_other_device,
    POOL_005 => pool::alloc_async_args,
    POOL_006 => pool::free_async_args,
    POOL_007 => pool::attribute_read_only,
    POOL_008 => pool::accounting,
    POOL_009 => pool::access,
    POOL_010 => pool::export_args,
    POOL_011 => pool::import_args,
    POOL_012 => pool::export_pointer_not_pool,
    POOL_013 => pool::across_processes,
}
