//! Returning freed memory to the system after the large transient allocations of a big document
//! and of reading an environment's libraries.
//!
//! A 20 MB `didOpen` passes through frame buffers and JSON values on the protocol threads, and a
//! whole-text analysis allocates and frees as much again; glibc keeps what was freed in its
//! arenas, so without this the server's resident size stays at its peak for the session.

/// Fixes glibc's allocation thresholds for a long-running server. By default each free of a
/// large mapped block raises the threshold under which blocks come from the arenas (up to
/// 32 MiB) and the free space an arena keeps at its top (up to 64 MiB): after one 20 MB document
/// every large buffer lives in some thread's arena, whose top `malloc_trim` cannot shrink, and
/// stays resident. Fixed thresholds keep large blocks mapped (returned on free) and arena tops
/// small. Call once, before the server allocates.
pub fn configure_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    set_thresholds();
}

/// Gives free heap pages back to the kernel (all arenas). Costs a few milliseconds on a large
/// heap: called after whole-document work, not per keystroke.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    trim();
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn set_thresholds() {
    // <malloc.h>
    const M_TRIM_THRESHOLD: std::ffi::c_int = -1;
    const M_MMAP_THRESHOLD: std::ffi::c_int = -3;
    unsafe extern "C" {
        fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
    }
    // SAFETY: mallopt takes two integers and only changes the allocator's tuning parameters;
    // both are valid at any time (blocks already allocated keep how they were allocated).
    unsafe {
        mallopt(M_MMAP_THRESHOLD, 256 * 1024);
        mallopt(M_TRIM_THRESHOLD, 1024 * 1024);
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn trim() {
    unsafe extern "C" {
        fn malloc_trim(pad: usize) -> std::ffi::c_int;
    }
    // SAFETY: malloc_trim takes no pointers and only releases memory the allocator holds free;
    // it is thread-safe (it locks each arena).
    unsafe {
        malloc_trim(0);
    }
}
