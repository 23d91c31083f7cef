#include "tests/support/kv_file_sample.h"

#include <random>

#include "engine/kv/checksum64.h"

namespace snapdoc::testing {

KvFileSample::KvFileSample(const std::filesystem::path& spill_dir, KvFileShape s, uint32_t seed) : shape(s) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> n(0.0f, 2.0f);
    store = std::make_unique<FullKvStore>(shape.n_layers, shape.n_kv_heads, shape.head_dim, shape.tokens,
                                          int64_t{1} << 30, spill_dir);
    std::vector<float> k(static_cast<std::size_t>(shape.tokens) * shape.head_dim), v(k.size());
    for (int l = 0; l < shape.n_layers; ++l)
        for (int h = 0; h < shape.n_kv_heads; ++h) {
            for (auto& x : k) x = n(rng);
            for (auto& x : v) x = n(rng);
            store->store_rows(l, h, 0, shape.tokens, k.data(), v.data());
        }
    tail_q.assign(shape.n_layers,
                  std::vector<float>(static_cast<std::size_t>(shape.tail_rows) * shape.q_dim));
    for (auto& layer : tail_q)
        for (auto& x : layer) x = n(rng);
    for (int i = 0; i < shape.tokens; ++i) tokens.push_back(static_cast<int32_t>(rng() % 1000));
    key.model = {123456, 0xabcdef};
    key.tokenizer_hash = 1;
    key.compute_hash = 2;
    key.tokens_hash = checksum64(tokens.data(), tokens.size() * 4);
    key.system_prompt_hash = 3;
    key.template_kind = 4;
}

}  // namespace snapdoc::testing
