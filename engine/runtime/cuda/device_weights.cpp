#include "engine/runtime/cuda/device_weights.h"

#include <algorithm>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "kernels/convert.h"

namespace snapdoc::cuda {

kernels::Dt to_kernel_dt(DType t) {
    switch (t) {
        case DType::F32: return kernels::Dt::F32;
        case DType::F16: return kernels::Dt::F16;
        case DType::BF16: return kernels::Dt::BF16;
        case DType::Q8_0: return kernels::Dt::Q8_0;
        default: break;
    }
    throw Error("weight dtype " + std::string(dtype_name(t)) + " has no CUDA kernel type (it is dequantized on the host)");
}

namespace {

// Copies tensors into device buffers in the target dtype. Tensors already in that dtype are copied
// straight from the mapping; others go through a staging buffer of at most kStageBytes and the
// conversion kernel, so host and device memory stay bounded whatever the model size.
class Uploader {
public:
    explicit Uploader(cudaStream_t stream) : stream_(stream) {}

    // Writes tensor `t` at element offset `at` of `dst` (of type dt).
    void put(const TensorView& t, kernels::Dt dt, void* dst, int64_t at) {
        if (dtype_is_quantized(t.dtype) && t.dtype != DType::Q8_0) {
            put_dequantized(t, dt, dst, at);
            return;
        }
        const kernels::Dt src_dt = to_kernel_dt(t.dtype);
        const int64_t n = t.numel();
        auto* out = static_cast<uint8_t*>(dst) + at * static_cast<int64_t>(kernels::dt_size(dt));
        if (src_dt == dt) {
            check(cudaMemcpyAsync(out, t.data, static_cast<std::size_t>(n) * kernels::dt_size(dt), cudaMemcpyHostToDevice,
                                  stream_),
                  "weight upload");
            return;
        }
        // Elements per staging round: whole Q8_0 blocks, or whole elements otherwise.
        const bool q8 = src_dt == kernels::Dt::Q8_0;
        const int64_t per = q8 ? (kStageBytes / kQ8BlockBytes) * kQ8BlockSize
                               : kStageBytes / static_cast<int64_t>(kernels::dt_size(src_dt));
        stage_.ensure(static_cast<std::size_t>(kStageBytes), "the weight staging buffer");
        const auto* src = static_cast<const uint8_t*>(t.data);
        for (int64_t done = 0; done < n; done += per) {
            const int64_t count = std::min(per, n - done);
            const int64_t src_off = q8 ? done / kQ8BlockSize * kQ8BlockBytes : done * static_cast<int64_t>(kernels::dt_size(src_dt));
            const int64_t src_bytes = q8 ? count / kQ8BlockSize * kQ8BlockBytes : count * static_cast<int64_t>(kernels::dt_size(src_dt));
            check(cudaMemcpyAsync(stage_.get(), src + src_off, static_cast<std::size_t>(src_bytes), cudaMemcpyHostToDevice,
                                  stream_),
                  "weight upload");
            check(kernels::convert(stage_.get(), src_dt, out + done * static_cast<int64_t>(kernels::dt_size(dt)), dt, count,
                                   stream_),
                  "weight conversion");
            check(cudaStreamSynchronize(stream_), "weight conversion");  // the stage is reused next round
        }
    }

    // Block types the device has no decoder for (K-quants, IQ4, Q4_0 ... Q5_1): whole rows are
    // dequantized on the host by dequantize_row (exactly as the CPU backend reads them), a staging
    // buffer at a time, and converted from f32 to the device dtype there.
    void put_dequantized(const TensorView& t, kernels::Dt dt, void* dst, int64_t at) {
        const int64_t cols = t.cols(), rows = t.numel() / cols;
        const int64_t row_f32_bytes = cols * static_cast<int64_t>(sizeof(float));
        const int64_t per_round = std::max<int64_t>(1, kStageBytes / row_f32_bytes);
        const int64_t stage_bytes = std::max(kStageBytes, row_f32_bytes);
        stage_.ensure(static_cast<std::size_t>(stage_bytes), "the weight staging buffer");
        host_.resize(static_cast<std::size_t>(std::min(per_round, rows) * cols));
        auto* out = static_cast<uint8_t*>(dst) + at * static_cast<int64_t>(kernels::dt_size(dt));
        for (int64_t r0 = 0; r0 < rows; r0 += per_round) {
            const int64_t nr = std::min(per_round, rows - r0);
            for (int64_t r = 0; r < nr; ++r) dequantize_row(t.dtype, t.row_ptr(r0 + r), host_.data() + r * cols, cols);
            check(cudaMemcpyAsync(stage_.get(), host_.data(), static_cast<std::size_t>(nr * row_f32_bytes),
                                  cudaMemcpyHostToDevice, stream_),
                  "weight upload");
            check(kernels::convert(stage_.get(), kernels::Dt::F32, out + r0 * cols * static_cast<int64_t>(kernels::dt_size(dt)),
                                   dt, nr * cols, stream_),
                  "weight conversion");
            check(cudaStreamSynchronize(stream_), "weight conversion");  // host_ and the stage are reused
        }
    }

