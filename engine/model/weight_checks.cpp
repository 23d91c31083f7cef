#include "engine/model/weight_checks.h"

#include <cstring>
#include <memory>

#include "engine/common/error.h"

namespace snapdoc {

std::string shape_string(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i > 0) s += ", ";
        s += std::to_string(shape[i]);
    }
    return s + "]";
}

void check_shape(const TensorView& v, const std::vector<int64_t>& expected, const std::string& source) {
    if (v.shape != expected) {
        throw FormatError(source + ": tensor '" + v.name + "' has shape " + shape_string(v.shape) + ", expected " +
                          shape_string(expected));
    }
}

TensorView aligned_view(const TensorView& v, Model& model) {
    const std::size_t align = v.dtype == DType::F32 ? alignof(float) : alignof(uint16_t);
    if (reinterpret_cast<std::uintptr_t>(v.data) % align == 0) return v;
    // operator new aligns to at least 16 bytes.
    auto copy = std::make_shared<std::vector<uint8_t>>(v.nbytes);
    if (v.nbytes > 0) std::memcpy(copy->data(), v.data, v.nbytes);
    TensorView out = v;
    out.data = copy->data();
    model.owned_buffers.push_back(std::move(copy));
    return out;
}

ExpectedShapes expected_shapes(const ModelConfig& c) {
    ExpectedShapes s;
    const int64_t dim = c.dim, q = int64_t{c.n_heads} * c.head_dim, kv = int64_t{c.n_kv_heads} * c.head_dim;
    s.tok_embeddings = {c.vocab_size, dim};
    s.norm = {dim};
    s.wq = {q, dim};
    s.wk = {kv, dim};
    s.wv = {kv, dim};
    s.wo = {dim, q};
    s.w_gate = {c.ffn_dim, dim};
    s.w_up = {c.ffn_dim, dim};
    s.w_down = {dim, c.ffn_dim};
    s.output = {c.vocab_size, dim};
    return s;
}

}  // namespace snapdoc
