#include "engine/tokenizer/spm_proto.h"

#include <sentencepiece_processor.h>

#include <unordered_map>

#include "engine/common/error.h"
#include "engine/tokenizer/proto_wire.h"

namespace snapdoc {
namespace {

// Field numbers from sentencepiece_model.proto.
namespace model_proto {
constexpr uint32_t kPieces = 1, kTrainerSpec = 2, kNormalizerSpec = 3;
}
namespace piece_field {
constexpr uint32_t kPiece = 1, kScore = 2, kType = 3;
}
namespace trainer_spec {
constexpr uint32_t kModelType = 3, kVocabSize = 4, kTreatWhitespaceAsSuffix = 24, kByteFallback = 35,
                   kUnkId = 40, kBosId = 41, kEosId = 42, kPadId = 43, kUnkPiece = 45, kBosPiece = 46,
                   kEosPiece = 47, kPadPiece = 48;
}
namespace normalizer_spec {
constexpr uint32_t kName = 1, kPrecompiledCharsmap = 2, kAddDummyPrefix = 3, kRemoveExtraWhitespaces = 4,
                   kEscapeWhitespaces = 5;
}

constexpr int32_t kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6;
constexpr int32_t kModelUnigram = 1, kModelBpe = 2;

bool is_ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// The library only recognises byte pieces spelled exactly "<0xHH>" with upper-case hex digits.
bool is_byte_piece_spelling(std::string_view p) {
    auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); };
    return p.size() == 6 && p.substr(0, 3) == "<0x" && hex(p[3]) && hex(p[4]) && p[5] == '>';
}

std::string quoted(std::string_view piece) { return "'" + std::string(piece) + "'"; }

int32_t mapped_type(const VocabSpec& spec, std::size_t i) {
    const auto id = static_cast<int32_t>(i);
    // The special ids decide over the stored type: the library finds unk by its UNKNOWN type and
    // reports bos/eos/pad only when they are CONTROL.
    // Padding is often declared as the unknown piece; the unknown type wins then (padding ids
    // are never fed to the model anyway).
    if (id == spec.unk_id) return kUnknown;
    if (id == spec.bos_id || id == spec.eos_id || id == spec.pad_id) return kControl;
    const int32_t gguf = spec.types.empty() ? kNormal : spec.types[i];
    switch (gguf) {
        case 0:  // GGUF "undefined": converters write it for plain pieces
        case kNormal: return kNormal;
        case kUnknown: return kControl;  // only one UNKNOWN piece is allowed; others are inert
        case kControl: return kControl;
        case kUserDefined: return looks_like_special_marker(spec.pieces[i]) ? kControl : kUserDefined;
        case kUnused: return kUnused;
        case kByte: return kByte;
        default:
            throw FormatError("tokenizer piece " + std::to_string(i) + " has unknown token type " +
                              std::to_string(gguf));
    }
}

void check_spec(const VocabSpec& spec) {
    const std::size_t n = spec.pieces.size();
    if (n == 0) throw FormatError("tokenizer vocabulary is empty");
    if (spec.scores.size() != n)
        throw FormatError("tokenizer has " + std::to_string(n) + " pieces but " + std::to_string(spec.scores.size()) +
                          " scores");
    if (!spec.types.empty() && spec.types.size() != n)
        throw FormatError("tokenizer has " + std::to_string(n) + " pieces but " + std::to_string(spec.types.size()) +
                          " token types");
    auto check_id = [&](int32_t id, const char* what, bool required) {
        if (id == -1 && !required) return;
        if (id < 0 || static_cast<std::size_t>(id) >= n)
            throw FormatError(std::string("tokenizer ") + what + " id " + std::to_string(id) + " is outside the " +
                              std::to_string(n) + "-piece vocabulary");
    };
    check_id(spec.unk_id, "unknown-token", true);  // SentencePiece cannot load a vocab without one
    check_id(spec.bos_id, "BOS", false);
    check_id(spec.eos_id, "EOS", false);
    check_id(spec.pad_id, "padding", false);
    if (spec.unk_id == spec.bos_id || spec.unk_id == spec.eos_id)
        throw FormatError("tokenizer unknown-token id " + std::to_string(spec.unk_id) + " is also the BOS or EOS id");

    std::unordered_map<std::string_view, std::size_t> seen;
    seen.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::string& p = spec.pieces[i];
        if (p.empty()) throw FormatError("tokenizer piece " + std::to_string(i) + " is empty");
        const auto [it, fresh] = seen.emplace(p, i);
        if (!fresh)
            throw FormatError("tokenizer piece " + quoted(p) + " appears twice (ids " + std::to_string(it->second) +
                              " and " + std::to_string(i) + ")");
    }
}

}  // namespace

