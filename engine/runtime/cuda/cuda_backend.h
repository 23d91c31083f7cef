// The CUDA backend: the Backend interface (engine/runtime/backend.h) on one NVIDIA GPU.
//
// Weights live on the GPU in one dtype for the GEMMs (cuBLAS, f32 accumulation): F16 and BF16 files
// stay as they are, and F32 stays F32 for small models (exact, e.g. the test fixtures) or becomes
// BF16 above `keep_f32_max_bytes` (F32 checkpoints are usually BF16-trained, and BF16 keeps f32's
// range). Block-quantized tensors (Q4_0 ... IQ4_XS, Q8_0) stay in their GGUF blocks (a Q4_K_M 8B
// model takes its file size, not 16 GB): decode multiplies from the blocks (kernels/gemv_quant.h),
// prefill dequantizes tiles to F16 for cuBLAS; a forced weight_dtype widens them all on upload
// instead. Activations are f32; the KV cache is f16 (CudaKvCache).
//
// This header needs no CUDA headers. Its functions live in the CUDA module (libsnapdoc-cuda.so,
// built only with the toolkit) and in the programs that link the backend in (the CUDA test suites,
// snapdoc-bench); everything else reaches them through make_backend() in backend_factory.h, which
// loads the module (engine/runtime/cuda_module_loader.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "engine/model/dtype.h"
#include "engine/runtime/backend.h"

namespace snapdoc {

struct CudaBackendOptions {
    int device = 0;
    // Forces the GEMM weight dtype (F32, F16 or BF16; block tensors widened too); unset = the rule above.
    std::optional<DType> weight_dtype;
    int64_t keep_f32_max_bytes = int64_t{1} << 30;
    // A document session's full K/V stay on the GPU when they fit (re-snap uploads nothing); false
    // stages them through pinned host memory even then (device memory as on a smaller card).
    bool keep_full_kv_on_device = true;
};

// Devices visible to the CUDA runtime; 0 when there is none or no usable driver.
int cuda_device_count();
// Why no device can be used ("" when one can): e.g. the driver is missing or too old.
std::string cuda_unavailable_reason();
// "NVIDIA H200, 132 SMs, 139.8 GiB, compute 9.0" for `device` (throws when unavailable).
std::string cuda_device_description(int device = 0);

// The dtype the weights of `model` take on the GPU under `options`.
DType cuda_weight_dtype(const Model& model, const CudaBackendOptions& options = {});

// The first part of `model` the CUDA kernels do not implement yet ("q/k/v projection biases",
// "per-head q/k RMS norms"), or "" when the CUDA backend can run it.
std::string cuda_unsupported_feature(const Model& model);

// Throws Error when the model uses a part the kernels lack (naming it; see above), when no device
// is usable, or (with the numbers) when the weights and scratch would
// not fit in the device's free memory.
std::unique_ptr<Backend> make_cuda_backend(const Model& model, const BackendOptions& options = {});
std::unique_ptr<Backend> make_cuda_backend(const Model& model, const BackendOptions& options,
                                           const CudaBackendOptions& cuda_options);

}  // namespace snapdoc
