// Building a SentencePiece ModelProto without the protobuf headers (Debian's libsentencepiece-dev
// does not ship sentencepiece_model.pb.h): the few fields a tokenizer needs are written in protobuf
// wire format by hand, then loaded with SentencePieceProcessor::LoadFromSerializedProto.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace snapdoc {

// Token types as GGUF stores them in `tokenizer.ggml.token_type`.
enum class GgufTokenType : int32_t { Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6 };

struct VocabSpec {
    enum class Algorithm { Bpe, Unigram };
    Algorithm algorithm = Algorithm::Bpe;
    std::vector<std::string> pieces;
    std::vector<float> scores;
    std::vector<int32_t> types;  // GgufTokenType values; empty = all Normal
    int32_t bos_id = 1;
    int32_t eos_id = 2;
    int32_t unk_id = 0;
    int32_t pad_id = -1;
    bool add_dummy_prefix = true;
    bool byte_fallback = true;
};

// Serialized ModelProto for the vocabulary. Throws FormatError on an inconsistent spec (sizes differ,
// ids out of range, empty vocab).
std::string serialize_sentencepiece_proto(const VocabSpec& spec);

// The vocabulary of an existing serialized ModelProto (read back through the library's API).
VocabSpec vocab_from_sentencepiece(const std::string& serialized_proto);

}  // namespace snapdoc