bool looks_like_special_marker(std::string_view p) {
    if (p.size() < 3) return false;
    const std::string_view inner = p.substr(1, p.size() - 2);
    if (p.front() == '<' && p.back() == '>') {
        for (char c : inner)
            if (is_ascii_space(c) || c == '<' || c == '>') return false;
        // U+2581 marks a space in pieces: "<▁x>" is text, not a marker.
        return inner.find("\xE2\x96\x81") == std::string_view::npos;
    }
    if (p.front() == '[' && p.back() == ']') {
        bool letter = false;
        for (char c : inner) {
            const bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
            if (!(alpha || (c >= '0' && c <= '9') || c == '_' || c == '/' || c == '-')) return false;
            letter = letter || alpha;
        }
        return letter;
    }
    return false;
}

std::string serialize_sentencepiece_proto(const VocabSpec& spec) {
    check_spec(spec);
    proto::Writer model;
    bool has_bytes = false;
    for (std::size_t i = 0; i < spec.pieces.size(); ++i) {
        const int32_t type = mapped_type(spec, i);
        if (type == kByte) {
            if (!is_byte_piece_spelling(spec.pieces[i]))
                throw FormatError("tokenizer byte piece " + std::to_string(i) + " " + quoted(spec.pieces[i]) +
                                  " is not of the form <0xHH>");
            has_bytes = true;
        }
        proto::Writer piece;
        piece.bytes_field(piece_field::kPiece, spec.pieces[i]);
        piece.float_field(piece_field::kScore, spec.scores[i]);
        piece.varint_field(piece_field::kType, static_cast<uint64_t>(type));
        model.message_field(model_proto::kPieces, piece);
    }

    proto::Writer trainer;
    trainer.varint_field(trainer_spec::kModelType,
                         spec.algorithm == VocabSpec::Algorithm::Bpe ? kModelBpe : kModelUnigram);
    trainer.int32_field(trainer_spec::kVocabSize, static_cast<int32_t>(spec.pieces.size()));
    // The library refuses BYTE pieces without byte_fallback, and byte_fallback without BYTE pieces
    // would turn one unknown character into several unknown ids; so it follows the pieces (GGUF
    // stores no flag: its byte pieces are the flag).
    trainer.bool_field(trainer_spec::kByteFallback, has_bytes);
    trainer.int32_field(trainer_spec::kUnkId, spec.unk_id);
    trainer.int32_field(trainer_spec::kBosId, spec.bos_id);
    trainer.int32_field(trainer_spec::kEosId, spec.eos_id);
    trainer.int32_field(trainer_spec::kPadId, spec.pad_id == spec.unk_id ? -1 : spec.pad_id);
    // bos_id()/eos_id()/unk_id()/pad_id() of the library look these pieces up by name (defaults
    // "<s>", "</s>", "<unk>", "<pad>"), so a vocabulary that spells them differently needs them.
    trainer.bytes_field(trainer_spec::kUnkPiece, spec.pieces[spec.unk_id]);
    if (spec.bos_id >= 0) trainer.bytes_field(trainer_spec::kBosPiece, spec.pieces[spec.bos_id]);
    if (spec.eos_id >= 0) trainer.bytes_field(trainer_spec::kEosPiece, spec.pieces[spec.eos_id]);
    if (spec.pad_id >= 0 && spec.pad_id != spec.unk_id) trainer.bytes_field(trainer_spec::kPadPiece, spec.pieces[spec.pad_id]);
    model.message_field(model_proto::kTrainerSpec, trainer);

    proto::Writer normalizer;
    normalizer.bytes_field(normalizer_spec::kName, spec.normalizer_name);
    if (!spec.precompiled_charsmap.empty())
        normalizer.bytes_field(normalizer_spec::kPrecompiledCharsmap, spec.precompiled_charsmap);
    normalizer.bool_field(normalizer_spec::kAddDummyPrefix, spec.add_dummy_prefix);
    normalizer.bool_field(normalizer_spec::kRemoveExtraWhitespaces, spec.remove_extra_whitespaces);
    normalizer.bool_field(normalizer_spec::kEscapeWhitespaces, true);
    model.message_field(model_proto::kNormalizerSpec, normalizer);
    return model.take();
}

SentencePieceProtoInfo inspect_sentencepiece_proto(std::string_view serialized) {
    SentencePieceProtoInfo info;
    proto::Reader top(serialized);
    proto::Field f;
    while (top.next(f)) {
        if (f.type != proto::WireType::Len) continue;
        if (f.number == model_proto::kPieces) {
            std::string piece;
            int32_t type = kNormal;
            proto::Reader r(f.data);
            proto::Field pf;
            while (r.next(pf)) {
                if (pf.number == piece_field::kPiece && pf.type == proto::WireType::Len) piece = std::string(pf.data);
                if (pf.number == piece_field::kType && pf.type == proto::WireType::Varint) type = pf.as_int32();
            }
            info.pieces.push_back(std::move(piece));
            info.types.push_back(type);
        } else if (f.number == model_proto::kTrainerSpec) {
            // Repeated occurrences of a message field merge, so later scalars simply overwrite.
            proto::Reader r(f.data);
            proto::Field tf;
            while (r.next(tf)) {
                if (tf.type != proto::WireType::Varint) continue;
                if (tf.number == trainer_spec::kModelType) info.model_type = tf.as_int32();
                if (tf.number == trainer_spec::kByteFallback) info.byte_fallback = tf.varint != 0;
                if (tf.number == trainer_spec::kTreatWhitespaceAsSuffix) info.treat_whitespace_as_suffix = tf.varint != 0;
            }
        } else if (f.number == model_proto::kNormalizerSpec) {
            proto::Reader r(f.data);
            proto::Field nf;
            while (r.next(nf)) {
                if (nf.type == proto::WireType::Len) {
                    if (nf.number == normalizer_spec::kName) info.normalizer_name = std::string(nf.data);
                    if (nf.number == normalizer_spec::kPrecompiledCharsmap) info.precompiled_charsmap = std::string(nf.data);
                } else if (nf.type == proto::WireType::Varint) {
                    if (nf.number == normalizer_spec::kAddDummyPrefix) info.add_dummy_prefix = nf.varint != 0;
                    if (nf.number == normalizer_spec::kRemoveExtraWhitespaces) info.remove_extra_whitespaces = nf.varint != 0;
                    if (nf.number == normalizer_spec::kEscapeWhitespaces) info.escape_whitespaces = nf.varint != 0;
                }
            }
        }
    }
    return info;
}

