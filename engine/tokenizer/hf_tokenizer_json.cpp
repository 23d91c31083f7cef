#include "engine/tokenizer/hf_tokenizer_json.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "engine/common/error.h"
#include "engine/common/json_input.h"
#include "engine/tokenizer/spm_proto.h"

namespace snapdoc {
namespace {

using nlohmann::json;

constexpr std::string_view kSpace = "\xE2\x96\x81";  // U+2581
// HF's ByteLevel pre-tokenizer regex (use_regex: true), GPT-2's.
constexpr const char* kByteLevelRegex =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

[[noreturn]] void fail(const std::string& what) {
    throw FormatError("tokenizer.json: " + what);
}

const json* member(const json& j, const char* key) {
    if (!j.is_object()) return nullptr;
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
}

std::string string_member(const json& j, const char* key, const std::string& fallback = "") {
    const json* v = member(j, key);
    if (!v) return fallback;
    if (!v->is_string()) fail(std::string("'") + key + "' must be a string");
    return v->get<std::string>();
}

bool bool_member(const json& j, const char* key, bool fallback) {
    const json* v = member(j, key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(std::string("'") + key + "' must be true or false");
    return v->get<bool>();
}

// The components of a pre_tokenizer / normalizer / decoder, with Sequence flattened.
std::vector<const json*> flatten(const json* node, const char* list_key) {
    std::vector<const json*> out;
    if (!node) return out;
    if (!node->is_object()) fail("a pre_tokenizer/normalizer must be an object");
    if (string_member(*node, "type") == "Sequence") {
        const json* items = member(*node, list_key);
        if (!items || !items->is_array()) fail(std::string("a Sequence needs a '") + list_key + "' list");
        for (const json& item : *items) {
            auto sub = flatten(&item, list_key);
            out.insert(out.end(), sub.begin(), sub.end());
        }
    } else {
        out.push_back(node);
    }
    return out;
}

// PCRE2 spelling of a tokenizer.json regex: llama.cpp's explicit contractions instead of "(?i:...)"
// (see pretokenizer.cpp); everything else in these patterns means the same in both engines.
std::string to_pcre2(std::string re) {
    const std::string caseless = "(?i:'s|'t|'re|'ve|'m|'ll|'d)";
    const std::string spelled = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])";
    for (std::size_t at; (at = re.find(caseless)) != std::string::npos;)
        re.replace(at, caseless.size(), spelled);
    return re;
}

std::string quote_literal(const std::string& s) {
    std::string out = "\\Q";
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s.compare(i, 2, "\\E") == 0) {
            out += "\\E\\\\E\\Q";
            ++i;
        } else {
            out += s[i];
        }
    }
    return out + "\\E";
}

struct Added {
    int32_t id;
    std::string content;
    bool special;
};

std::vector<Added> read_added_tokens(const json& root) {
    std::vector<Added> out;
    const json* list = member(root, "added_tokens");
    if (!list) return out;
    if (!list->is_array()) fail("'added_tokens' must be a list");
    for (const json& t : *list) {
        const json* id = member(t, "id");
        if (!id || !id->is_number_integer() || id->get<int64_t>() < 0 || id->get<int64_t>() > (1 << 30))
            fail("an added token has no valid 'id'");
        const std::string content = string_member(t, "content");
        if (content.empty()) fail("added token " + std::to_string(id->get<int64_t>()) + " has no 'content'");
        out.push_back({static_cast<int32_t>(id->get<int64_t>()), content, bool_member(t, "special", false)});
    }
    return out;
}

// Merges as pairs: "a b" strings (split at the first space after the first character, as llama.cpp
// and tokenizers do) or ["a", "b"] lists (tokenizers >= 0.20).
std::vector<std::pair<std::string, std::string>> read_merges(const json& model) {
    std::vector<std::pair<std::string, std::string>> out;
    const json* merges = member(model, "merges");
    if (!merges) return out;
    if (!merges->is_array()) fail("model 'merges' must be a list");
    out.reserve(merges->size());
    for (const json& m : *merges) {
        if (m.is_string()) {
            const std::string& s = m.get_ref<const std::string&>();
            const std::size_t sp = s.find(' ', 1);
            if (sp == std::string::npos || sp + 1 >= s.size())
                fail("merge " + std::to_string(out.size()) + " '" + s + "' is not 'left right'");
            out.emplace_back(s.substr(0, sp), s.substr(sp + 1));
        } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
            out.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
        } else {
            fail("merge " + std::to_string(out.size()) + " is neither \"left right\" nor [left, right]");
        }
    }
    return out;
}

