// GGUF -> Model for the families in architecture.h. Metadata keys are prefixed by the architecture
// name ("llama.block_count", "qwen2.block_count"); tensor names, optional parts and the Q/K row
// order (llama: permuted to adjacent pairs; qwen2/qwen3/phi3: NEOX, rotate-half) come from the
// family's description. Rope scaling is read as llama.cpp reads it: rope.scaling.* keys plus the
// per-pair factor tensors (rope_freqs for Llama 3.x, rope_factors_short/long for Phi-3.5).
#include "engine/model/gguf_model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "engine/common/error.h"
#include "engine/model/architecture.h"
#include "engine/model/gguf_file.h"
#include "engine/model/gguf_split.h"
#include "engine/model/gguf_vocab.h"
#include "engine/model/mapped_file.h"
#include "engine/model/special_tokens.h"
#include "engine/model/weight_checks.h"

namespace snapdoc {

namespace {

class GgufConfigReader {
public:
    GgufConfigReader(const GgufFile& g, std::string arch) : g_(g), prefix_(arch + ".") {}

    [[noreturn]] void fail(const std::string& what) const { throw FormatError("GGUF file '" + g_.name() + "': " + what); }

    int to_int(const std::string& key, int64_t v) const {
        if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
            fail("metadata key '" + key + "' value " + std::to_string(v) + " is out of range");
        }
        return static_cast<int>(v);
    }
    int count(const char* name) const { return to_int(prefix_ + name, g_.get_int(prefix_ + name)); }
    std::optional<int> count_opt(const char* name) const {
        const auto v = g_.get_int_opt(prefix_ + name);
        if (!v) return std::nullopt;
        return to_int(prefix_ + name, *v);
    }
    std::optional<float> number_opt(const char* name) const {
        const auto v = g_.get_float_opt(prefix_ + name);
        if (!v) return std::nullopt;
        if (!std::isfinite(*v) || std::fabs(*v) > std::numeric_limits<float>::max()) {
            fail("metadata key '" + prefix_ + name + "' is out of range");
        }
        return static_cast<float>(*v);
    }
    float number(const char* name) const {
        g_.get_float(prefix_ + name);  // throws naming the key when it is missing
        return *number_opt(name);
    }
    std::optional<std::string> string_opt(const char* name) const { return g_.get_string_opt(prefix_ + name); }
    const std::string& prefix() const { return prefix_; }

private:
    const GgufFile& g_;
    std::string prefix_;
};

// YaRN's default attention factor (HF get_mscale with mscale 1; llama.cpp's yarn mscale).
float yarn_default_attention(double factor) { return factor <= 1.0 ? 1.0f : static_cast<float>(0.1 * std::log(factor) + 1.0); }

// LongRoPE's default attention factor (HF _compute_longrope_parameters).
float longrope_default_attention(double factor, int original_context) {
    if (factor <= 1.0) return 1.0f;
    return static_cast<float>(std::sqrt(1.0 + std::log(factor) / std::log(static_cast<double>(original_context))));
}

// An F32/F16 vector tensor of exactly `n` values (rope factor tensors).
std::vector<float> read_factor_tensor(const GgufSet::Tensor& t, int n, const std::string& source) {
    const TensorView v = t.view();
    check_shape(v, {n}, source);
    std::vector<float> out(static_cast<std::size_t>(n));
    dequantize_row(v.dtype, v.data, out.data(), n);
    return out;
}

void read_rope_scaling(const GgufSet& set, const GgufConfigReader& r, const Architecture& arch, ModelConfig& c,
                       std::vector<std::string>& used) {
    const GgufFile& g = set.metadata();
    RopeScaling& s = c.rope_scaling;
    const std::string source = "GGUF file '" + g.name() + "'";
    const std::string type = r.string_opt("rope.scaling.type").value_or("none");
    const auto factor = r.number_opt("rope.scaling.factor");
    // llama.cpp's n_ctx_orig_yarn: this key, else the training context.
    s.original_context = r.count_opt("rope.scaling.original_context_length").value_or(c.context_length);
    // llama.cpp multiplies whatever attention factor it derives by this key (phi3 writes it).
    const auto attn_factor = r.number_opt("rope.scaling.attn_factor");
    if (type == "linear") {
        s.kind = RopeScalingKind::Linear;
        s.factor = factor ? *factor : r.number("rope.scaling.factor");
    } else if (type == "yarn") {
        s.kind = RopeScalingKind::Yarn;
        if (!factor) r.fail("rope scaling type 'yarn' needs " + r.prefix() + "rope.scaling.factor");
        s.factor = *factor;
        s.beta_fast = r.number_opt("rope.scaling.yarn_beta_fast").value_or(s.beta_fast);
        s.beta_slow = r.number_opt("rope.scaling.yarn_beta_slow").value_or(s.beta_slow);
        if (r.number_opt("rope.scaling.yarn_log_multiplier").value_or(0.0f) != 0.0f) {
            r.fail("rope.scaling.yarn_log_multiplier (DeepSeek-style YaRN attention scaling) is not supported");
        }
        s.attention_factor = yarn_default_attention(s.factor) * attn_factor.value_or(1.0f);
    } else if (type == "none") {
        if (const auto old = r.number_opt("rope.scale_linear"); old && *old != 1.0f) {  // older files
            s.kind = RopeScalingKind::Linear;
            s.factor = *old;
        }
    } else {
        r.fail("rope scaling type '" + type + "' is not supported (supported: none, linear, yarn)");
    }

    const int half = c.head_dim / 2;
    const auto factor_tensor = [&](std::string_view name) -> const GgufSet::Tensor* {
        if (name.empty()) return nullptr;
        const GgufSet::Tensor* info = set.find_tensor(name);
        if (info) used.emplace_back(name);
        return info;
    };
    if (const auto* freqs = factor_tensor(arch.gguf.rope_freqs)) {
        s.freq_factors = read_factor_tensor(*freqs, half, source);
        if (s.kind == RopeScalingKind::None) s.kind = RopeScalingKind::Llama3;
    }
    const auto* shorts = factor_tensor(arch.gguf.rope_factors_short);
    const auto* longs = factor_tensor(arch.gguf.rope_factors_long);
    if ((shorts == nullptr) != (longs == nullptr)) {
        r.fail(std::string("has only one of '") + std::string(arch.gguf.rope_factors_short) + "' and '" +
               std::string(arch.gguf.rope_factors_long) + "'; LongRoPE needs both");
    }
    if (shorts != nullptr) {
        if (s.kind != RopeScalingKind::None) r.fail("has LongRoPE factors and rope scaling type '" + type + "'");
        s.kind = RopeScalingKind::LongRope;
        s.freq_factors = read_factor_tensor(*shorts, half, source);
        s.long_freq_factors = read_factor_tensor(*longs, half, source);
        s.factor = static_cast<float>(static_cast<double>(c.context_length) / s.original_context);
        // Converters write the attention factor; without it, the Hugging Face default.
        s.attention_factor = attn_factor ? *attn_factor : longrope_default_attention(s.factor, s.original_context);
    } else if (attn_factor && s.kind != RopeScalingKind::Yarn) {
        s.attention_factor = *attn_factor;
    }
}

void validate_config(const GgufConfigReader& r, const ModelConfig& c) {
    try {
        c.validate();
    } catch (const FormatError& e) {
        r.fail(e.what());
    }
}

// Everything but rope scaling (which may read factor tensors' data): the metadata `g` and the
// tensor infos through `find_tensor` (a set's shards, or the header alone).
ModelConfig read_shape(const GgufFile& g, const Architecture& arch,
                       const std::function<const GgufFile::TensorInfo*(std::string_view)>& find_tensor) {
    const GgufConfigReader r(g, std::string(arch.gguf_name));
    ModelConfig c;
    c.architecture = arch.gguf_name;
    c.name = g.get_string_opt("general.name").value_or("");
    c.n_layers = r.count("block_count");
    c.dim = r.count("embedding_length");
    c.ffn_dim = r.count("feed_forward_length");
    c.n_heads = r.count("attention.head_count");
    c.n_kv_heads = r.count_opt("attention.head_count_kv").value_or(c.n_heads);
    c.norm_eps = r.number("attention.layer_norm_rms_epsilon");
    c.rope_theta = r.number_opt("rope.freq_base").value_or(10000.0f);
    c.context_length = r.count("context_length");
    // Written by converters for models with sliding-window attention; absent (0) for most files.
    if (const auto sw = r.count_opt("attention.sliding_window");
        arch.sliding_window && sw && *sw > 0 && *sw < c.context_length)
        c.sliding_window = *sw;

    // Head size: explicit key_length (models whose heads do not split the hidden size), else dim / heads.
    if (const auto key_len = r.count_opt("attention.key_length")) {
        c.head_dim = *key_len;
        if (const auto value_len = r.count_opt("attention.value_length"); value_len && *value_len != *key_len) {
            r.fail("attention.value_length " + std::to_string(*value_len) + " differs from attention.key_length " +
                   std::to_string(*key_len) + "; snapdoc needs equal key and value sizes");
        }
    } else {
        if (c.n_heads <= 0) r.fail(r.prefix() + "attention.head_count must be positive");
        if (c.dim % c.n_heads != 0) {
            r.fail(r.prefix() + "embedding_length " + std::to_string(c.dim) + " is not divisible by attention.head_count " +
                   std::to_string(c.n_heads));
        }
        c.head_dim = c.dim / c.n_heads;
    }
    if (const auto rot = r.count_opt("rope.dimension_count"); rot && *rot != c.head_dim) {
        r.fail(r.prefix() + "rope.dimension_count " + std::to_string(*rot) + " differs from the head size " +
               std::to_string(c.head_dim) + " (partial rotary embeddings are not supported)");
    }
    if (c.head_dim <= 0 || c.head_dim % 2 != 0) r.fail("head size " + std::to_string(c.head_dim) + " must be positive and even");

    if (const auto vocab = r.count_opt("vocab_size")) {
        c.vocab_size = *vocab;
    } else if (const auto* tokens = g.find("tokenizer.ggml.tokens"); tokens && tokens->type == GgufType::Array) {
        c.vocab_size = r.to_int("tokenizer.ggml.tokens", static_cast<int64_t>(std::min<uint64_t>(tokens->count, 1ull << 40)));
    } else if (const auto* emb = find_tensor(arch.gguf.tok_embeddings); emb && emb->dims.size() == 2) {
        c.vocab_size = r.to_int(std::string(arch.gguf.tok_embeddings),
                                static_cast<int64_t>(std::min<uint64_t>(emb->dims[1], 1ull << 40)));
    } else {
        r.fail("cannot tell the vocabulary size (no " + r.prefix() + "vocab_size, tokenizer.ggml.tokens or token_embd.weight)");
    }

    c.rope_style = arch.gguf_rope_style;
    // Converters write "no such token" as -1, or as 0xFFFFFFFF in a uint32.
    const auto token_id = [&](const char* key, int fallback) {
        const auto v = g.get_int_opt(key);
        if (!v) return fallback;
        if (*v == 0xFFFFFFFFll) return -1;
        return r.to_int(key, *v);
    };
    c.bos_id = token_id("tokenizer.ggml.bos_token_id", c.bos_id);
    c.eos_id = token_id("tokenizer.ggml.eos_token_id", c.eos_id);
    validate_config(r, c);
    return c;
}

ModelConfig read_config(const GgufSet& set, const Architecture& arch, std::vector<std::string>& used) {
    ModelConfig c = read_shape(set.metadata(), arch, [&](std::string_view name) -> const GgufFile::TensorInfo* {
        const GgufSet::Tensor* t = set.find_tensor(name);
        return t ? t->info : nullptr;
    });
    const GgufConfigReader r(set.metadata(), std::string(arch.gguf_name));
    read_rope_scaling(set, r, arch, c, used);
    validate_config(r, c);
    return c;
}

// The architecture named by the metadata, or FormatError naming what is supported.
const Architecture& gguf_architecture(const GgufFile& g, const std::string& source) {
    const std::string arch_name = g.get_string("general.architecture");
    const Architecture* arch = find_gguf_architecture(arch_name);
    if (arch == nullptr) {
        throw FormatError(source + ": architecture '" + arch_name + "' is not supported (supported: " +
                          supported_gguf_architectures() + ")");
    }
    return *arch;
}

}  // namespace

