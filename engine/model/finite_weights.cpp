#include "engine/model/finite_weights.h"

#include <cmath>
#include <vector>

#include "engine/common/error.h"
#include "engine/common/message_text.h"
#include "engine/model/quant/block_formats.h"

namespace snapdoc {

bool tensor_is_finite(const TensorView& t, int64_t* bad_index) {
    if (!t.valid()) return true;
    const int64_t cols = t.cols();
    std::vector<float> row(static_cast<std::size_t>(cols));
    for (int64_t r = 0; r < t.rows(); ++r) {
        dequantize_row(t.dtype, t.row_ptr(r), row.data(), cols);
        for (int64_t c = 0; c < cols; ++c) {
            if (!std::isfinite(row[static_cast<std::size_t>(c)])) {
                if (bad_index) *bad_index = r * cols + c;
                return false;
            }
        }
    }
    return true;
}

namespace {

// Byte offsets of a block type's f16 scales inside its block (block_formats.h); {-1, -1} for none.
struct ScaleOffsets {
    int first, second;
};
ScaleOffsets scale_offsets(DType t) {
    using namespace quant;
    switch (t) {
        case DType::Q4_0:
        case DType::Q5_0:
        case DType::Q8_0:
        case DType::IQ4_NL:
        case DType::IQ4_XS: return {0, -1};
        case DType::Q4_1:
        case DType::Q5_1: return {0, 2};  // d, m
        case DType::Q2_K: return {q2k::kD, q2k::kDmin};
        case DType::Q3_K: return {q3k::kD, -1};
        case DType::Q4_K: return {q4k::kD, q4k::kDmin};
        case DType::Q5_K: return {q5k::kD, q5k::kDmin};
        case DType::Q6_K: return {q6k::kD, -1};
        default: return {-1, -1};
    }
}

bool f16_is_finite(const uint8_t* p) {
    return (quant::load_u16(p) & 0x7c00u) != 0x7c00u;
}

}  // namespace

int64_t first_non_finite_block_scale(const TensorView& t) {
    const ScaleOffsets at = scale_offsets(t.dtype);
    if (!t.valid() || at.first < 0) return -1;
    const auto block_bytes = static_cast<std::size_t>(dtype_block_bytes(t.dtype));
    const std::size_t blocks = t.nbytes / block_bytes;
    const auto* p = static_cast<const uint8_t*>(t.data);
    for (std::size_t b = 0; b < blocks; ++b, p += block_bytes)
        if (!f16_is_finite(p + at.first) || (at.second >= 0 && !f16_is_finite(p + at.second)))
            return static_cast<int64_t>(b);
    return -1;
}

void check_finite_weights(const Model& model, bool include_matrices) {
    for (const TensorView* t : model.unique_weights()) {
        if (!t->valid()) continue;
        if (dtype_is_quantized(t->dtype)) {
            if (const int64_t b = first_non_finite_block_scale(*t); b >= 0)
                throw FormatError("'" + model.path.string() + "': tensor " + printable_excerpt(t->name) + " (" +
                                  std::string(dtype_name(t->dtype)) + ") has a NaN or Inf scale in block " +
                                  std::to_string(b) + " (values " + std::to_string(b * dtype_block_size(t->dtype)) +
                                  "..)");
        }
        if (!include_matrices && (t->rows() > 1 || dtype_is_quantized(t->dtype))) continue;
        int64_t bad = 0;
        if (!tensor_is_finite(*t, &bad))
            throw FormatError("'" + model.path.string() + "': tensor " + printable_excerpt(t->name) +
                              " holds NaN or Inf (element " + std::to_string(bad) + ")");
    }
}

}  // namespace snapdoc
