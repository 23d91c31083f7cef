#include "engine/model/model_summary.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "engine/kv/kv_cache.h"

namespace snapdoc {

namespace {

std::vector<TensorTypeShare> type_mix(const Model& model) {
    std::map<DType, TensorTypeShare> by_type;
    std::map<DType, std::set<std::string>> names;
    for (const TensorView* v : model.unique_weights()) {
        TensorTypeShare& s = by_type[v->dtype];
        s.dtype = v->dtype;
        s.parameters += v->numel();
        s.bytes += static_cast<int64_t>(v->nbytes);
        // Row slices are named "<file tensor>[q]" etc.: count the file tensor once.
        names[v->dtype].insert(v->name.substr(0, v->name.find('[')));
    }
    std::vector<TensorTypeShare> out;
    for (auto& [dtype, s] : by_type) {
        s.tensors = static_cast<int>(names[dtype].size());
        out.push_back(s);
    }
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
    return out;
}

}  // namespace

ModelSummary summarize(const Model& model) {
    const ModelConfig& c = model.config;
    ModelSummary s;
    s.parameters = model.parameter_count();
    s.weight_bytes = model.weight_bytes();
    s.kv_bytes_per_token = kv_bytes_per_token(c);
    s.kv_store_bytes_per_token = kv_store_bytes_per_token(c);
    s.scratch_bytes_per_row = scratch_bytes_per_row(c);
    s.type_mix = type_mix(model);
    return s;
}

int64_t kv_bytes_per_token(const ModelConfig& c) { return int64_t{2} * c.n_layers * c.kv_dim() * kKvCacheValueBytes; }

int64_t kv_store_bytes_per_token(const ModelConfig& c) { return int64_t{2} * c.n_layers * c.kv_dim() * 2; }  // FullKvStore keeps f16

int64_t scratch_bytes_per_row(const ModelConfig& c) {
    // xn, tmp, q, attn, k, v, gate, up (see the CPU backend's scratch) plus the hidden row itself.
    return int64_t{4} * (3 * c.dim + 2 * c.q_dim() + 2 * c.kv_dim() + 2 * c.ffn_dim);
}

int64_t prefill_scratch_bytes(const ModelConfig& c, int chunk_rows) {
    return scratch_bytes_per_row(c) * chunk_rows + int64_t{4} * c.vocab_size;
}

std::string format_type_mix(const std::vector<TensorTypeShare>& mix) {
    std::string out;
    for (const TensorTypeShare& s : mix) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s%s %d tensor%s %s (%.2g bpw)", out.empty() ? "" : ", ",
                      std::string(dtype_name(s.dtype)).c_str(), s.tensors, s.tensors == 1 ? "" : "s",
                      format_bytes(s.bytes).c_str(), s.bits_per_weight());
        out += buf;
    }
    return out;
}

std::string format_type_mix_short(const std::vector<TensorTypeShare>& mix) {
    std::string out;
    for (const TensorTypeShare& s : mix) {
        if (!out.empty()) out += ' ';
        out += std::string(dtype_name(s.dtype)) + "\xC3\x97" + std::to_string(s.tensors);  // U+00D7
    }
    return out;
}

MemoryPlan plan_memory(const Model& model, int snapkv_budget, int chunk_rows) {
    const ModelSummary s = summarize(model);
    MemoryPlan p;
    p.weights = s.weight_bytes;
    p.kv_full_per_1k = s.kv_store_bytes_per_token * 1024;
    p.snapkv_budget = snapkv_budget;
    p.kv_at_budget = s.kv_bytes_per_token * snapkv_budget;
    p.kv_at_budget_query_heads = p.kv_at_budget * std::max(1, model.config.group_size());
    p.prefill_chunk_rows = chunk_rows;
    p.scratch = prefill_scratch_bytes(model.config, chunk_rows);
    return p;
}

int64_t estimate_run_bytes(const Model& model, int64_t tokens, int chunk_rows) {
    const ModelSummary s = summarize(model);
    return s.weight_bytes + s.kv_bytes_per_token * tokens + prefill_scratch_bytes(model.config, chunk_rows);
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
