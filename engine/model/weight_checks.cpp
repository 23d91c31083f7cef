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
    // F32 rows are read as floats, F16/BF16 as uint16. Block types only need 2: their kernels read
    // them with memcpy / unaligned loads, and every GGML block size is even, so with an even base the
    // f16 scales at the start of each block stay 2-aligned for anyone who reads them as uint16.
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

void gather_llama_weights(Model& m, const LlamaTensorNames& n, const TensorLookup& lookup, bool tied,
                          const std::string& source) {
    const ModelConfig& c = m.config;
    const ExpectedShapes shapes = expected_shapes(c);
    auto take = [&](const std::string& name, const std::vector<int64_t>& shape) {
        const std::optional<TensorView> v = lookup(name);
        if (!v) throw FormatError(source + ": missing tensor '" + name + "'");
        check_shape(*v, shape, source);
        return aligned_view(*v, m);
    };
    m.weights.tok_embeddings = take(n.tok_embeddings, shapes.tok_embeddings);
    m.weights.layers.clear();
    for (int l = 0; l < c.n_layers; ++l) {
        const std::string p = n.layer_prefix + std::to_string(l) + ".";
        LayerWeights w;
        w.attn_norm = take(p + n.attn_norm, shapes.norm);
        w.wq = take(p + n.wq, shapes.wq);
        w.wk = take(p + n.wk, shapes.wk);
        w.wv = take(p + n.wv, shapes.wv);
        w.wo = take(p + n.wo, shapes.wo);
        w.ffn_norm = take(p + n.ffn_norm, shapes.norm);
        w.w_gate = take(p + n.w_gate, shapes.w_gate);
        w.w_up = take(p + n.w_up, shapes.w_up);
        w.w_down = take(p + n.w_down, shapes.w_down);
        m.weights.layers.push_back(std::move(w));
    }
    m.weights.out_norm = take(n.out_norm, shapes.norm);
    if (!tied && lookup(n.output)) {
        m.weights.output = take(n.output, shapes.output);
    } else {
        // Tied (declared, or implied by a missing output head): the embedding matrix is the output head.
        m.weights.output = m.weights.tok_embeddings;
        m.config.tied_embeddings = true;
    }
    m.config.weight_dtype = m.weights.layers.front().wq.dtype;
}

}  // namespace snapdoc
