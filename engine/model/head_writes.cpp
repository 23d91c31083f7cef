#include "engine/model/head_writes.h"

#include <algorithm>

#include "engine/model/dtype.h"

namespace snapdoc {

namespace {

// True when every row's bytes for columns [col0, col0 + n) are zero. Stops at the first non-zero
// byte, which for a trained head is in the first row.
bool columns_are_zero(const TensorView& w, int64_t col0, int64_t n) {
    const int block = dtype_block_size(w.dtype);
    if (block < 1 || col0 % block != 0 || n % block != 0) return false;  // shared blocks: cannot tell
    const std::size_t offset = dtype_row_bytes(w.dtype, col0), bytes = dtype_row_bytes(w.dtype, n);
    for (int64_t r = 0; r < w.rows(); ++r) {
        const uint8_t* p = w.row_ptr(r) + offset;
        if (std::any_of(p, p + bytes, [](uint8_t b) { return b != 0; })) return false;
    }
    return true;
}

}  // namespace

std::vector<uint8_t> heads_that_write(const ModelConfig& config, const ModelWeights& weights) {
    const int H = config.n_heads, hd = config.head_dim;
    std::vector<uint8_t> writes(static_cast<std::size_t>(config.n_layers) * H, 1);
    bool any_silent = false;
    for (int l = 0; l < config.n_layers && l < static_cast<int>(weights.layers.size()); ++l) {
        const TensorView& wo = weights.layers[l].wo;
        if (!wo.valid() || wo.cols() != int64_t{H} * hd) continue;
        for (int h = 0; h < H; ++h) {
            if (!columns_are_zero(wo, int64_t{h} * hd, hd)) continue;
            writes[static_cast<std::size_t>(l) * H + h] = 0;
            any_silent = true;
        }
    }
    if (!any_silent) writes.clear();
    return writes;
}

}  // namespace snapdoc