// Tokens by id: the model's vocab plus the added tokens. Ids nobody names become unused
// placeholders (HF allows gaps; real files have none).
std::vector<std::string> read_tokens(const json& model, const std::vector<Added>& added,
                                     std::vector<int32_t>& types) {
    const json* vocab = member(model, "vocab");
    if (!vocab || !vocab->is_object()) fail("model 'vocab' must be an object of token -> id");
    int64_t max_id = -1;
    for (const auto& [text, id] : vocab->items()) {
        if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > (1 << 30))
            fail("vocab token '" + text + "' has no valid id");
        max_id = std::max(max_id, id.get<int64_t>());
    }
    for (const Added& a : added) max_id = std::max<int64_t>(max_id, a.id);
    if (max_id < 0) fail("the vocabulary is empty");
    // Gaps are allowed, but not ids far beyond the tokens there are (they would only allocate).
    const auto named = static_cast<int64_t>(vocab->size() + added.size());
    if (max_id >= 2 * named + 1024)
        fail("token ids go up to " + std::to_string(max_id) + " for " + std::to_string(named) + " tokens");
    std::vector<std::string> tokens(static_cast<std::size_t>(max_id + 1));
    types.assign(tokens.size(), static_cast<int32_t>(GgufTokenType::Normal));
    for (const auto& [text, id] : vocab->items()) {
        std::string& slot = tokens[static_cast<std::size_t>(id.get<int64_t>())];
        if (!slot.empty())
            fail("tokens '" + slot + "' and '" + text + "' have the same id " +
                 std::to_string(id.get<int64_t>()));
        slot = text;
    }
    for (const Added& a : added) {
        std::string& slot = tokens[static_cast<std::size_t>(a.id)];
        if (!slot.empty() && slot != a.content)
            fail("added token '" + a.content + "' has the id " + std::to_string(a.id) + " of vocab token '" +
                 slot + "'");
        slot = a.content;
        types[static_cast<std::size_t>(a.id)] =
            static_cast<int32_t>(a.special ? GgufTokenType::Control : GgufTokenType::UserDefined);
    }
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i].empty()) {
            tokens[i] = "[UNUSED_" + std::to_string(i) + "]";
            types[i] = static_cast<int32_t>(GgufTokenType::Unused);
        }
    }
    return tokens;
}

// The special token text a tokenizer_config.json entry names ("<s>" or {"content": "<s>"}).
std::string config_token(const json& config, const char* key) {
    const json* v = member(config, key);
    if (!v) return "";
    if (v->is_string()) return v->get<std::string>();
    if (v->is_object()) return string_member(*v, "content");
    return "";
}

struct Specials {
    std::string bos, eos, unk;
    std::optional<bool> add_bos, add_eos;
};

// BOS/EOS adding from the post-processor ("TemplateProcessing" single = [BOS?, $A, EOS?]) and
// names from tokenizer_config.json, which wins where it says something.
Specials read_specials(const json& root, const json& config) {
    Specials s;
    if (const json* pp = member(root, "post_processor")) {
        for (const json* step : flatten(pp, "processors")) {
            if (string_member(*step, "type") != "TemplateProcessing") continue;
            const json* single = member(*step, "single");
            if (!single || !single->is_array() || single->empty()) continue;
            auto special_id = [](const json& item) -> std::string {
                const json* st = member(item, "SpecialToken");
                return st ? string_member(*st, "id") : "";
            };
            const std::string first = special_id(single->front()), last = special_id(single->back());
            s.add_bos = !first.empty();
            s.add_eos = single->size() > 1 && !last.empty();
            if (!first.empty()) s.bos = first;
            if (single->size() > 1 && !last.empty()) s.eos = last;
        }
    }
    if (config.is_object()) {
        if (const std::string b = config_token(config, "bos_token"); !b.empty()) s.bos = b;
        if (const std::string e = config_token(config, "eos_token"); !e.empty()) s.eos = e;
        s.unk = config_token(config, "unk_token");
        if (const json* v = member(config, "add_bos_token"); v && v->is_boolean()) s.add_bos = v->get<bool>();
        if (const json* v = member(config, "add_eos_token"); v && v->is_boolean()) s.add_eos = v->get<bool>();
    }
    return s;
}

