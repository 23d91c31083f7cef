#include "engine/model/weight_checks.h"

#include <cassert>
#include <cstring>
#include <memory>
#include <unordered_set>

#include <spdlog/spdlog.h>

#include "engine/common/error.h"
#include "engine/common/message_text.h"

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
    // F32 rows are read as floats, F16/BF16 as uint16. Block types only need 2: their kernels read
    // them with memcpy / unaligned loads, and every GGML block size is even, so with an even base the
    // f16 scales at the start of each block stay 2-aligned for anyone who reads them as uint16.
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
    s.bq = {q};
    s.bkv = {kv};
    s.head_norm = {c.head_dim};
    s.wqkv = {q + 2 * kv, dim};
    s.wo = {dim, q};
    s.w_gate = {c.ffn_dim, dim};
    s.w_up = {c.ffn_dim, dim};
    s.w_gate_up = {2 * int64_t{c.ffn_dim}, dim};
    s.w_down = {dim, c.ffn_dim};
    s.output = {c.vocab_size, dim};
    return s;
}

TensorView row_slice(const TensorView& v, int64_t row0, int64_t rows, std::string name) {
    assert(v.shape.size() == 2 && row0 >= 0 && row0 + rows <= v.rows());
    TensorView out = v;
    out.name = std::move(name);
    out.shape = {rows, v.cols()};
    out.data = v.row_ptr(row0);
    out.nbytes = static_cast<std::size_t>(rows) * dtype_row_bytes(v.dtype, v.cols());
    return out;
}

void gather_weights(Model& m, const Architecture& arch, const TensorNames& n, const TensorLookup& lookup, bool tied,
                    const std::string& source) {
    const ModelConfig& c = m.config;
    const ExpectedShapes shapes = expected_shapes(c);
    const auto take = [&](const std::string& name, const std::vector<int64_t>& shape) {
        const std::optional<TensorView> v = lookup(name);
        if (!v) throw FormatError(source + ": missing tensor '" + name + "'");
        check_shape(*v, shape, source);
        return aligned_view(*v, m);
    };
    const auto take_opt = [&](const std::string& name, const std::vector<int64_t>& shape) {
        return lookup(name) ? take(name, shape) : TensorView{};
    };
    const int64_t q_rows = shapes.wq[0], kv_rows = shapes.wk[0], ffn = c.ffn_dim;

    m.weights.tok_embeddings = take(std::string(n.tok_embeddings), shapes.tok_embeddings);
    m.weights.layers.clear();
    for (int l = 0; l < c.n_layers; ++l) {
        const std::string p = std::string(n.layer_prefix) + std::to_string(l) + ".";
        const auto name = [&](std::string_view suffix) { return p + std::string(suffix); };
        LayerWeights w;
        w.attn_norm = take(name(n.attn_norm), shapes.norm);
        if (arch.fused_qkv) {
            const TensorView qkv = take(name(n.wqkv), shapes.wqkv);
            w.wq = row_slice(qkv, 0, q_rows, qkv.name + "[q]");
            w.wk = row_slice(qkv, q_rows, kv_rows, qkv.name + "[k]");
            w.wv = row_slice(qkv, q_rows + kv_rows, kv_rows, qkv.name + "[v]");
        } else {
            w.wq = take(name(n.wq), shapes.wq);
            w.wk = take(name(n.wk), shapes.wk);
            w.wv = take(name(n.wv), shapes.wv);
        }
        if (arch.qkv_bias == Presence::Required) {
            w.bq = take(name(n.bq), shapes.bq);
            w.bk = take(name(n.bk), shapes.bkv);
            w.bv = take(name(n.bv), shapes.bkv);
        } else if (arch.qkv_bias == Presence::Optional) {
            w.bq = take_opt(name(n.bq), shapes.bq);
            w.bk = take_opt(name(n.bk), shapes.bkv);
            w.bv = take_opt(name(n.bv), shapes.bkv);
            if (w.bq.valid() != w.bk.valid() || w.bq.valid() != w.bv.valid()) {
                throw FormatError(source + ": layer " + std::to_string(l) +
                                  " has biases on some of the q/k/v projections but not all");
            }
        }
        if (arch.qk_norm) {
            w.q_norm = take(name(n.q_norm), shapes.head_norm);
            w.k_norm = take(name(n.k_norm), shapes.head_norm);
        }
        w.wo = take(name(n.wo), shapes.wo);
        w.ffn_norm = take(name(n.ffn_norm), shapes.norm);
        if (arch.fused_gate_up) {
            const TensorView gate_up = take(name(n.w_gate_up), shapes.w_gate_up);
            w.w_gate = row_slice(gate_up, 0, ffn, gate_up.name + "[gate]");
            w.w_up = row_slice(gate_up, ffn, ffn, gate_up.name + "[up]");
        } else {
            w.w_gate = take(name(n.w_gate), shapes.w_gate);
            w.w_up = take(name(n.w_up), shapes.w_up);
        }
        w.w_down = take(name(n.w_down), shapes.w_down);
        m.weights.layers.push_back(std::move(w));
    }
    m.weights.out_norm = take(std::string(n.out_norm), shapes.norm);
    if (!tied && lookup(std::string(n.output))) {
        m.weights.output = take(std::string(n.output), shapes.output);
    } else {
        // Tied (declared, or implied by a missing output head): the embedding matrix is the output head.
        m.weights.output = m.weights.tok_embeddings;
        m.config.tied_embeddings = true;
    }
    m.config.weight_dtype = m.weights.layers.front().wq.dtype;
}

void warn_unused_tensors(const std::string& source, const std::vector<std::string>& file_tensors,
                         const std::vector<std::string>& used) {
    const std::unordered_set<std::string> seen(used.begin(), used.end());
    std::string unused;
    int count = 0;
    for (const std::string& t : file_tensors) {
        if (seen.count(t)) continue;
        if (++count <= 5) unused += (unused.empty() ? "" : ", ") + printable_excerpt(t);  // names are file bytes
    }
    if (count > 0) {
        spdlog::warn("{}: {} tensor(s) not used by snapdoc: {}{}", source, count, unused, count > 5 ? ", ..." : "");
    }
}

}  // namespace snapdoc
