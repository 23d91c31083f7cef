// gemv_quant / dequantize_rows for the 32-value block types: Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, IQ4_NL.
#include "kernels/gemv_quant_impl.cuh"

namespace snapdoc::kernels::quant {

#define SNAPDOC_LEGACY_FORMATS(X) \
    X(Q4_0, FmtQ4_0)              \
    X(Q4_1, FmtQ4_1)              \
    X(Q5_0, FmtQ5_0)              \
    X(Q5_1, FmtQ5_1)              \
    X(Q8_0, FmtQ8_0)              \
    X(IQ4_NL, FmtIq4Nl)

SNAPDOC_DEFINE_QUANT_FAMILY(legacy, SNAPDOC_LEGACY_FORMATS)

}  // namespace snapdoc::kernels::quant