int32_t id_of(const std::vector<std::string>& tokens, const std::string& text) {
    if (text.empty()) return -1;
    const auto it = std::find(tokens.begin(), tokens.end(), text);
    return it == tokens.end() ? -1 : static_cast<int32_t>(it - tokens.begin());
}

HfTokenizerJson byte_level(const json& model, std::vector<const json*> pre, const std::vector<Added>& added,
                           const Specials& specials) {
    auto v = std::make_shared<BpeVocab>();
    for (const json* step : pre) {
        const std::string type = string_member(*step, "type");
        if (type == "Split") {
            const json* pattern = member(*step, "pattern");
            if (!pattern || !pattern->is_object()) fail("a Split pre-tokenizer needs a 'pattern'");
            const std::string behavior = string_member(*step, "behavior", "Isolated");
            if (behavior != "Isolated" || bool_member(*step, "invert", false))
                fail("Split behaviour '" + behavior +
                     "' (or invert) is not supported; snapdoc supports Isolated");
            if (const json* re = member(*pattern, "Regex")) {
                if (!re->is_string()) fail("a Split 'Regex' must be a string");
                v->regexes.push_back(to_pcre2(re->get<std::string>()));
            } else {
                v->regexes.push_back(quote_literal(string_member(*pattern, "String")));
            }
        } else if (type == "ByteLevel") {
            if (bool_member(*step, "add_prefix_space", false))
                fail("ByteLevel add_prefix_space is not supported");
            if (bool_member(*step, "use_regex", true)) v->regexes.push_back(kByteLevelRegex);
        } else {
            fail("pre-tokenizer '" + type + "' is not supported with byte-level BPE");
        }
    }
    v->tokens = read_tokens(model, added, v->types);
    v->merges = read_merges(model);
    v->pre = "tokenizer.json";
    v->ignore_merges = bool_member(model, "ignore_merges", false);
    v->bos_id = id_of(v->tokens, specials.bos);
    v->eos_id = id_of(v->tokens, specials.eos);
    v->unk_id = id_of(v->tokens, string_member(model, "unk_token"));
    // The unknown token stands in for text the vocabulary cannot spell, so encoding emits it: it is
    // typed unknown (as the SentencePiece path and llama.cpp's GGUFs type it), not control, even
    // when added_tokens lists it as special. (Typed control, plain text produced a control id;
    // found by fuzz_tokenizer_json.)
    if (v->unk_id >= 0) v->types[static_cast<std::size_t>(v->unk_id)] = static_cast<int32_t>(GgufTokenType::Unknown);
    v->add_bos = specials.add_bos.value_or(false) && v->bos_id >= 0;
    v->add_eos = specials.add_eos.value_or(false) && v->eos_id >= 0;
    if (v->regexes.empty()) v->regexes.push_back(kByteLevelRegex);
    HfTokenizerJson out;
    out.add_bos = v->add_bos;
    out.add_eos = v->add_eos;
    out.bpe = std::move(v);
    return out;
}

