// GGUF llama/mistral -> Model. Metadata keys are prefixed by the architecture name
// ("llama.block_count", "mistral.block_count"); the tensor names are the same for both. Q/K weights
// were permuted at conversion so RoPE pairs adjacent dimensions.
#include "engine/model/gguf_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/common/error.h"
#include "engine/model/gguf_file.h"
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

ModelConfig read_config(const GgufFile& g, const std::string& arch) {
    const GgufConfigReader r(g, arch);
    ModelConfig c;
    c.architecture = arch;
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
    if (const auto sw = r.count_opt("attention.sliding_window"); sw && *sw > 0 && *sw < c.context_length)
        c.sliding_window = *sw;

    if (const auto type = r.string_opt("rope.scaling.type")) {
        if (*type == "linear") {
            c.rope_linear_scale = r.number("rope.scaling.factor");
        } else if (*type != "none") {
            r.fail("rope scaling type '" + *type + "' is not supported (supported: linear)");
        }
    } else if (const auto scale = r.number_opt("rope.scale_linear")) {
        c.rope_linear_scale = *scale;  // older files
    }

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

    if (const auto vocab = r.count_opt("vocab_size")) {
        c.vocab_size = *vocab;
    } else if (const auto* tokens = g.find("tokenizer.ggml.tokens"); tokens && tokens->type == GgufType::Array) {
        c.vocab_size = r.to_int("tokenizer.ggml.tokens", static_cast<int64_t>(std::min<uint64_t>(tokens->count, 1ull << 40)));
    } else if (const auto* emb = g.find_tensor("token_embd.weight"); emb && emb->dims.size() == 2) {
        c.vocab_size = r.to_int("token_embd.weight", static_cast<int64_t>(std::min<uint64_t>(emb->dims[1], 1ull << 40)));
    } else {
        r.fail("cannot tell the vocabulary size (no " + r.prefix() + "vocab_size, tokenizer.ggml.tokens or token_embd.weight)");
    }

    c.rope_style = RopeStyle::AdjacentPairs;
    // Converters write "no such token" as -1, or as 0xFFFFFFFF in a uint32.
    const auto token_id = [&](const char* key, int fallback) {
        const auto v = g.get_int_opt(key);
        if (!v) return fallback;
        if (*v == 0xFFFFFFFFll) return -1;
        return r.to_int(key, *v);
    };
    c.bos_id = token_id("tokenizer.ggml.bos_token_id", c.bos_id);
    c.eos_id = token_id("tokenizer.ggml.eos_token_id", c.eos_id);

    try {
        c.validate();
    } catch (const FormatError& e) {
        r.fail(e.what());
    }
    return c;
}

}  // namespace

Model load_gguf_model(const std::filesystem::path& file) { return load_gguf_model(MappedFile::open(file)); }

Model load_gguf_model(std::shared_ptr<const MappedFile> file) {
    const GgufFile g = GgufFile::parse(std::move(file));
    const std::string source = "GGUF file '" + g.name() + "'";

    const std::string arch = g.get_string("general.architecture");
    if (arch != "llama" && arch != "mistral") {
        throw FormatError(source + ": architecture '" + arch + "' is not supported (supported: llama, mistral)");
    }

    Model m;
    m.format = ModelFormat::Gguf;
    m.path = g.mapping()->path();
    m.config = read_config(g, arch);
    m.mappings.push_back(g.mapping());
    const ModelConfig& c = m.config;
    static const LlamaTensorNames kNames = {"token_embd.weight", "blk.", "attn_norm.weight", "attn_q.weight",
                                            "attn_k.weight", "attn_v.weight", "attn_output.weight", "ffn_norm.weight",
                                            "ffn_gate.weight", "ffn_up.weight", "ffn_down.weight",
                                            "output_norm.weight", "output.weight"};
    gather_llama_weights(
        m, kNames,
        [&](const std::string& name) -> std::optional<TensorView> {
            const GgufFile::TensorInfo* info = g.find_tensor(name);
            if (info == nullptr) return std::nullopt;
            return g.tensor_view(*info);
        },
        /*tied=*/false, source);

    GgufVocab vocab = read_gguf_vocab(g, c.vocab_size);
    m.tokenizer_proto = std::move(vocab.proto);
    m.tokenizer_bpe = std::move(vocab.bpe);
    m.tokenizer_add_bos = vocab.add_bos;
    m.tokenizer_add_eos = vocab.add_eos;
    m.tokenizer_error = std::move(vocab.error);
    m.chat_template = g.get_string_opt("tokenizer.chat_template").value_or("");
    m.config.end_of_generation_ids = gguf_end_of_generation_ids(g, m.config);
    return m;
}

}  // namespace snapdoc
