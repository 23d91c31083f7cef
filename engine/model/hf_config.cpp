#include "engine/model/hf_config.h"

#include <cmath>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/common/json_input.h"
#include "engine/model/architecture.h"
#include "engine/model/read_file.h"

namespace snapdoc {

namespace {

using nlohmann::json;

std::string json_kind(const json& v) {
    if (v.is_number_integer()) return "integer";
    if (v.is_number_float()) return "number";
    return v.type_name();
}

class ConfigReader {
public:
    ConfigReader(const json& root, std::string source) : root_(root), source_(std::move(source)) {}

    [[noreturn]] void fail(const std::string& what) const { throw FormatError(source_ + ": " + what); }

    // The value of a key, or nullptr when it is absent or null (HF writes null for "not set").
    const json* get(const char* key) const {
        auto it = root_.find(key);
        if (it == root_.end() || it->is_null()) return nullptr;
        return &*it;
    }

    int64_t as_int(const char* key, const json& v) const {
        if (v.is_number_unsigned()) {
            if (v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) out_of_range(key);
            return static_cast<int64_t>(v.get<uint64_t>());
        }
        if (v.is_number_integer()) return v.get<int64_t>();
        if (v.is_number_float()) {
            // Some exporters write 4096.0; accept integral values only.
            const double d = v.get<double>();
            if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18) return static_cast<int64_t>(d);
        }
        fail("key '" + std::string(key) + "' must be an integer, not " + json_kind(v) + " (" + v.dump() + ")");
    }

    int to_int(const char* key, int64_t v) const {
        if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) out_of_range(key);
        return static_cast<int>(v);
    }

    int required_int(const char* key) const {
        const json* v = get(key);
        if (v == nullptr) fail("missing required key '" + std::string(key) + "'");
        return to_int(key, as_int(key, *v));
    }

    std::optional<int> optional_int(const char* key) const {
        const json* v = get(key);
        if (v == nullptr) return std::nullopt;
        return to_int(key, as_int(key, *v));
    }

    std::optional<double> optional_number(const char* key) const {
        const json* v = get(key);
        if (v == nullptr) return std::nullopt;
        if (!v->is_number()) fail("key '" + std::string(key) + "' must be a number, not " + json_kind(*v));
        return v->get<double>();
    }

    std::optional<bool> optional_bool(const char* key) const {
        const json* v = get(key);
        if (v == nullptr) return std::nullopt;
        if (!v->is_boolean()) fail("key '" + std::string(key) + "' must be true or false, not " + json_kind(*v));
        return v->get<bool>();
    }

    std::optional<std::string> optional_string(const char* key) const {
        const json* v = get(key);
        if (v == nullptr) return std::nullopt;
        if (!v->is_string()) fail("key '" + std::string(key) + "' must be a string, not " + json_kind(*v));
        return v->get<std::string>();
    }

    std::optional<std::vector<float>> optional_float_array(const char* key) const {
        const json* v = get(key);
        if (v == nullptr) return std::nullopt;
        if (!v->is_array()) fail("key '" + std::string(key) + "' must be a list of numbers, not " + json_kind(*v));
        std::vector<float> out;
        for (const json& x : *v) {
            if (!x.is_number()) fail("key '" + std::string(key) + "' must be a list of numbers");
            out.push_back(static_cast<float>(x.get<double>()));
        }
        return out;
    }

    // bos_token_id / eos_token_id: an int, a list of ints (the first is used) or null (-1: none).
    std::optional<int> token_id(const char* key) const {
        auto it = root_.find(key);
        if (it == root_.end()) return std::nullopt;
        if (it->is_null()) return -1;
        if (it->is_array()) {
            if (it->empty()) return -1;
            return to_int(key, as_int(key, it->front()));
        }
        return to_int(key, as_int(key, *it));
    }

private:
    [[noreturn]] void out_of_range(const char* key) const { fail("key '" + std::string(key) + "' is out of range"); }

