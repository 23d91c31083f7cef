// gemv_quant / dequantize_rows for the 256-value super-block types: Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS.
#include "kernels/gemv_quant_impl.cuh"

namespace snapdoc::kernels::quant {

#define SNAPDOC_K_FORMATS(X) \
    X(Q2_K, FmtQ2_K)         \
    X(Q3_K, FmtQ3_K)         \
    X(Q4_K, FmtQ4_K)         \
    X(Q5_K, FmtQ5_K)         \
    X(Q6_K, FmtQ6_K)         \
    X(IQ4_XS, FmtIq4Xs)

SNAPDOC_DEFINE_QUANT_FAMILY(k, SNAPDOC_K_FORMATS)

}  // namespace snapdoc::kernels::quant
