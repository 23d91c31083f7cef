// Building a SentencePiece ModelProto without the protobuf headers (Debian's libsentencepiece-dev
// does not ship sentencepiece_model.pb.h): the few fields a tokenizer needs are written in protobuf
// wire format by hand, then loaded with SentencePieceProcessor::LoadFromSerializedProto.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace snapdoc {

// Token types as GGUF stores them in `tokenizer.ggml.token_type`. The numbers are the same as
// SentencePiece's ModelProto.SentencePiece.Type (NORMAL=1 ... UNUSED=5, BYTE=6).
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
    bool byte_fallback = true;  // informational: the proto gets byte_fallback iff there are Byte pieces
    // Normalizer. GGUF files carry none of this; Llama/Mistral use exactly these defaults (no
    // Unicode normalization, runs of spaces kept). vocab_from_sentencepiece fills them from the
    // source so that a rebuilt proto normalizes like the original.
    bool remove_extra_whitespaces = false;
    std::string normalizer_name = "identity";
    std::string precompiled_charsmap;  // empty: no character normalization
};

// Serialized ModelProto for the vocabulary. Throws FormatError on an inconsistent spec (sizes differ,
// ids out of range, empty vocab, empty or duplicate pieces, malformed byte pieces "<0xHH>").
// Types are mapped so that plain text can never encode to a special token:
//   Normal/0→NORMAL, Unknown→UNKNOWN (only at unk_id; elsewhere CONTROL), Control→CONTROL,
//   UserDefined→USER_DEFINED unless the piece looks_like_special_marker (then CONTROL),
//   Unused→UNUSED, Byte→BYTE; the pieces at bos/eos/pad ids are always CONTROL (a pad id equal
//   to unk_id, common in GGUF files, is dropped). unk_id must name a piece; bos/eos/pad may be -1.
std::string serialize_sentencepiece_proto(const VocabSpec& spec);

// The vocabulary of an existing serialized ModelProto (read back through the library's API, plus
// the wire for what the API does not expose: user-defined types, normalizer and trainer flags).
// Throws FormatError if the library cannot load it.
VocabSpec vocab_from_sentencepiece(const std::string& serialized_proto);

// A piece that is a chat/control marker rather than text: "<...>" such as "<s>", "<|im_start|>",
// "<start_of_turn>", or an all-caps bracketed tag such as "[INST]", "[/INST]", "[TOOL_CALLS]".
bool looks_like_special_marker(std::string_view piece);

// What a serialized ModelProto says about itself, read straight from the wire (unset fields carry
// the proto2 defaults, which are what the library uses).
struct SentencePieceProtoInfo {
    int32_t model_type = 1;  // TrainerSpec.ModelType: UNIGRAM=1, BPE=2, WORD=3, CHAR=4
    bool byte_fallback = false;
    bool treat_whitespace_as_suffix = false;
    std::string normalizer_name;
    std::string precompiled_charsmap;
    bool add_dummy_prefix = true;
    bool remove_extra_whitespaces = true;
    bool escape_whitespaces = true;
    std::vector<std::string> pieces;
    std::vector<int32_t> types;  // SentencePiece type per piece (NORMAL when unset)
};
// Throws FormatError if the bytes are not a well-formed protobuf message.
SentencePieceProtoInfo inspect_sentencepiece_proto(std::string_view serialized_proto);

// The proto with every USER_DEFINED piece that looks_like_special_marker retyped CONTROL. The
// library matches user-defined pieces inside plain text, so a .model file that declares "<|im_end|>"
// user-defined would otherwise turn those characters in a document into the real marker. All other
// bytes are copied unchanged. `changed` (optional) receives the number of pieces retyped.
std::string protect_special_markers(const std::string& serialized_proto, int* changed = nullptr);

// The proto with NormalizerSpec.add_dummy_prefix overridden (a field appended at the end; protobuf
// merges repeated occurrences of a message field, later scalars win).
std::string with_add_dummy_prefix(const std::string& serialized_proto, bool add_dummy_prefix);

}  // namespace snapdoc
