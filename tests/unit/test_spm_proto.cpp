// The hand-written ModelProto: wire format, GGUF type mapping, and that a rebuilt proto tokenizes
// exactly like the .model file it was read from.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "engine/common/error.h"
#include "engine/tokenizer/proto_wire.h"
#include "engine/tokenizer/spm_proto.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/fixtures.h"
#include "tests/support/spm_trainer.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

const std::filesystem::path& scratch_dir() {
    static const testing::TempDir dir("snapdoc-spm-proto-test");  // removed at exit
    return dir.path();
}

const std::string& tiny_proto() {
    static const std::string bytes = read_text_file(train_tiny_sentencepiece(scratch_dir(), 320, true));
    return bytes;
}

const std::vector<std::string>& sample_texts() {
    static const std::vector<std::string> texts = {
        "The cat found a red ball in the morning.",
        "  two leading spaces, and  double  spaces inside  ",
        "Unseen words: zebra quartz Xylophone 12345.",
        "Line one\nLine two\n\n\tTabbed line\r\n",
        "Non-ASCII: caf\xC3\xA9 \xE2\x82\xAC 100 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80!",
        "</s> <s> [INST] <unk> <|im_start|>",
        "a",
        " ",
    };
    return texts;
}

TEST(ProtoWire, WriterAndReaderAgree) {
    proto::Writer inner;
    inner.bytes_field(1, "hi");
    proto::Writer w;
    w.varint_field(1, 300);
    w.int32_field(2, -1);
    w.float_field(3, -2.5f);
    w.bool_field(4, true);
    w.message_field(5, inner);
    w.bytes_field(6, std::string("a\0b", 3));

    proto::Reader r(w.bytes());
    proto::Field f;
    ASSERT_TRUE(r.next(f));
    EXPECT_EQ(f.number, 1u);
    EXPECT_EQ(f.varint, 300u);
    ASSERT_TRUE(r.next(f));
    EXPECT_EQ(f.as_int32(), -1);
    EXPECT_EQ(f.whole.size(), 11u);  // tag + 10-byte sign-extended varint, as protobuf writes it
    ASSERT_TRUE(r.next(f));
    EXPECT_EQ(f.type, proto::WireType::Fixed32);
    EXPECT_EQ(f.as_float(), -2.5f);
    ASSERT_TRUE(r.next(f));
    EXPECT_EQ(f.varint, 1u);
    ASSERT_TRUE(r.next(f));
    proto::Reader nested(f.data);
    proto::Field g;
    ASSERT_TRUE(nested.next(g));
    EXPECT_EQ(g.data, "hi");
    EXPECT_FALSE(nested.next(g));
    ASSERT_TRUE(r.next(f));
    EXPECT_EQ(f.data, std::string_view("a\0b", 3));
    EXPECT_FALSE(r.next(f));
}

TEST(ProtoWire, MalformedInputThrowsFormatError) {
    proto::Field f;
    for (const std::string& bad : {std::string("\x0a\x05" "abc"), std::string("\x08"), std::string("\x08\xff\xff"),
                                  std::string("\x0b\x00", 2), std::string("\x00\x01", 2),
                                  std::string(11, '\xff')}) {
        proto::Reader r(bad);
        EXPECT_THROW(
            {
                while (r.next(f)) {
                }
            },
            FormatError)
            << "input of " << bad.size() << " bytes";
    }
}

TEST(SpmProto, InspectReadsTheTrainedModel) {
    const SentencePieceProtoInfo info = inspect_sentencepiece_proto(tiny_proto());
    EXPECT_EQ(info.model_type, 2);  // BPE
    EXPECT_TRUE(info.byte_fallback);
    EXPECT_TRUE(info.add_dummy_prefix);
    EXPECT_FALSE(info.remove_extra_whitespaces);
    EXPECT_EQ(info.normalizer_name, "identity");
    ASSERT_EQ(info.pieces.size(), 320u);
    EXPECT_EQ(info.pieces[0], "<unk>");
    EXPECT_EQ(info.types[0], 2);
    EXPECT_EQ(info.types[1], 3);
    EXPECT_EQ(info.pieces[3], "<0x00>");
    EXPECT_EQ(info.types[3], 6);
}

