#include "engine/model/finite_weights.h"

#include <cmath>
#include <vector>

#include "engine/common/error.h"
#include "engine/common/message_text.h"

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

void check_finite_weights(const Model& model, bool include_matrices) {
    for (const TensorView* t : model.unique_weights()) {
        if (!t->valid() || (!include_matrices && t->rows() > 1)) continue;
        // A 1-D block-quantized tensor may be shorter than a block; norms and biases are float.
        if (!include_matrices && dtype_is_quantized(t->dtype)) continue;
        int64_t bad = 0;
        if (!tensor_is_finite(*t, &bad))
            throw FormatError("'" + model.path.string() + "': tensor " + printable_excerpt(t->name) +
                              " holds NaN or Inf (element " + std::to_string(bad) + ")");
    }
}

}  // namespace snapdoc
