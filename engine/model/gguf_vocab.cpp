#include "engine/model/gguf_vocab.h"

#include <limits>

#include "engine/common/error.h"
#include "engine/model/gguf_file.h"
#include "engine/tokenizer/spm_proto.h"

namespace snapdoc {

namespace {

int32_t token_id(const GgufFile& g, const char* key, int32_t fallback) {
    const auto v = g.get_int_opt(key);
    if (!v) return fallback;
    // Converters write "no such token" as -1, or as 0xFFFFFFFF in a uint32.
    if (*v == -1 || *v == 0xFFFFFFFFll) return -1;
    if (*v < -1 || *v > std::numeric_limits<int32_t>::max()) {
        throw FormatError("GGUF file '" + g.name() + "': " + key + " " + std::to_string(*v) + " is out of range");
    }
    return static_cast<int32_t>(*v);
}

}  // namespace

GgufVocab read_gguf_vocab(const GgufFile& g, int vocab_size) {
    GgufVocab out;
    const auto model = g.get_string_opt("tokenizer.ggml.model");
    if (!model) {
        out.error = "GGUF file '" + g.name() + "' has no tokenizer (no tokenizer.ggml.model key)";
        return out;
    }
    if (*model != "llama") {
        const std::string kind = *model == "gpt2" ? " (byte-level BPE)" : "";
        out.error = "GGUF tokenizer '" + *model + "'" + kind +
                    " is not supported; snapdoc supports SentencePiece ('llama') vocabularies";
        return out;
    }
    try {
        VocabSpec spec;
        spec.algorithm = VocabSpec::Algorithm::Bpe;
        spec.pieces = g.get_string_array("tokenizer.ggml.tokens");
        const std::size_t n = spec.pieces.size();
        if (n > static_cast<std::size_t>(vocab_size)) {
            throw FormatError("GGUF file '" + g.name() + "': the tokenizer has " + std::to_string(n) +
                              " tokens but the model's vocabulary is " + std::to_string(vocab_size));
        }
        spec.scores = g.get_float_array_opt("tokenizer.ggml.scores").value_or(std::vector<float>(n, 0.0f));
        if (spec.scores.size() != n) {
            throw FormatError("GGUF file '" + g.name() + "': tokenizer.ggml.scores has " + std::to_string(spec.scores.size()) +
                              " entries for " + std::to_string(n) + " tokens");
        }
        if (const auto types = g.get_int_array_opt("tokenizer.ggml.token_type")) {
            if (types->size() != n) {
                throw FormatError("GGUF file '" + g.name() + "': tokenizer.ggml.token_type has " +
                                  std::to_string(types->size()) + " entries for " + std::to_string(n) + " tokens");
            }
            spec.types.reserve(n);
            for (int64_t t : *types) {
                if (t < 0 || t > 6) {
                    throw FormatError("GGUF file '" + g.name() + "': tokenizer.ggml.token_type holds an unknown type " +
                                      std::to_string(t));
                }
                spec.types.push_back(static_cast<int32_t>(t));
            }
        }
        bool has_bytes = false;
        for (int32_t t : spec.types) has_bytes |= t == static_cast<int32_t>(GgufTokenType::Byte);
        spec.byte_fallback = has_bytes;
        spec.bos_id = token_id(g, "tokenizer.ggml.bos_token_id", 1);
        spec.eos_id = token_id(g, "tokenizer.ggml.eos_token_id", 2);
        spec.unk_id = token_id(g, "tokenizer.ggml.unknown_token_id", 0);
        spec.pad_id = token_id(g, "tokenizer.ggml.padding_token_id", -1);
        if (spec.pad_id >= static_cast<int32_t>(n)) spec.pad_id = -1;  // a padding id beyond the pieces means none
        spec.add_dummy_prefix = g.get_bool_opt("tokenizer.ggml.add_space_prefix").value_or(true);
        out.proto = serialize_sentencepiece_proto(spec);
    } catch (const FormatError& e) {
        // A broken vocabulary leaves the weights usable (with an external tokenizer); say why.
        out.proto.clear();
        out.error = e.what();
    }
    return out;
}

}  // namespace snapdoc
