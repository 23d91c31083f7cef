// Token embedding gather: out[r, :] = table[tokens[r], :] as f32.
#pragma once

#include "kernels/types.h"

namespace snapdoc::kernels {

// `table` [vocab, dim] of type `dt`; `tokens` [n] on the device (ids checked by the caller);
// `out` [n, dim] f32.
cudaError_t embed_rows(const void* table, Dt dt, int dim, const int32_t* tokens, int n, float* out,
                       cudaStream_t stream);

}  // namespace snapdoc::kernels