std::string protect_special_markers(const std::string& serialized, int* changed) {
    int count = 0;
    std::string out;
    proto::Reader top(serialized);
    proto::Field f;
    while (top.next(f)) {
        bool retype = false;
        std::string_view piece;
        if (f.number == model_proto::kPieces && f.type == proto::WireType::Len) {
            int32_t type = kNormal;
            proto::Reader r(f.data);
            proto::Field pf;
            while (r.next(pf)) {
                if (pf.number == piece_field::kPiece && pf.type == proto::WireType::Len) piece = pf.data;
                if (pf.number == piece_field::kType && pf.type == proto::WireType::Varint) type = pf.as_int32();
            }
            retype = type == kUserDefined && looks_like_special_marker(piece);
        }
        if (!retype) {
            out.append(f.whole);
            continue;
        }
        // Re-emit the piece with every field but the type copied verbatim; the type goes last,
        // where it overrides nothing else.
        proto::Writer rewritten;
        std::string body;
        proto::Reader r(f.data);
        proto::Field pf;
        while (r.next(pf))
            if (pf.number != piece_field::kType) body.append(pf.whole);
        proto::Writer type_field;
        type_field.varint_field(piece_field::kType, kControl);
        body += type_field.bytes();
        rewritten.bytes_field(model_proto::kPieces, body);
        out += rewritten.bytes();
        ++count;
    }
    if (changed) *changed = count;
    return count == 0 ? serialized : out;
}

std::string with_add_dummy_prefix(const std::string& serialized, bool add_dummy_prefix) {
    proto::Writer normalizer;
    normalizer.bool_field(normalizer_spec::kAddDummyPrefix, add_dummy_prefix);
    proto::Writer tail;
    tail.message_field(model_proto::kNormalizerSpec, normalizer);
    return serialized + tail.bytes();
}

VocabSpec vocab_from_sentencepiece(const std::string& serialized) {
    sentencepiece::SentencePieceProcessor sp;
    const auto status = sp.LoadFromSerializedProto(serialized);
    if (!status.ok()) throw FormatError("not a loadable SentencePiece model: " + status.ToString());
    const SentencePieceProtoInfo info = inspect_sentencepiece_proto(serialized);

    VocabSpec spec;
    if (info.model_type == kModelBpe) {
        spec.algorithm = VocabSpec::Algorithm::Bpe;
    } else if (info.model_type == kModelUnigram) {
        spec.algorithm = VocabSpec::Algorithm::Unigram;
    } else {
        throw FormatError("SentencePiece model type " + std::to_string(info.model_type) +
                          " is not supported (only BPE and Unigram)");
    }
    const int n = sp.GetPieceSize();
    spec.pieces.reserve(n);
    spec.scores.reserve(n);
    spec.types.reserve(n);
    for (int id = 0; id < n; ++id) {
        spec.pieces.push_back(sp.IdToPiece(id));
        spec.scores.push_back(sp.GetScore(id));
        int32_t type = kNormal;
        if (sp.IsControl(id)) type = kControl;
        else if (sp.IsUnknown(id)) type = kUnknown;
        else if (sp.IsUnused(id)) type = kUnused;
        else if (sp.IsByte(id)) type = kByte;
        // The API cannot tell user-defined pieces from normal ones; the wire can.
        else if (static_cast<std::size_t>(id) < info.types.size() && info.types[id] == kUserDefined) type = kUserDefined;
        spec.types.push_back(type);
    }
    spec.bos_id = sp.bos_id();
    spec.eos_id = sp.eos_id();
    spec.unk_id = sp.unk_id();
    spec.pad_id = sp.pad_id();
    spec.add_dummy_prefix = info.add_dummy_prefix;
    spec.byte_fallback = info.byte_fallback;
    spec.remove_extra_whitespaces = info.remove_extra_whitespaces;
    spec.normalizer_name = info.normalizer_name;
    spec.precompiled_charsmap = info.precompiled_charsmap;
    return spec;
}

}  // namespace snapdoc
