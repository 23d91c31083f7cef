#include "engine/model/model_summary.h"

#include <cstdio>

namespace snapdoc {

ModelSummary summarize(const Model& model) {
    const ModelConfig& c = model.config;
    ModelSummary s;
    s.parameters = model.parameter_count();
    s.weight_bytes = model.weight_bytes();
    s.kv_bytes_per_token = int64_t{2} * c.n_layers * c.kv_dim() * 4;
    // xn, tmp, q, attn, k, v, gate, up (see the CPU backend's scratch) plus the hidden row itself.
    s.scratch_bytes_per_row = int64_t{4} * (3 * c.dim + 2 * c.q_dim() + 2 * c.kv_dim() + 2 * c.ffn_dim);
    return s;
}

int64_t estimate_run_bytes(const Model& model, int64_t tokens, int chunk_rows) {
    const ModelSummary s = summarize(model);
    return s.weight_bytes + s.kv_bytes_per_token * tokens + s.scratch_bytes_per_row * chunk_rows +
           int64_t{4} * model.config.vocab_size;
}

std::string format_bytes(int64_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
    return buf;
}

}  // namespace snapdoc
