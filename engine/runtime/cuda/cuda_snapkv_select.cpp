#include "engine/runtime/cuda/cuda_snapkv_select.h"

#include <algorithm>
#include <numeric>

#include "engine/common/error.h"
#include "kernels/snapkv.h"

namespace snapdoc::cuda {

namespace {
template <typename T>
void download(std::vector<T>& out, const DeviceBuffer& from, std::size_t offset, std::size_t count, cudaStream_t s) {
    out.resize(count);
    if (count > 0)
        check(cudaMemcpyAsync(out.data(), from.as<T>() + offset, count * sizeof(T), cudaMemcpyDeviceToHost, s),
              "selection download");
}
}  // namespace

void CudaSnapKvSelect::select_layer(const WindowScores& ws, int l, Selection& sel) {
    const SnapKvConfig& config = sel.config;
    if (l < 0 || l >= ws.n_layers || static_cast<int>(sel.layers.size()) != ws.n_layers)
        throw Error("select_layer: layer out of range");
    const int n = ws.n_prefix(), heads = sel.cache_heads;
    const bool per_query = config.gqa == GqaMode::QueryHead;
    auto& out = sel.layers[l];
    out.assign(heads, {});
    if (n <= 0) return;
    const auto cells = static_cast<std::size_t>(heads) * n;
    if (ws.layers[l].size() != static_cast<std::size_t>(ws.n_heads) * n) throw Error("select_layer: scores have the wrong size");

    scores_.ensure(ws.layers[l].size() * 4, "SnapKV window scores");
    pooled_.ensure(cells * 4, "SnapKV pooled scores");
    check(cudaMemcpyAsync(scores_.get(), ws.layers[l].data(), ws.layers[l].size() * 4, cudaMemcpyHostToDevice, stream_),
          "window score upload");
    kernels::SnapPoolArgs pa;
    pa.scores = scores_.as<float>();
    pa.n_heads = ws.n_heads;
    pa.n_prefix = n;
    pa.group = per_query ? 1 : ws.n_heads / ws.n_kv_heads;
    pa.kernel = config.kernel;
    pa.max_pool = config.pooling == Pooling::Max;
    pa.pooled = pooled_.as<float>();
    check(kernels::snapkv_pool(pa, stream_), "snapkv_pool kernel");

    // Per head: its top `k` positions into kept_ [heads, k].
    const auto top_k = [&](const DeviceBuffer& values, int rows, int row_len, int k, DeviceBuffer& into) {
        into.ensure(static_cast<std::size_t>(rows) * k * 4, "SnapKV kept positions");
        check(kernels::top_k_rows(values.as<float>(), rows, row_len, k, into.as<int32_t>(), stream_), "top_k kernel");
    };
    std::vector<int32_t> kept, global;
    int k = 0;  // per-head count in kept_
    int rest = 0;
    if (sel.compressed) {
        if (config.policy == BudgetPolicy::Adaptive) {
            // AdaKV (as adaptive_split): each head's top `floor`, then one top-k over every head's
            // remaining scores (the taken ones masked to -inf) for the rest of the layer's total.
            const int base = config.budget - config.window;
            const int floor = std::clamp(static_cast<int>(config.adaptive_floor * base), 0, n);
            const int64_t total = std::clamp<int64_t>(static_cast<int64_t>(base) * heads, static_cast<int64_t>(floor) * heads,
                                                      static_cast<int64_t>(n) * heads);
            k = floor;
            rest = static_cast<int>(total - static_cast<int64_t>(floor) * heads);
            if (k > 0) top_k(pooled_, heads, n, k, kept_);
            if (rest > 0) {
                masked_.ensure(cells * 4, "SnapKV masked scores");
                check(kernels::mask_taken(pooled_.as<float>(), heads, n, kept_.as<int32_t>(), k, masked_.as<float>(), stream_),
                      "mask kernel");
                if (cells > static_cast<std::size_t>(INT32_MAX)) throw Error("AdaKV on the device: too many scores in one layer");
                top_k(masked_, 1, static_cast<int>(cells), rest, global_);
            }
        } else {
            k = layer_prefix_budgets(config, ws.n_layers, n)[l];
            if (k > 0) top_k(pooled_, heads, n, k, kept_);
        }
    }
    std::vector<float> pooled;
    download(pooled, pooled_, 0, cells, stream_);
    if (k > 0) download(kept, kept_, 0, static_cast<std::size_t>(heads) * k, stream_);
    if (rest > 0) download(global, global_, 0, static_cast<std::size_t>(rest), stream_);
    check(cudaStreamSynchronize(stream_), "SnapKV selection");

    for (int c = 0; c < heads; ++c) {
        HeadSelection& h = out[c];
        h.pooled.assign(pooled.begin() + static_cast<std::ptrdiff_t>(c) * n, pooled.begin() + static_cast<std::ptrdiff_t>(c + 1) * n);
        if (!sel.compressed) {
            h.kept.resize(n);
            std::iota(h.kept.begin(), h.kept.end(), 0);
            continue;
        }
        h.kept.assign(kept.begin() + static_cast<std::ptrdiff_t>(c) * k, kept.begin() + static_cast<std::ptrdiff_t>(c + 1) * k);
    }
    // The global picks come back as ascending flat indices (head-major): split them by head.
    for (const int32_t flat : global) out[flat / n].kept.push_back(flat % n);
    if (!global.empty())
        for (auto& h : out) std::sort(h.kept.begin(), h.kept.end());
}

}  // namespace snapdoc::cuda