TEST(SpmProto, RebuiltProtoTokenizesLikeTheOriginal) {
    const VocabSpec spec = vocab_from_sentencepiece(tiny_proto());
    ASSERT_EQ(spec.pieces.size(), 320u);
    EXPECT_EQ(spec.algorithm, VocabSpec::Algorithm::Bpe);
    EXPECT_EQ(spec.unk_id, 0);
    EXPECT_EQ(spec.bos_id, 1);
    EXPECT_EQ(spec.eos_id, 2);
    EXPECT_EQ(spec.pad_id, -1);
    EXPECT_TRUE(spec.add_dummy_prefix);
    EXPECT_TRUE(spec.byte_fallback);
    EXPECT_FALSE(spec.remove_extra_whitespaces);

    const std::string rebuilt = serialize_sentencepiece_proto(spec);
    const Tokenizer original = Tokenizer::from_serialized_proto(tiny_proto());
    const Tokenizer copy = Tokenizer::from_serialized_proto(rebuilt);
    ASSERT_EQ(copy.vocab_size(), original.vocab_size());
    EXPECT_EQ(copy.bos_id(), 1);
    EXPECT_EQ(copy.eos_id(), 2);
    EXPECT_EQ(copy.unk_id(), 0);
    for (const std::string& text : sample_texts()) {
        const auto ids = original.encode(text);
        EXPECT_EQ(copy.encode(text), ids) << text;
        EXPECT_EQ(copy.decode(ids), original.decode(ids)) << text;
    }
    const std::string corpus = tiny_training_corpus();
    EXPECT_EQ(copy.encode(corpus), original.encode(corpus));

    // Reading the rebuilt proto back gives the same vocabulary.
    const VocabSpec again = vocab_from_sentencepiece(rebuilt);
    EXPECT_EQ(again.pieces, spec.pieces);
    EXPECT_EQ(again.scores, spec.scores);
    EXPECT_EQ(again.types, spec.types);
}

// A GGUF-like vocabulary: the trained pieces with some of the merges replaced by special pieces.
VocabSpec gguf_like_spec() {
    VocabSpec spec = vocab_from_sentencepiece(tiny_proto());
    const std::size_t n = spec.pieces.size();
    spec.pieces[n - 1] = "<|im_start|>";
    spec.types[n - 1] = static_cast<int32_t>(GgufTokenType::UserDefined);
    spec.pieces[n - 2] = "[INST]";
    spec.types[n - 2] = static_cast<int32_t>(GgufTokenType::UserDefined);
    spec.pieces[n - 3] = "qzq";  // user-defined text: must stay matchable
    spec.types[n - 3] = static_cast<int32_t>(GgufTokenType::UserDefined);
    spec.pieces[n - 4] = "<pad>";
    spec.types[n - 4] = static_cast<int32_t>(GgufTokenType::Normal);
    spec.pad_id = static_cast<int32_t>(n - 4);
    spec.pieces[n - 5] = "<extra_unk>";
    spec.types[n - 5] = static_cast<int32_t>(GgufTokenType::Unknown);
    spec.pieces[n - 6] = "<unused_0>";
    spec.types[n - 6] = static_cast<int32_t>(GgufTokenType::Unused);
    return spec;
}

TEST(SpmProto, GgufTypesMapSoThatTextNeverBecomesAMarker) {
    const VocabSpec spec = gguf_like_spec();
    const auto n = static_cast<int32_t>(spec.pieces.size());
    const Tokenizer tok = Tokenizer::from_serialized_proto(serialize_sentencepiece_proto(spec));

    EXPECT_TRUE(tok.is_control(n - 1));  // marker-like user-defined → CONTROL
    EXPECT_TRUE(tok.is_control(n - 2));
    EXPECT_FALSE(tok.is_control(n - 3));  // plain user-defined stays USER_DEFINED
    EXPECT_TRUE(tok.is_control(n - 4));   // the padding piece is CONTROL whatever its stored type
    EXPECT_TRUE(tok.is_control(n - 5));   // a second "unknown" piece becomes inert
    EXPECT_EQ(tok.unk_id(), 0);
    EXPECT_EQ(tok.piece_to_id("<|im_start|>"), n - 1);
    EXPECT_EQ(tok.piece_to_id("[INST]"), n - 2);

    const auto ids = tok.encode("<|im_start|>user [INST] hi [/INST] <pad> qzq");
    for (int32_t id : ids) EXPECT_FALSE(tok.is_control(id)) << "id " << id;
    EXPECT_NE(std::find(ids.begin(), ids.end(), n - 3), ids.end()) << "user-defined text piece not matched";
    EXPECT_EQ(tok.decode(ids), "<|im_start|>user [INST] hi [/INST] <pad> qzq");
}

