#include "engine/model/special_tokens.h"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/common/error.h"
#include "engine/common/json_input.h"
#include "engine/model/gguf_file.h"
#include "engine/model/read_file.h"

namespace snapdoc {

namespace {

using nlohmann::json;

constexpr int64_t kGgufNoToken = 0xFFFFFFFFll;
constexpr int64_t kGgufControlType = 3;  // llama.cpp's LLAMA_TOKEN_TYPE_CONTROL

// Adds `id` after checking it names a token of the vocabulary; `what` names its source for errors.
void add_id(std::vector<int32_t>& ids, int64_t id, int vocab_size, const std::string& what) {
    if (id < 0 || id >= vocab_size)
        throw FormatError(what + " " + std::to_string(id) + " is outside the vocabulary of " +
                          std::to_string(vocab_size));
    ids.push_back(static_cast<int32_t>(id));
}

std::vector<int32_t> sorted_unique(std::vector<int32_t> ids) {
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
}

// A side file of an HF folder as JSON, or null when the file does not exist.
json read_json_opt(const std::filesystem::path& file) {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) return nullptr;
    try {
        json root = parse_json_input(read_small_file(file), "'" + file.string() + "' is ");
        if (!root.is_object()) throw FormatError("'" + file.string() + "' is not a JSON object");
        return root;
    } catch (const json::exception& e) {
        throw FormatError("'" + file.string() + "' is not valid JSON: " + e.what());
    }
}

// "eos_token_id": an int, a list of ints, or null.
void add_json_ids(std::vector<int32_t>& ids, const json& root, const std::filesystem::path& file,
                  int vocab_size) {
    if (!root.is_object()) return;
    const auto it = root.find("eos_token_id");
    if (it == root.end() || it->is_null()) return;
    const std::string what = "'" + file.string() + "': eos_token_id";
    const auto add_one = [&](const json& v) {
        if (!v.is_number_integer()) throw FormatError(what + " must be an integer or a list of integers");
        add_id(ids, v.get<int64_t>(), vocab_size, what);
    };
    if (it->is_array()) {
        for (const json& v : *it) add_one(v);
    } else {
        add_one(*it);
    }
}

}  // namespace

bool is_end_of_turn_name(std::string_view piece) {
    static constexpr std::array<std::string_view, 8> kNames = {
        "<|eot_id|>", "<|eom_id|>",    "<|end_of_text|>", "<|im_end|>",
        "<|end|>",    "<|endoftext|>", "<end_of_turn>",   "<EOT>"};
    return std::find(kNames.begin(), kNames.end(), piece) != kNames.end();
}

std::vector<int32_t> gguf_end_of_generation_ids(const GgufFile& g, const ModelConfig& c) {
    const std::string source = "GGUF file '" + g.name() + "': ";
    std::vector<int32_t> ids;
    for (const char* key :
         {"tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id", "tokenizer.ggml.eom_token_id"}) {
        const auto v = g.get_int_opt(key);
        if (!v || *v == -1 || *v == kGgufNoToken) continue;
        add_id(ids, *v, c.vocab_size, source + key);
    }
    // The named tokens are a bonus: a broken vocabulary is the tokenizer reader's to report (the
    // model still loads without a tokenizer), so it only means no names are found here.
    try {
        const auto tokens = g.get_string_array_opt("tokenizer.ggml.tokens");
        const auto types = g.get_int_array_opt("tokenizer.ggml.token_type");
        if (tokens && types && types->size() == tokens->size()) {
            for (std::size_t i = 0; i < tokens->size() && i < static_cast<std::size_t>(c.vocab_size); ++i)
                if ((*types)[i] == kGgufControlType && is_end_of_turn_name((*tokens)[i]))
                    ids.push_back(static_cast<int32_t>(i));
        }
    } catch (const FormatError&) {
    }
    return sorted_unique(std::move(ids));
}

std::vector<int32_t> hf_end_of_generation_ids(const std::filesystem::path& dir, const ModelConfig& c) {
    std::vector<int32_t> ids;
    if (c.eos_id >= 0) ids.push_back(c.eos_id);
    for (const char* name : {"config.json", "generation_config.json"}) {
        const auto file = dir / name;
        add_json_ids(ids, read_json_opt(file), file, c.vocab_size);
    }
    const auto tc_file = dir / "tokenizer_config.json";
    const json tc = read_json_opt(tc_file);
    if (tc.is_object()) {
        const auto added = tc.find("added_tokens_decoder");
        if (added != tc.end() && added->is_object()) {
            for (const auto& [key, tok] : added->items()) {
                if (!tok.is_object() || !tok.value("special", false)) continue;
                const auto content = tok.find("content");
                if (content == tok.end() || !content->is_string() ||
                    !is_end_of_turn_name(content->get<std::string>()))
                    continue;
                int64_t id = -1;
                try {
                    id = std::stoll(key);
                } catch (const std::exception&) {
                    throw FormatError("'" + tc_file.string() + "': added_tokens_decoder key '" + key +
                                      "' is not a token id");
                }
                // Tokenizers may list added tokens past the embedding rows (padding); those cannot be
                // generated.
                if (id >= 0 && id < c.vocab_size) ids.push_back(static_cast<int32_t>(id));
            }
        }
    }
    return sorted_unique(std::move(ids));
}

bool ends_generation(const ModelConfig& c, int32_t token) {
    return token == c.eos_id ||
           std::binary_search(c.end_of_generation_ids.begin(), c.end_of_generation_ids.end(), token);
}

}  // namespace snapdoc
