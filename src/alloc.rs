//! Allocator tuning. The binary uses mimalloc (see main.rs). Encoder activations are large
//! buffers freed and re-allocated in every layer; by default mimalloc returns freed memory to the
//! OS after 10 ms, and every re-allocation then pays page faults and kernel page zeroing
//! (`clear_page_erms` was ~20% of embedding time in profiles). Keeping freed memory avoids that.

unsafe extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// `mi_option_purge_delay` in mimalloc's option enum (v2 and v3).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

/// Never purge freed memory (call once at start-up; only meaningful when mimalloc is the global
/// allocator).
pub fn keep_freed_memory() {
    // SAFETY: mi_option_set only stores an integer option; any value is accepted.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
}