TEST(SpmProto, SpecialPiecesWithOtherNamesKeepTheirIds) {
    VocabSpec spec = vocab_from_sentencepiece(tiny_proto());
    spec.pieces[1] = "<|begin_of_text|>";
    spec.pieces[2] = "<|end_of_text|>";
    spec.pieces[0] = "<UNK>";
    const Tokenizer tok = Tokenizer::from_serialized_proto(serialize_sentencepiece_proto(spec));
    EXPECT_EQ(tok.bos_id(), 1);
    EXPECT_EQ(tok.eos_id(), 2);
    EXPECT_EQ(tok.unk_id(), 0);
}

TEST(SpmProto, PaddingDeclaredAsUnknownIsTolerated) {
    VocabSpec spec = vocab_from_sentencepiece(tiny_proto());
    spec.pad_id = spec.unk_id;  // common in GGUF files
    const Tokenizer tok = Tokenizer::from_serialized_proto(serialize_sentencepiece_proto(spec));
    EXPECT_EQ(tok.unk_id(), 0);
    EXPECT_FALSE(tok.is_control(0));
}

TEST(SpmProto, WithoutDummyPrefix) {
    VocabSpec spec = vocab_from_sentencepiece(tiny_proto());
    spec.add_dummy_prefix = false;
    const Tokenizer without = Tokenizer::from_serialized_proto(serialize_sentencepiece_proto(spec));
    const Tokenizer with = Tokenizer::from_serialized_proto(tiny_proto());
    EXPECT_NE(without.encode("the cat"), with.encode("the cat"));
    // The dummy prefix is exactly one leading space.
    EXPECT_EQ(without.encode(" the cat"), with.encode("the cat"));
    EXPECT_EQ(without.decode(without.encode("the cat")), "the cat");
}

TEST(SpmProto, InconsistentSpecsThrowFormatError) {
    const VocabSpec good = vocab_from_sentencepiece(tiny_proto());
    auto expect_bad = [](VocabSpec spec, const char* what) {
        EXPECT_THROW(serialize_sentencepiece_proto(spec), FormatError) << what;
    };
    {
        VocabSpec s;
        expect_bad(s, "empty vocabulary");
    }
    {
        VocabSpec s = good;
        s.scores.pop_back();
        expect_bad(s, "scores size");
    }
    {
        VocabSpec s = good;
        s.types.resize(5);
        expect_bad(s, "types size");
    }
    {
        VocabSpec s = good;
        s.unk_id = -1;
        expect_bad(s, "no unknown piece");
    }
    {
        VocabSpec s = good;
        s.bos_id = 320;
        expect_bad(s, "bos out of range");
    }
    {
        VocabSpec s = good;
        s.eos_id = s.unk_id;
        expect_bad(s, "eos == unk");
    }
    {
        VocabSpec s = good;
        s.pieces[300] = s.pieces[301];
        expect_bad(s, "duplicate piece");
    }
    {
        VocabSpec s = good;
        s.pieces[300] = "";
        expect_bad(s, "empty piece");
    }
    {
        VocabSpec s = good;
        s.pieces[3] = "<0x0g>";
        expect_bad(s, "malformed byte piece");
    }
    {
        VocabSpec s = good;
        s.types[300] = 9;
        expect_bad(s, "unknown token type");
    }
}

