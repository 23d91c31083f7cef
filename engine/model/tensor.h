// A read-only view of one weight tensor living in a memory-mapped file (or an owned buffer).
// Shapes are row-major, outermost first, like numpy / PyTorch: a linear layer's weight is
// [out_features, in_features]. (GGUF lists dimensions innermost first; readers reverse them.)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/model/dtype.h"

namespace snapdoc {

struct TensorView {
    std::string name;
    DType dtype = DType::F32;
    std::vector<int64_t> shape;
    const void* data = nullptr;
    std::size_t nbytes = 0;

    int64_t numel() const {
        int64_t n = 1;
        for (int64_t d : shape) n *= d;
        return n;
    }
    // For 2-D tensors: rows = shape[0], cols = shape[1]. 1-D tensors are one row.
    int64_t rows() const { return shape.size() >= 2 ? shape[0] : 1; }
    int64_t cols() const { return shape.empty() ? 0 : shape.back(); }
    const uint8_t* row_ptr(int64_t r) const {
        return static_cast<const uint8_t*>(data) + r * dtype_row_bytes(dtype, cols());
    }
    bool valid() const { return data != nullptr; }
};

}  // namespace snapdoc
