// mimalloc: candle allocates and frees many activation buffers; glibc malloc spent a large share
// of sys time on them in trials on the target machines.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    qa::alloc::keep_freed_memory();
    qa::app::main()
}
