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

    DeviceBuffer make(const std::vector<const TensorView*>& parts, kernels::Dt dt, const std::string& what) {
        int64_t total = 0;
        for (const TensorView* t : parts) total += t->numel();
        DeviceBuffer buf(static_cast<std::size_t>(total) * kernels::dt_size(dt), what);
        int64_t at = 0;
        for (const TensorView* t : parts) {
            if (!dtype_row_fits(t->dtype, t->cols()))
                throw Error("tensor " + t->name + ": rows of " + std::to_string(t->cols()) + " values are not whole " +
                            std::string(dtype_name(t->dtype)) + " blocks");
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

int64_t device_weight_bytes(const Model& model, kernels::Dt dt) {
    const auto& w = model.weights;
    const int64_t es = static_cast<int64_t>(kernels::dt_size(dt));
    int64_t bytes = w.tok_embeddings.numel() * es + w.out_norm.numel() * 4;
    if (w.output.data != w.tok_embeddings.data) bytes += w.output.numel() * es;
    for (const LayerWeights& l : w.layers) {
        bytes += (l.attn_norm.numel() + l.ffn_norm.numel()) * 4;
        bytes += (l.wq.numel() + l.wk.numel() + l.wv.numel() + l.wo.numel() + l.w_gate.numel() + l.w_up.numel() +
                  l.w_down.numel()) * es;
    }
    return bytes;
}

DeviceWeights upload_weights(const Model& model, kernels::Dt dt, cudaStream_t stream) {
    const auto& w = model.weights;
    DeviceWeights d;
    d.dt = dt;
    Uploader up(stream);
    const kernels::Dt f32 = kernels::Dt::F32;
    d.tok_embeddings = up.make({&w.tok_embeddings}, dt, "token embeddings");
    d.out_norm = up.make({&w.out_norm}, f32, "output norm");
    if (w.output.data == w.tok_embeddings.data) {
        d.output = d.tok_embeddings.get();
    } else {
        d.output_own = up.make({&w.output}, dt, "output projection");
        d.output = d.output_own.get();
    }
    d.layers.reserve(w.layers.size());
    for (std::size_t i = 0; i < w.layers.size(); ++i) {
        const LayerWeights& l = w.layers[i];
        const std::string what = "layer " + std::to_string(i) + " weights";
        DeviceLayer dl;
        dl.attn_norm = up.make({&l.attn_norm}, f32, what);
        dl.ffn_norm = up.make({&l.ffn_norm}, f32, what);
        dl.wqkv = up.make({&l.wq, &l.wk, &l.wv}, dt, what);
        dl.wo = up.make({&l.wo}, dt, what);
        dl.w_gate_up = up.make({&l.w_gate, &l.w_up}, dt, what);
        dl.w_down = up.make({&l.w_down}, dt, what);
        d.layers.push_back(std::move(dl));
    }
    up.finish();
    return d;
}

}  // namespace snapdoc::cuda