    // A fused matrix. Without block tensors (or with keep_blocks false): one dense part, every tensor
    // converted to dt. Otherwise each run of consecutive tensors of one dtype is a part, block runs
    // copied byte for byte, so Q|K|V of a Q4_K_M file is a Q4_K part (Q, K) and a Q6_K part (V).
    DeviceMatrix make_matrix(const std::vector<const TensorView*>& tensors, kernels::Dt dt, const std::string& what,
                             bool keep_blocks) {
        DeviceMatrix m;
        m.dt = dt;
        m.cols = static_cast<int>(tensors.front()->cols());
        bool blocks = false;
        for (const TensorView* t : tensors) {
            if (t->cols() != m.cols)
                throw Error("tensor " + t->name + ": " + std::to_string(t->cols()) + " columns, unlike the " +
                            std::to_string(m.cols) + " of the tensors it is fused with");
            m.rows += static_cast<int>(t->rows());
            blocks = blocks || (keep_blocks && to_block_type(t->dtype));
        }
        if (!blocks) {
            DeviceMatrixPart p;
            p.rows = m.rows;
            p.data = make(tensors, dt, what);
            m.parts.push_back(std::move(p));
            return m;
        }
        int row0 = 0;
        for (std::size_t i = 0; i < tensors.size();) {
            std::size_t j = i + 1;
            while (j < tensors.size() && tensors[j]->dtype == tensors[i]->dtype) ++j;
            const std::vector<const TensorView*> run(tensors.begin() + static_cast<std::ptrdiff_t>(i),
                                                     tensors.begin() + static_cast<std::ptrdiff_t>(j));
            DeviceMatrixPart p;
            p.row0 = row0;
            for (const TensorView* t : run) p.rows += static_cast<int>(t->rows());
            p.blocks = to_block_type(tensors[i]->dtype);
            p.data = p.blocks ? copy_blocks(run, what) : make(run, dt, what);
            row0 += p.rows;
            m.parts.push_back(std::move(p));
            i = j;
        }
        return m;
    }

    // Tensors of one block type, byte for byte, rows after rows.
    DeviceBuffer copy_blocks(const std::vector<const TensorView*>& run, const std::string& what) {
        std::size_t total = 0;
        for (const TensorView* t : run) {
            check_fits(*t);
            total += static_cast<std::size_t>(t->rows()) * dtype_row_bytes(t->dtype, t->cols());
        }
        DeviceBuffer buf(total, what);
        std::size_t at = 0;
        for (const TensorView* t : run) {
            const std::size_t bytes = static_cast<std::size_t>(t->rows()) * dtype_row_bytes(t->dtype, t->cols());
            check(cudaMemcpyAsync(buf.as<uint8_t>() + at, t->data, bytes, cudaMemcpyHostToDevice, stream_), "weight upload");
            at += bytes;
        }
        return buf;
    }

    static void check_fits(const TensorView& t) {
        if (!dtype_row_fits(t.dtype, t.cols()))
            throw Error("tensor " + t.name + ": rows of " + std::to_string(t.cols()) + " values are not whole " +
                        std::string(dtype_name(t.dtype)) + " blocks");
    }

    DeviceBuffer make(const std::vector<const TensorView*>& parts, kernels::Dt dt, const std::string& what) {
        int64_t total = 0;
        for (const TensorView* t : parts) total += t->numel();
        DeviceBuffer buf(static_cast<std::size_t>(total) * kernels::dt_size(dt), what);
        int64_t at = 0;
        for (const TensorView* t : parts) {
            check_fits(*t);
            put(*t, dt, buf.get(), at);
            at += t->numel();
        }
        return buf;
    }