    const json& root_;
    std::string source_;
};

float to_float(const ConfigReader& r, const char* key, double v) {
    if (!std::isfinite(v) || std::fabs(v) > std::numeric_limits<float>::max()) r.fail("key '" + std::string(key) + "' is out of range");
    return static_cast<float>(v);
}

// config.json "rope_scaling" (HF modeling_rope_utils.py ROPE_INIT_FUNCTIONS) -> RopeScaling.
void read_rope_scaling(const ConfigReader& r, const json& rs, const std::string& source, ModelConfig& c) {
    if (!rs.is_object()) r.fail("key 'rope_scaling' must be an object or null, not " + json_kind(rs));
    const ConfigReader sr(rs, source + " rope_scaling");
    auto type = sr.optional_string("rope_type");
    if (!type) type = sr.optional_string("type");
    if (!type) r.fail("key 'rope_scaling' has no 'type' (or 'rope_type')");
    RopeScaling& s = c.rope_scaling;
    const auto number = [&](const char* key) -> std::optional<float> {
        const auto v = sr.optional_number(key);
        if (!v) return std::nullopt;
        return to_float(sr, key, *v);
    };
    const auto required = [&](const char* key) {
        const auto v = number(key);
        if (!v) r.fail("rope_scaling of type '" + *type + "' has no '" + key + "'");
        return *v;
    };
    // The pre-extension context: in rope_scaling (Llama 3.1, Qwen2.5), or top-level (Phi-3.5).
    const auto original_context = [&]() -> std::optional<int> {
        if (const auto v = sr.optional_int("original_max_position_embeddings")) return v;
        return r.optional_int("original_max_position_embeddings");
    };
    if (*type == "default") {
        return;
    } else if (*type == "linear") {
        s.kind = RopeScalingKind::Linear;
        s.factor = required("factor");
    } else if (*type == "llama3") {
        s.kind = RopeScalingKind::Llama3;
        s.factor = required("factor");
        const float low = required("low_freq_factor"), high = required("high_freq_factor");
        const auto orig = sr.optional_int("original_max_position_embeddings");
        if (!orig || *orig <= 0) r.fail("rope_scaling of type 'llama3' needs a positive 'original_max_position_embeddings'");
        if (!(high > low) || !(low > 0.0f)) r.fail("rope_scaling of type 'llama3' needs 0 < low_freq_factor < high_freq_factor");
        s.original_context = *orig;
        s.freq_factors = llama3_frequency_factors(c.head_dim, c.rope_theta, s.factor, low, high, *orig);
    } else if (*type == "yarn") {
        s.kind = RopeScalingKind::Yarn;
        s.factor = required("factor");
        // Older transformers fell back to max_position_embeddings when the key is absent.
        s.original_context = original_context().value_or(c.context_length);
        s.beta_fast = number("beta_fast").value_or(s.beta_fast);
        s.beta_slow = number("beta_slow").value_or(s.beta_slow);
        s.yarn_truncate = sr.optional_bool("truncate").value_or(true);
        const auto get_mscale = [](double scale, double mscale) {
            return scale <= 1.0 ? 1.0 : 0.1 * mscale * std::log(scale) + 1.0;
        };
        const auto mscale = number("mscale"), mscale_all_dim = number("mscale_all_dim");
        if (const auto af = number("attention_factor")) {
            s.attention_factor = *af;
        } else if (mscale && mscale_all_dim && *mscale != 0.0f && *mscale_all_dim != 0.0f) {
            s.attention_factor = static_cast<float>(get_mscale(s.factor, *mscale) / get_mscale(s.factor, *mscale_all_dim));
        } else {
            s.attention_factor = static_cast<float>(get_mscale(s.factor, 1.0));
        }
    } else if (*type == "longrope" || *type == "su") {  // "su": the name of Phi-3's first releases
        s.kind = RopeScalingKind::LongRope;
        auto shorts = sr.optional_float_array("short_factor");
        auto longs = sr.optional_float_array("long_factor");
        if (!shorts || !longs) r.fail("rope_scaling of type '" + *type + "' needs 'short_factor' and 'long_factor'");
        s.freq_factors = std::move(*shorts);
        s.long_freq_factors = std::move(*longs);
        const auto orig = original_context();
        if (!orig || *orig <= 0) r.fail("rope_scaling of type '" + *type + "' needs a positive 'original_max_position_embeddings'");
        s.original_context = *orig;
        s.factor = number("factor").value_or(static_cast<float>(static_cast<double>(c.context_length) / *orig));
        if (const auto af = number("attention_factor")) {
            s.attention_factor = *af;
        } else {
            s.attention_factor = s.factor <= 1.0f ? 1.0f
                                                  : static_cast<float>(std::sqrt(1.0 + std::log(static_cast<double>(s.factor)) /
                                                                                           std::log(static_cast<double>(*orig))));
        }
    } else {
        r.fail("rope_scaling type '" + *type + "' is not supported (supported: default, linear, llama3, yarn, longrope)");
    }
}

}  // namespace

