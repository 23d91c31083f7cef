#include "engine/model/gguf_vocab.h"

#include <limits>

#include "engine/common/error.h"
#include "engine/model/gguf_file.h"
#include "engine/tokenizer/bpe_tokenizer.h"
#include "engine/tokenizer/spm_proto.h"

namespace snapdoc {

namespace {

int32_t token_id(const GgufFile& g, const char* key, int32_t fallback) {
    const auto v = g.get_int_opt(key);
    if (!v) return fallback;
    // Converters write "no such token" as -1, or as 0xFFFFFFFF in a uint32.
    if (*v == -1 || *v == 0xFFFFFFFFll) return -1;
    if (*v < -1 || *v > std::numeric_limits<int32_t>::max()) {
        throw FormatError("GGUF file '" + g.name() + "': " + key + " " + std::to_string(*v) +
                          " is out of range");
    }
    return static_cast<int32_t>(*v);
}

std::vector<int32_t> read_token_types(const GgufFile& g, std::size_t n) {
    std::vector<int32_t> types;
    if (const auto raw = g.get_int_array_opt("tokenizer.ggml.token_type")) {
        if (raw->size() != n) {
            throw FormatError("GGUF file '" + g.name() + "': tokenizer.ggml.token_type has " +
                              std::to_string(raw->size()) + " entries for " + std::to_string(n) + " tokens");
        }
        types.reserve(n);
        for (int64_t t : *raw) {
            if (t < 0 || t > 6) {
                throw FormatError("GGUF file '" + g.name() +
                                  "': tokenizer.ggml.token_type holds an unknown type " + std::to_string(t));
            }
            types.push_back(static_cast<int32_t>(t));
        }
    }
    return types;
}

std::vector<std::string> read_tokens(const GgufFile& g, int vocab_size) {
    std::vector<std::string> tokens = g.get_string_array("tokenizer.ggml.tokens");
    if (tokens.size() > static_cast<std::size_t>(vocab_size)) {
        throw FormatError("GGUF file '" + g.name() + "': the tokenizer has " + std::to_string(tokens.size()) +
                          " tokens but the model's vocabulary is " + std::to_string(vocab_size));
    }
    return tokens;
}

}  // namespace

// Byte-level BPE ("gpt2"): tokens, merges ("left right", rank = index), types, pre-tokenizer.
BpeVocab read_gguf_bpe_vocab(const GgufFile& g, int vocab_size) {
    BpeVocab v;
    v.tokens = read_tokens(g, vocab_size);
    v.types = read_token_types(g, v.tokens.size());
    const std::vector<std::string> merges =
        g.get_string_array_opt("tokenizer.ggml.merges").value_or(std::vector<std::string>{});
    v.merges.reserve(merges.size());
    for (std::size_t r = 0; r < merges.size(); ++r) {
        // The separator is the first space after the first character (llama.cpp): byte-level
        // tokens never contain a raw space, but a merge's left side may be a lone one.
        const std::size_t sp = merges[r].find(' ', 1);
        if (sp == std::string::npos || sp + 1 >= merges[r].size()) {
            throw FormatError("GGUF file '" + g.name() + "': tokenizer.ggml.merges entry " +
                              std::to_string(r) + " '" + merges[r] + "' is not 'left right'");
        }
        v.merges.emplace_back(merges[r].substr(0, sp), merges[r].substr(sp + 1));
    }
    v.pre = g.get_string_opt("tokenizer.ggml.pre").value_or("default");
    v.bos_id = token_id(g, "tokenizer.ggml.bos_token_id", -1);
    v.eos_id = token_id(g, "tokenizer.ggml.eos_token_id", -1);
    v.unk_id = token_id(g, "tokenizer.ggml.unknown_token_id", -1);
    v.pad_id = token_id(g, "tokenizer.ggml.padding_token_id", -1);
    v.add_bos = g.get_bool_opt("tokenizer.ggml.add_bos_token");
    v.add_eos = g.get_bool_opt("tokenizer.ggml.add_eos_token");
    return v;
}

GgufVocab read_gguf_vocab(const GgufFile& g, int vocab_size) {
    GgufVocab out;
    const auto model = g.get_string_opt("tokenizer.ggml.model");
    if (!model) {
        out.error = "GGUF file '" + g.name() + "' has no tokenizer (no tokenizer.ggml.model key)";
        return out;
    }
    if (*model != "llama" && *model != "gpt2") {
        out.error = "GGUF tokenizer '" + *model +
                    "' is not supported; snapdoc supports SentencePiece ('llama') and byte-level BPE "
                    "('gpt2') vocabularies";
        return out;
    }
    try {
        out.add_bos = g.get_bool_opt("tokenizer.ggml.add_bos_token");
        out.add_eos = g.get_bool_opt("tokenizer.ggml.add_eos_token");
        if (*model == "gpt2") {
            // Built (and so checked) here: a broken vocabulary is reported at load, and the
            // tokenizer is not built a second time.
            try {
                out.bpe = std::make_shared<const BpeTokenizer>(read_gguf_bpe_vocab(g, vocab_size));
            } catch (const FormatError& e) {
                throw FormatError("GGUF file '" + g.name() + "': " + e.what());
            }
            return out;
        }
        VocabSpec spec;
        spec.algorithm = VocabSpec::Algorithm::Bpe;
        spec.pieces = read_tokens(g, vocab_size);
        const std::size_t n = spec.pieces.size();
        spec.scores = g.get_float_array_opt("tokenizer.ggml.scores").value_or(std::vector<float>(n, 0.0f));
        if (spec.scores.size() != n) {
            throw FormatError("GGUF file '" + g.name() + "': tokenizer.ggml.scores has " +
                              std::to_string(spec.scores.size()) + " entries for " + std::to_string(n) +
                              " tokens");
        }
        spec.types = read_token_types(g, n);
        bool has_bytes = false;
        for (int32_t t : spec.types) has_bytes |= t == static_cast<int32_t>(GgufTokenType::Byte);
        spec.byte_fallback = has_bytes;
        spec.bos_id = token_id(g, "tokenizer.ggml.bos_token_id", 1);
        spec.eos_id = token_id(g, "tokenizer.ggml.eos_token_id", 2);
        spec.unk_id = token_id(g, "tokenizer.ggml.unknown_token_id", 0);
        spec.pad_id = token_id(g, "tokenizer.ggml.padding_token_id", -1);
        if (spec.pad_id >= static_cast<int32_t>(n))
            spec.pad_id = -1;  // a padding id beyond the pieces means none
        spec.add_dummy_prefix = g.get_bool_opt("tokenizer.ggml.add_space_prefix").value_or(true);
        out.proto = serialize_sentencepiece_proto(spec);
    } catch (const FormatError& e) {
        // A broken vocabulary leaves the weights usable (with an external tokenizer); say why.
        out = GgufVocab{};
        out.error = e.what();
    }
    return out;
}

}  // namespace snapdoc