    void finish() { check(cudaStreamSynchronize(stream_), "weight upload"); }

private:
    static constexpr int64_t kStageBytes = int64_t{64} << 20;
    cudaStream_t stream_;
    DeviceBuffer stage_;
    std::vector<float> host_;  // host rows dequantized for put_dequantized
};

}  // namespace

namespace {
// The matrices upload_weights puts on the device (the tied output once).
std::vector<const TensorView*> matrix_tensors(const Model& model) {
    const auto& w = model.weights;
    std::vector<const TensorView*> all = {&w.tok_embeddings};
    if (w.output.data != w.tok_embeddings.data) all.push_back(&w.output);
    for (const LayerWeights& l : w.layers)
        for (const TensorView* t : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down}) all.push_back(t);
    return all;
}
}  // namespace

int64_t device_weight_bytes(const Model& model, kernels::Dt dt, bool keep_blocks) {
    const auto& w = model.weights;
    int64_t bytes = w.out_norm.numel() * 4;
    for (const LayerWeights& l : w.layers) bytes += (l.attn_norm.numel() + l.ffn_norm.numel()) * 4;
    for (const TensorView* t : matrix_tensors(model)) bytes += device_tensor_bytes(*t, dt, keep_blocks);
    return bytes;
}

bool device_weights_have_blocks(const Model& model, bool keep_blocks) {
    const auto all = matrix_tensors(model);
    return keep_blocks && std::any_of(all.begin(), all.end(), [](const TensorView* t) { return to_block_type(t->dtype).has_value(); });
}

std::string device_weight_formats(const Model& model, kernels::Dt dt, bool keep_blocks) {
    std::vector<DType> block_types;
    bool dense = false;
    for (const TensorView* t : matrix_tensors(model)) {
        if (keep_blocks && to_block_type(t->dtype)) {
            if (std::find(block_types.begin(), block_types.end(), t->dtype) == block_types.end()) block_types.push_back(t->dtype);
        } else {
            dense = true;
        }
    }
    const std::string dense_name = dt == kernels::Dt::F32 ? "F32" : dt == kernels::Dt::F16 ? "F16" : "BF16";
    if (block_types.empty()) return dense_name;
    std::string s;
    for (DType t : block_types) {
        if (!s.empty()) s += '/';
        s += dtype_name(t);
    }
    s += " blocks";
    if (dense) s += " + " + dense_name;
    return s;
}

DeviceWeights upload_weights(const Model& model, kernels::Dt dt, cudaStream_t stream, bool keep_blocks) {
    const auto& w = model.weights;
    DeviceWeights d;
    d.dt = dt;
    Uploader up(stream);
    const kernels::Dt f32 = kernels::Dt::F32;
    d.tok_embeddings = up.make_matrix({&w.tok_embeddings}, dt, "token embeddings", keep_blocks);
    d.out_norm = up.make({&w.out_norm}, f32, "output norm");
    if (w.output.data != w.tok_embeddings.data)  // tied: output() is the embeddings
        d.output_own = up.make_matrix({&w.output}, dt, "output projection", keep_blocks);
    d.layers.reserve(w.layers.size());
    for (std::size_t i = 0; i < w.layers.size(); ++i) {
        const LayerWeights& l = w.layers[i];
        const std::string what = "layer " + std::to_string(i) + " weights";
        DeviceLayer dl;
        dl.attn_norm = up.make({&l.attn_norm}, f32, what);
        dl.ffn_norm = up.make({&l.ffn_norm}, f32, what);
        dl.wqkv = up.make_matrix({&l.wq, &l.wk, &l.wv}, dt, what, keep_blocks);
        dl.wo = up.make_matrix({&l.wo}, dt, what, keep_blocks);
        dl.w_gate_up = up.make_matrix({&l.w_gate, &l.w_up}, dt, what, keep_blocks);
        dl.w_down = up.make_matrix({&l.w_down}, dt, what, keep_blocks);
        d.layers.push_back(std::move(dl));
    }
    up.finish();
    return d;
}

}  // namespace snapdoc::cuda