HfConfig parse_hf_config(std::string_view json_text, const std::string& source) {
    const json root = parse_json_input(json_text, source + ": ");
    if (!root.is_object()) throw FormatError(source + ": not a JSON object");
    const ConfigReader r(root, source);

    HfConfig out;
    ModelConfig& c = out.config;

    // Architecture: the class name and/or model_type must name a family of architecture.h
    // (model_type decides when both do, as AutoModelForCausalLM does).
    const Architecture* arch = nullptr;
    const json* archs = r.get("architectures");
    const auto model_type = r.optional_string("model_type");
    if (archs == nullptr && !model_type) r.fail("missing key 'architectures' (or 'model_type')");
    if (archs != nullptr) {
        std::vector<std::string> names;
        if (archs->is_string()) {
            names.push_back(archs->get<std::string>());
        } else if (archs->is_array()) {
            for (const json& a : *archs) {
                if (!a.is_string()) r.fail("key 'architectures' must be a list of strings");
                names.push_back(a.get<std::string>());
            }
        } else {
            r.fail("key 'architectures' must be a list of strings, not " + json_kind(*archs));
        }
        for (const auto& n : names)
            if (!arch) arch = find_hf_architecture(n);
        if (!arch) {
            r.fail("architecture '" + (names.empty() ? std::string() : names.front()) + "' is not supported (supported: " +
                   supported_hf_architectures() + ")");
        }
    }
    if (model_type) {
        arch = find_hf_model_type(*model_type);
        if (!arch) {
            std::string types;
            for (const Architecture& a : architectures()) types += (types.empty() ? "" : ", ") + std::string(a.hf_model_type);
            r.fail("model_type '" + *model_type + "' is not supported (supported: " + types + ")");
        }
    }
    out.arch = arch;
    c.architecture = arch->gguf_name;
    c.name = r.optional_string("_name_or_path").value_or("");

    if (const auto act = r.optional_string("hidden_act"); act && *act != "silu") {
        r.fail("hidden_act '" + *act + "' is not supported (supported: silu)");
    }
    // Qwen2's q/k/v biases are part of the family (no key); Llama's / Qwen3's attention_bias also
    // puts a bias on o_proj, which snapdoc does not have.
    if (arch->qkv_bias != Presence::Required && r.optional_bool("attention_bias").value_or(false)) {
        r.fail("attention_bias true is not supported (no bias on the output projection)");
    }
    if (r.optional_bool("mlp_bias").value_or(false)) r.fail("mlp_bias true is not supported (no bias terms)");
    if (r.optional_bool("use_sliding_window").value_or(false)) {
        r.fail("use_sliding_window true is not supported for " + std::string(arch->hf_class));
    }
    if (const auto prf = r.optional_number("partial_rotary_factor"); prf && *prf != 1.0) {
        r.fail("partial_rotary_factor " + std::to_string(*prf) + " is not supported (partial rotary embeddings)");
    }

    c.dim = r.required_int("hidden_size");
    c.ffn_dim = r.required_int("intermediate_size");
    c.n_layers = r.required_int("num_hidden_layers");
    c.n_heads = r.required_int("num_attention_heads");
    c.n_kv_heads = r.optional_int("num_key_value_heads").value_or(c.n_heads);
    c.vocab_size = r.required_int("vocab_size");
    c.context_length = r.required_int("max_position_embeddings");
    const std::pair<const char*, int> positive[] = {
        {"hidden_size", c.dim},           {"intermediate_size", c.ffn_dim},   {"num_hidden_layers", c.n_layers},
        {"num_attention_heads", c.n_heads}, {"num_key_value_heads", c.n_kv_heads}, {"vocab_size", c.vocab_size},
        {"max_position_embeddings", c.context_length}};
    for (const auto& [key, v] : positive) {
        if (v <= 0) r.fail("key '" + std::string(key) + "' must be positive, not " + std::to_string(v));
    }
    if (c.n_heads % c.n_kv_heads != 0) {
        r.fail("num_key_value_heads (" + std::to_string(c.n_kv_heads) + ") does not divide num_attention_heads (" +
               std::to_string(c.n_heads) + ")");
    }
    if (const auto hd = r.optional_int("head_dim")) {
        c.head_dim = *hd;
    } else {
        if (c.dim % c.n_heads != 0) {
            r.fail("hidden_size (" + std::to_string(c.dim) + ") is not divisible by num_attention_heads (" +
                   std::to_string(c.n_heads) + ") and no head_dim is given");
        }
        c.head_dim = c.dim / c.n_heads;
    }
    if (c.head_dim <= 0 || c.head_dim % 2 != 0) {
        r.fail("head dimension " + std::to_string(c.head_dim) + " (head_dim, or hidden_size / num_attention_heads) must be positive and even");
    }

    // HF's LlamaConfig defaults.
    c.norm_eps = to_float(r, "rms_norm_eps", r.optional_number("rms_norm_eps").value_or(1e-6));
    c.rope_theta = to_float(r, "rope_theta", r.optional_number("rope_theta").value_or(10000.0));
    c.tied_embeddings = r.optional_bool("tie_word_embeddings").value_or(false);
    c.rope_style = RopeStyle::RotateHalf;

    // transformers 5 spells rope_theta + rope_scaling as one "rope_parameters" object.
    const json* rs = r.get("rope_scaling");
    const json* rp = r.get("rope_parameters");
    if (rs == nullptr && rp != nullptr && rp->is_object()) {
        rs = rp;
        if (const auto t = ConfigReader(*rp, source).optional_number("rope_theta")) c.rope_theta = to_float(r, "rope_theta", *t);
    }
    if (rs != nullptr) read_rope_scaling(r, *rs, source, c);
    if (const auto bos = r.token_id("bos_token_id")) c.bos_id = *bos;
    if (const auto eos = r.token_id("eos_token_id")) c.eos_id = *eos;
    if (const auto sw = r.optional_int("sliding_window"); arch->sliding_window && sw && *sw > 0 && *sw < c.context_length)
        c.sliding_window = *sw;

    if (auto td = r.optional_string("torch_dtype")) {
        out.torch_dtype = *td;
    } else if (auto d = r.optional_string("dtype")) {  // newer transformers spell it "dtype"
        out.torch_dtype = *d;
    }

    try {
        c.validate();
    } catch (const FormatError& e) {
        throw FormatError(source + ": " + e.what());
    }
    return out;
}

HfConfig load_hf_config(const std::filesystem::path& config_json) {
    return parse_hf_config(read_small_file(config_json, std::size_t{16} << 20), config_json.string());
}

}  // namespace snapdoc
