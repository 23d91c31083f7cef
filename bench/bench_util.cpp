#include "bench/bench_util.h"

#include <algorithm>
#include <random>
#include <utility>

#include "engine/model/gguf_file.h"

namespace snapdoc::bench {

double median(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

std::vector<int32_t> random_ids(int n, int vocab, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<int32_t> ids(n);
    for (auto& x : ids) x = 3 + static_cast<int32_t>(rng() % (vocab - 3));
    return ids;
}

double decode_tps(DocumentSession& session, const Selection& selection, int tokens) {
    GenerationRequest r;
    r.max_new_tokens = tokens;
    r.sampling.temperature = 0;
    r.stop_at_eos = false;
    const auto a = session.answer(selection, r);
    return (a.tokens.size() - 1) / std::max(1e-9, a.decode_seconds);
}

DecodeBytes decode_bytes(const std::string& gguf_path) {
    const GgufFile f = GgufFile::open(gguf_path);
    // Tensor sizes from the data offsets (the next tensor's start, or the end of the file), so
    // types this build cannot compute with are counted too; alignment padding is < 32 bytes each.
    std::vector<std::pair<uint64_t, const GgufFile::TensorInfo*>> by_offset;
    for (const auto& t : f.tensors()) by_offset.emplace_back(t.offset, &t);
    std::sort(by_offset.begin(), by_offset.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const uint64_t data_size = f.mapping()->size() - f.data_offset();
    uint64_t total = 0, embedding = 0;
    bool has_output = false;
    for (std::size_t i = 0; i < by_offset.size(); ++i) {
        const auto* t = by_offset[i].second;
        const uint64_t end = i + 1 < by_offset.size() ? by_offset[i + 1].first : data_size;
        const uint64_t bytes = t->nbytes.value_or(end - t->offset);
        total += bytes;
        if (t->name == "token_embd.weight") embedding = bytes;
        if (t->name == "output.weight") has_output = true;
    }
    DecodeBytes out;
    out.file = f.mapping();
    out.weights = has_output ? total - embedding : total;
    const std::string arch = f.get_string("general.architecture");
    const int64_t layers = f.get_int(arch + ".block_count");
    const int64_t dim = f.get_int(arch + ".embedding_length");
    const int64_t heads = f.get_int(arch + ".attention.head_count");
    const int64_t kv_heads = f.get_int_opt(arch + ".attention.head_count_kv").value_or(heads);
    const int64_t key_len = f.get_int_opt(arch + ".attention.key_length").value_or(dim / heads);
    const int64_t value_len = f.get_int_opt(arch + ".attention.value_length").value_or(dim / heads);
    out.kv_values_per_position = layers * kv_heads * (key_len + value_len);
    return out;
}

}  // namespace snapdoc::bench