// SentencePiece-style BPE: pieces carry "▁" for spaces; scores from merge ranks.
HfTokenizerJson sentencepiece_style(const json& model, const json* normalizer,
                                    const std::vector<const json*>& pre, const std::vector<Added>& added,
                                    const Specials& specials) {
    VocabSpec spec;
    spec.algorithm = VocabSpec::Algorithm::Bpe;
    spec.pieces = read_tokens(model, added, spec.types);
    bool prepend = false;
    for (const json* n : flatten(normalizer, "normalizers")) {
        const std::string type = string_member(*n, "type");
        if (type == "Prepend") {
            if (string_member(*n, "prepend") != kSpace)
                fail("normalizer Prepend other than U+2581 is not supported");
            prepend = true;
        } else if (type == "Replace") {
            const json* pat = member(*n, "pattern");
            if (!pat || string_member(*pat, "String") != " " || string_member(*n, "content") != kSpace)
                fail("normalizer Replace other than ' ' -> U+2581 is not supported");
        } else {
            fail("normalizer '" + type + "' is not supported for SentencePiece-style BPE");
        }
    }
    for (const json* p : pre) {
        if (string_member(*p, "type") != "Metaspace")
            fail("pre-tokenizer '" + string_member(*p, "type") +
                 "' is not supported for SentencePiece-style BPE");
        if (bool_member(*p, "split", false)) fail("Metaspace with split=true is not supported");
        const std::string scheme = string_member(
            *p, "prepend_scheme", bool_member(*p, "add_prefix_space", true) ? "always" : "never");
        prepend = prepend || scheme != "never";
    }
    spec.add_dummy_prefix = prepend;
    const std::size_t n = spec.pieces.size();
    // A piece's score is minus the rank of the first merge that makes it: libsentencepiece merges
    // the highest-scoring pair first, tokenizers the lowest rank. Pieces no merge makes (characters,
    // bytes, specials) score below every merge.
    std::unordered_map<std::string, int32_t> index;
    index.reserve(n);
    for (std::size_t i = 0; i < n; ++i) index.emplace(spec.pieces[i], static_cast<int32_t>(i));
    const auto merges = read_merges(model);
    spec.scores.assign(n, -static_cast<float>(merges.size()) - 1.0f);
    std::vector<bool> scored(n, false);
    for (std::size_t r = 0; r < merges.size(); ++r) {
        const auto it = index.find(merges[r].first + merges[r].second);
        if (it == index.end() || !index.count(merges[r].first) || !index.count(merges[r].second))
            fail("merge " + std::to_string(r) + " '" + merges[r].first + " " + merges[r].second +
                 "' names a piece not in the vocabulary");
        if (!scored[it->second]) {
            scored[it->second] = true;
            spec.scores[it->second] = -static_cast<float>(r);
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        const std::string& p = spec.pieces[i];
        if (spec.types[i] == static_cast<int32_t>(GgufTokenType::Normal) && p.size() == 6 &&
            p.rfind("<0x", 0) == 0 && p[5] == '>')
            spec.types[i] = static_cast<int32_t>(GgufTokenType::Byte);
    }
    spec.byte_fallback = bool_member(model, "byte_fallback", false);
    spec.unk_id = id_of(spec.pieces, string_member(model, "unk_token", specials.unk));
    if (spec.unk_id < 0) fail("a SentencePiece-style model needs an 'unk_token' in the vocabulary");
    spec.types[static_cast<std::size_t>(spec.unk_id)] = static_cast<int32_t>(GgufTokenType::Unknown);
    spec.bos_id = id_of(spec.pieces, specials.bos.empty() ? "<s>" : specials.bos);
    spec.eos_id = id_of(spec.pieces, specials.eos.empty() ? "</s>" : specials.eos);
    HfTokenizerJson out;
    out.spm_proto = serialize_sentencepiece_proto(spec);
    out.add_bos = specials.add_bos;
    out.add_eos = specials.add_eos;
    return out;
}

}  // namespace

HfTokenizerJson parse_hf_tokenizer_json(std::string_view tokenizer_json,
                                        std::string_view tokenizer_config_json) {
    const json root = parse_json_input(tokenizer_json, "tokenizer.json: ");
    const json config =
        tokenizer_config_json.empty() ? json() : parse_json_input(tokenizer_config_json, "tokenizer_config.json: ");
    if (!root.is_object()) fail("not a JSON object");
    try {
        const json* model = member(root, "model");
        if (!model || !model->is_object()) fail("no 'model' object");
        const std::string type = string_member(*model, "type", member(*model, "merges") ? "BPE" : "");
        if (type != "BPE") fail("model type '" + type + "' is not supported; snapdoc supports BPE");
        if (!string_member(*model, "continuing_subword_prefix").empty() ||
            !string_member(*model, "end_of_word_suffix").empty())
            fail("BPE with continuing_subword_prefix/end_of_word_suffix is not supported");
        const std::vector<Added> added = read_added_tokens(root);
        const Specials specials = read_specials(root, config);
        const std::vector<const json*> pre = flatten(member(root, "pre_tokenizer"), "pretokenizers");
        const bool is_byte_level = std::any_of(
            pre.begin(), pre.end(), [](const json* p) { return string_member(*p, "type") == "ByteLevel"; });
        const json* normalizer = member(root, "normalizer");
        if (is_byte_level) {
            // NFC (Qwen) is left out, as llama.cpp does: text already in NFC (nearly all text)
            // tokenizes the same; decomposed accents may differ from HF.
            for (const json* n : flatten(normalizer, "normalizers")) {
                const std::string t = string_member(*n, "type");
                if (t != "NFC") fail("normalizer '" + t + "' is not supported with byte-level BPE");
            }
            return byte_level(*model, pre, added, specials);
        }
        return sentencepiece_style(*model, normalizer, pre, added, specials);
    } catch (const json::exception& e) {
        fail(std::string("unexpected structure: ") + e.what());
    }
}

}  // namespace snapdoc
