// Type conversions on the device: weights at load time (file dtype -> the dtype the GEMMs use) and
// the f32 <-> f16/bf16 copies around the KV cache and the GEMM inputs.
#pragma once

#include "kernels/types.h"

namespace snapdoc::kernels {

// Converts `count` elements from `src` (F32, F16, BF16 or Q8_0 blocks; for Q8_0 count is a
// multiple of 32 and src need not be aligned) to `dst` of dst_dt (F32, F16 or BF16).
// F16/BF16 results are rounded to nearest even.
cudaError_t convert(const void* src, Dt src_dt, void* dst, Dt dst_dt, int64_t count, cudaStream_t stream);

}  // namespace snapdoc::kernels