TEST(SpmProto, SpecialMarkerShapes) {
    for (const char* p : {"<s>", "</s>", "<unk>", "<|im_start|>", "<start_of_turn>", "[INST]", "[/INST]",
                          "[TOOL_CALLS]", "[control_8]", "<0x0A>"})
        EXPECT_TRUE(looks_like_special_marker(p)) << p;
    for (const char* p : {"<", "<>", "[]", "[1]", "< s>", "<\xE2\x96\x81s>", "hello", "\xE2\x96\x81<s>", "[a b]", "<<x>"})
        EXPECT_FALSE(looks_like_special_marker(p)) << p;
}

TEST(SpmProto, ProtectSpecialMarkersRetypesOnlyUserDefinedMarkers) {
    // Build a proto the way a foreign .model might be: markers as USER_DEFINED. serialize() would
    // already retype them, so write the types directly by editing the mapped result back.
    VocabSpec spec = gguf_like_spec();
    std::string proto = serialize_sentencepiece_proto(spec);
    // Turn the CONTROL "<|im_start|>" back into USER_DEFINED at the wire level.
    const auto n = spec.pieces.size();
    std::string foreign;
    {
        proto::Reader r(proto);
        proto::Field f;
        std::size_t index = 0;
        while (r.next(f)) {
            if (f.number == 1 && index++ == n - 1) {
                proto::Writer piece;
                piece.bytes_field(1, "<|im_start|>");
                piece.float_field(2, 0.0f);
                piece.varint_field(3, 4);  // USER_DEFINED
                proto::Writer field;
                field.message_field(1, piece);
                foreign += field.bytes();
            } else {
                foreign.append(f.whole);
            }
        }
    }
    ASSERT_EQ(inspect_sentencepiece_proto(foreign).types[n - 1], 4);
    int changed = -1;
    const std::string fixed = protect_special_markers(foreign, &changed);
    EXPECT_EQ(changed, 1);
    const SentencePieceProtoInfo info = inspect_sentencepiece_proto(fixed);
    EXPECT_EQ(info.types[n - 1], 3);
    EXPECT_EQ(info.types[n - 3], 4);  // "qzq" stays user-defined
    EXPECT_EQ(info.pieces, inspect_sentencepiece_proto(foreign).pieces);

    // Tokenizer applies it on load: the marker text in a document stays text.
    const Tokenizer tok = Tokenizer::from_serialized_proto(foreign);
    const auto ids = tok.encode("<|im_start|>");
    EXPECT_TRUE(std::none_of(ids.begin(), ids.end(), [&](int32_t id) { return tok.is_control(id); }));
    EXPECT_EQ(tok.piece_to_id("<|im_start|>"), static_cast<int32_t>(n - 1));

    int none = -1;
    EXPECT_EQ(protect_special_markers(tiny_proto(), &none), tiny_proto());
    EXPECT_EQ(none, 0);
}

TEST(SpmProto, WithAddDummyPrefixOverridesTheNormalizer) {
    const std::string off = with_add_dummy_prefix(tiny_proto(), false);
    EXPECT_FALSE(inspect_sentencepiece_proto(off).add_dummy_prefix);
    EXPECT_TRUE(inspect_sentencepiece_proto(with_add_dummy_prefix(off, true)).add_dummy_prefix);
    const Tokenizer a = Tokenizer::from_serialized_proto(off);
    const Tokenizer b = Tokenizer::from_serialized_proto(tiny_proto());
    // Without the dummy prefix, "the" is encoded as it would be glued to a previous word.
    const auto ids = a.encode("the cat");
    const auto prefixed = b.encode("the cat");
    EXPECT_NE(ids, prefixed);
    EXPECT_EQ(a.decode(ids), "the cat");
}

TEST(SpmProto, VocabFromGarbageThrowsFormatError) {
    EXPECT_THROW(vocab_from_sentencepiece("not a model"), FormatError);
    EXPECT_THROW(vocab_from_sentencepiece(""), FormatError);
    EXPECT_THROW(vocab_from_sentencepiece(tiny_proto().substr(0, tiny_proto().size() / 2)), FormatError);
}

}  // namespace
}  // namespace snapdoc
