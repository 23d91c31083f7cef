// CUDA emulation (tests/cuda_emu): knobs and counters of the emulated device, for tests. The
// defaults come from the environment (read once, at the first runtime call):
//   SNAPDOC_CUDA_EMU_DEVICES=0|1     devices reported (0: as on a machine without a GPU)
//   SNAPDOC_CUDA_EMU_MEMORY_MIB=N    device memory (default 4096 MiB)
//   SNAPDOC_CUDA_EMU_SMS=N           multiprocessors reported (default 16; the attention planner
//                                    splits decode rows over keys when blocks < 2 x SMs)
#pragma once

#include <cstdint>

namespace cuda_emu {

struct DeviceConfig {
    int devices = 1;
    int64_t memory_bytes = int64_t{4096} << 20;
    int sm_count = 16;
};
DeviceConfig device_config();
// Returns false (and changes nothing) when the new memory size is below what is allocated now.
bool set_device_config(const DeviceConfig& c);

// cuBLAS GEMMs issued (cublasGemmEx, cublasSgemm), by input type, and how many asked for
// CUBLAS_COMPUTE_32F: tests check that BF16/F16 weights reach cuBLAS as 16-bit inputs with f32
// accumulation (the tensor-core path on a GPU), not widened to f32 first.
struct CublasStats {
    int64_t gemms = 0, f32_inputs = 0, f16_inputs = 0, bf16_inputs = 0, compute_32f = 0;
};
CublasStats cublas_stats();

struct MemoryStats {
    int64_t allocated = 0, peak = 0, allocations = 0;
};
MemoryStats memory_stats();
void reset_peak_memory();

// Host syncs: the calls that make the host wait for the device (cudaStreamSynchronize,
// cudaDeviceSynchronize, cudaEventSynchronize, the blocking cudaMemcpy and cudaMemcpy2D; an async
// copy into pageable memory is not counted, the backend follows each by a stream sync), and the
// graphs captured (successful cudaStreamEndCapture) and launched: a captured decode step's budget
// of at most one sync per token is checked with them.
struct SyncStats {
    int64_t host_syncs = 0, graph_captures = 0, graph_launches = 0;
};
SyncStats sync_stats();

// Bytes moved by the copy calls, by direction (cudaMemcpy*, also inside graphs), the part of the
// host<->device bytes whose host side was pinned (cudaMallocHost / cudaHostRegister) and went by an
// async call on a non-default stream (what a GPU can overlap with compute), and the event waits
// between streams (cudaStreamWaitEvent): what tests check about transfers.
struct CopyStats {
    int64_t h2d = 0, d2h = 0, d2d = 0;
    int64_t pinned_async = 0;
    int64_t stream_waits = 0;
};
CopyStats copy_stats();
void reset_copy_stats();

}  // namespace cuda_emu
