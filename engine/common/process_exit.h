// Ending a command-line or GUI process once its work is done and its output is out, without the
// exit-time teardown of the shared libraries. The reason is OpenBLAS: it starts its worker threads
// when it is loaded (before main, one per core unless OPENBLAS_NUM_THREADS says otherwise) and its
// library destructor joins them. Under a low address-space limit (ulimit -v) a worker that cannot
// get its 128 MiB buffer retries forever inside blas_memory_alloc, so the join never returns and
// the program hung *after* printing its result (issue 14). snapdoc runs OpenBLAS single-threaded
// inside its own pool, so those workers never hold work of ours; skipping the teardown loses
// nothing: every file is committed explicitly (AtomicFileWriter), stdio and the logs are flushed
// here, and the kernel reclaims memory, maps and threads.
#pragma once

namespace snapdoc {

// Flushes stdout/stderr (every C stream) and the loggers, then ends the process with `code`
// without running atexit handlers or library destructors. Call it after main's own objects are
// destroyed (their destructors may still write output or remove temporary files).
[[noreturn]] void exit_after_flush(int code);

// Ignores SIGXFSZ, whose default action kills the process when a write passes the file-size limit
// (ulimit -f): `ask` died with exit status 153, losing its answer and leaving a temporary file.
// Ignored, the write fails with EFBIG instead, which every writer handles like a full disk
// (AtomicFileWriter: an Error naming the limit, the temporary removed; the K/V cache: a warning).
// Call it first thing in main.
void ignore_file_size_signal();

}  // namespace snapdoc
