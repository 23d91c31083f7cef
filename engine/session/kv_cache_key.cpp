#include "engine/session/kv_cache_key.h"

#include <cstring>

#include "engine/kv/checksum64.h"

namespace snapdoc {

namespace {
void add_float(Checksum64& c, float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    c.update_u64(u);
}
void add_floats(Checksum64& c, const std::vector<float>& v) {
    c.update_u64(v.size());
    c.update(v.data(), v.size() * sizeof(float));
}
}  // namespace

uint64_t tokenizer_identity(const Tokenizer& t) {
    Checksum64 c(3);
    c.update_u64(static_cast<uint64_t>(t.kind()));
    c.update_u64(static_cast<uint64_t>(t.vocab_size()));
    c.update_u64(static_cast<uint64_t>(static_cast<int64_t>(t.bos_id())));
    c.update_u64(static_cast<uint64_t>(static_cast<int64_t>(t.eos_id())));
    c.update_u64(static_cast<uint64_t>(static_cast<int64_t>(t.unk_id())));
    for (int32_t id = 0; id < t.vocab_size(); ++id) {
        c.update_string(t.raw_piece(id));
        c.update_u64(t.is_control(id) ? 1 : 0);
    }
    return c.digest();
}

uint64_t compute_identity(const ModelConfig& m, int run_context_length) {
    Checksum64 c(4);
    c.update_string(m.architecture);
    for (int v :
         {m.n_layers, m.dim, m.n_heads, m.n_kv_heads, m.head_dim, m.ffn_dim, m.vocab_size, m.context_length,
          m.sliding_window, static_cast<int>(m.rope_style), static_cast<int>(m.rope_scaling.kind),
          m.rope_scaling.original_context, m.rope_scaling.yarn_truncate ? 1 : 0, run_context_length})
        c.update_u64(static_cast<uint64_t>(static_cast<int64_t>(v)));
    for (float f : {m.norm_eps, m.rope_theta, m.rope_scaling.factor, m.rope_scaling.beta_fast,
                    m.rope_scaling.beta_slow, m.rope_scaling.attention_factor})
        add_float(c, f);
    add_floats(c, m.rope_scaling.freq_factors);
    add_floats(c, m.rope_scaling.long_freq_factors);
    return c.digest();
}

KvCacheKey make_kv_cache_key(const ModelIdentity& model, uint64_t tokenizer_hash, uint64_t compute_hash,
                             ChatTemplateKind kind, std::string_view system_prompt,
                             std::span<const int32_t> document_tokens) {
    KvCacheKey k;
    k.model = model;
    k.tokenizer_hash = tokenizer_hash;
    k.compute_hash = compute_hash;
    k.tokens_hash =
        checksum64(document_tokens.data(), document_tokens.size_bytes(), 5) ^ document_tokens.size();
    k.system_prompt_hash = checksum64(system_prompt.data(), system_prompt.size(), 6);
    k.template_kind = static_cast<uint32_t>(kind);
    return k;
}

}  // namespace snapdoc