Model load_gguf_model(const std::filesystem::path& file) { return load_gguf_model(MappedFile::open(file)); }

Model load_gguf_model(std::shared_ptr<const MappedFile> file) {
    // A shard of a split model opens its whole set; its metadata are in the first shard.
    const GgufSet set = GgufSet::open(std::move(file));
    const GgufFile& g = set.metadata();
    const std::string source = "GGUF file '" + g.name() + "'";

    const Architecture* arch = &gguf_architecture(g, source);

    Model m;
    m.format = ModelFormat::Gguf;
    m.path = g.mapping()->path();
    std::vector<std::string> used;
    m.config = read_config(set, *arch, used);
    for (const GgufFile& shard : set.shards()) m.mappings.push_back(shard.mapping());
    const ModelConfig& c = m.config;
    gather_weights(
        m, *arch, arch->gguf,
        [&](const std::string& name) -> std::optional<TensorView> {
            const GgufSet::Tensor* t = set.find_tensor(name);
            if (t == nullptr) return std::nullopt;
            used.push_back(name);
            return t->view();
        },
        /*tied=*/false, source);
    warn_unused_tensors(source, set.tensor_names(), used);

    GgufVocab vocab = read_gguf_vocab(g, c.vocab_size);
    m.tokenizer_proto = std::move(vocab.proto);
    m.tokenizer_bpe = std::move(vocab.bpe);
    m.tokenizer_add_bos = vocab.add_bos;
    m.tokenizer_add_eos = vocab.add_eos;
    m.tokenizer_error = std::move(vocab.error);
    m.chat_template = g.get_string_opt("tokenizer.chat_template").value_or("");
    if (auto roles = g.get_string_array_opt("snapdoc.attention.head_roles")) {
        const auto want = static_cast<std::size_t>(c.n_layers) * static_cast<std::size_t>(c.n_heads);
        if (roles->size() != want)
            throw FormatError(source + ": snapdoc.attention.head_roles has " + std::to_string(roles->size()) +
                              " names, expected one per head (" + std::to_string(want) + ")");
        m.head_roles = std::move(*roles);
    }
    m.config.end_of_generation_ids = gguf_end_of_generation_ids(g, m.config);
    return m;
}

ModelConfig read_gguf_shape(const GgufFile& header) {
    const Architecture& arch = gguf_architecture(header, "GGUF file '" + header.name() + "'");
    return read_shape(header, arch, [&](std::string_view name) { return header.find_tensor(name); });
}

}  // namespace snapdoc
