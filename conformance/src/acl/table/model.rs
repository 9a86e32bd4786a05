//! The model-capture entry points of [`Acl`] (ACL-MRI), and the two calls
//! their checks need besides (aclrtLaunchHostFunc, aclrtCtxGetCurrentDefaultStream).

use std::ffi::c_void;

use vmmkit_sys::acl::*;

use super::Acl;
use crate::outcome::Failure;

impl Acl {
    pub(crate) fn capture_begin(&self, stream: aclrtStream, mode: aclmdlRICaptureMode) -> Result<AclError, Failure> {
        call_opt!(self.aclmdlRICaptureBegin(stream, mode))
    }
    pub(crate) fn capture_end(&self, stream: aclrtStream, model: *mut aclmdlRI) -> Result<AclError, Failure> {
        call_opt!(self.aclmdlRICaptureEnd(stream, model))
    }
    pub(crate) fn capture_get_info(
        &self,
        stream: aclrtStream,
        status: *mut aclmdlRICaptureStatus,
        model: *mut aclmdlRI,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclmdlRICaptureGetInfo(stream, status, model))
    }
    pub(crate) fn capture_exchange_mode(&self, mode: *mut aclmdlRICaptureMode) -> Result<AclError, Failure> {
        call_opt!(self.aclmdlRICaptureThreadExchangeMode(mode))
    }
    pub(crate) fn model_execute_async(&self, model: aclmdlRI, stream: aclrtStream) -> Result<AclError, Failure> {
        call_opt!(self.aclmdlRIExecuteAsync(model, stream))
    }
    pub(crate) fn model_execute(&self, model: aclmdlRI, timeout: i32) -> Result<AclError, Failure> {
        call_opt!(self.aclmdlRIExecute(model, timeout))
    }
    pub(crate) fn model_destroy(&self, model: aclmdlRI) -> Result<AclError, Failure> {
        call_opt!(self.aclmdlRIDestroy(model))
    }
    pub(crate) fn launch_host_func(
        &self,
        stream: aclrtStream,
        f: aclrtHostFunc,
        args: *mut c_void,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtLaunchHostFunc(stream, f, args))
    }
    pub(crate) fn memset_async(
        &self,
        ptr: *mut c_void,
        max_count: usize,
        value: i32,
        count: usize,
        stream: aclrtStream,
    ) -> Result<AclError, Failure> {
        call_opt!(self.aclrtMemsetAsync(ptr, max_count, value, count, stream))
    }
    pub(crate) fn current_default_stream(&self, stream: *mut aclrtStream) -> Result<AclError, Failure> {
        call_opt!(self.aclrtCtxGetCurrentDefaultStream(stream))
    }
}
