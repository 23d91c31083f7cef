// Hostile and broken model files: truncation at every byte, absurd counts/lengths/dims/offsets,
// unknown and unsupported types, missing or contradictory metadata and config keys. Every case must
// end in a FormatError with a message that says what is wrong — never a crash, a hang or a giant
// allocation.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/model/gguf_file.h"
#include "engine/model/gguf_model.h"
#include "engine/model/mapped_file.h"
#include "engine/model/model.h"
#include "engine/model/safetensors_file.h"
#include "tests/support/expect_format_error.h"
#include "tests/support/gguf_edit.h"
#include "tests/support/safetensors_writer.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_model.h"

namespace snapdoc {
namespace {

using namespace snapdoc::testing;

constexpr uint64_t kHuge = uint64_t{1} << 60;

// A small model: small files keep the every-offset loops fast.
TinyModelSpec small_spec() {
    TinyModelSpec s;
    s.n_layers = 1;
    s.dim = 32;
    s.n_heads = 2;
    s.n_kv_heads = 1;
    s.ffn_dim = 32;
    s.vocab_size = 40;
    return s;
}

Model load_bytes(const std::string& bytes) { return load_gguf_model(MappedFile::from_bytes("mem.gguf", bytes)); }

// Hand-built GGUF bytes.
class GgufBytes {
public:
    GgufBytes& raw(const std::string& s) {
        b += s;
        return *this;
    }
    template <typename T>
    GgufBytes& put(T v) {
        b.append(reinterpret_cast<const char*>(&v), sizeof v);
        return *this;
    }
    GgufBytes& u32(uint32_t v) { return put(v); }
    GgufBytes& u64(uint64_t v) { return put(v); }
    GgufBytes& str(const std::string& s) {
        u64(s.size());
        return raw(s);
    }
    // magic, version, n_tensors, n_kv
    GgufBytes& header(uint64_t n_tensors, uint64_t n_kv, uint32_t version = 3) {
        return raw("GGUF").u32(version).u64(n_tensors).u64(n_kv);
    }
    GgufBytes& kv_u32(const std::string& key, uint32_t v) { return str(key).u32(4).u32(v); }
    // name, dims (innermost first), type, offset
    GgufBytes& tensor(const std::string& name, std::vector<uint64_t> dims, uint32_t type, uint64_t offset) {
        str(name).u32(static_cast<uint32_t>(dims.size()));
        for (uint64_t d : dims) u64(d);
        return u32(type).u64(offset);
    }
    GgufBytes& pad(std::size_t align = 32) {
        b.append((align - b.size() % align) % align, '\0');
        return *this;
    }
    std::string b;
};

void expect_gguf_error(const std::string& bytes, const std::string& msg) {
    EXPECT_FORMAT_ERROR(GgufFile::parse(MappedFile::from_bytes("bad.gguf", bytes)), msg);
    EXPECT_FORMAT_ERROR(load_bytes(bytes), msg);
}

// ---------------------------------------------------------------------------------------------
// Truncation

TEST(BadGguf, TruncationAtEveryByteIsAFormatError) {
    TempDir dir;
    write_tiny_gguf(dir / "m.gguf", make_tiny_weights(small_spec()), DType::F16);
    const std::string full = read_file_bytes(dir / "m.gguf");
    ASSERT_NO_THROW(load_bytes(full));
    const GgufFile g = GgufFile::parse(MappedFile::from_bytes("m.gguf", full));
    ASSERT_LT(g.data_offset(), full.size());
    for (std::size_t n = 0; n < full.size(); ++n) {
        try {
            load_bytes(full.substr(0, n));
            ADD_FAILURE() << "a file truncated to " << n << " of " << full.size() << " bytes loaded";
        } catch (const FormatError& e) {
            const std::string m = e.what();
            const bool ok = m.find("truncated") != std::string::npos || (n < 4 && m.find("not a GGUF file") != std::string::npos);
            ASSERT_TRUE(ok) << "at " << n << ": " << m;
        }
    }
}

TEST(BadGguf, TruncatedFileOnDisk) {
    TempDir dir;
    write_tiny_gguf(dir / "m.gguf", make_tiny_weights(small_spec()), DType::F32);
    const std::string full = read_file_bytes(dir / "m.gguf");
    for (std::size_t n : {std::size_t{3}, std::size_t{24}, full.size() / 2, full.size() - 1}) {
        std::ofstream(dir / "t.gguf", std::ios::binary | std::ios::trunc).write(full.data(), static_cast<std::streamsize>(n));
        EXPECT_FORMAT_ERROR(load_model(dir / "t.gguf"), n < 4 ? "neither a GGUF file" : "truncated");
    }
}

// ---------------------------------------------------------------------------------------------
// Header

TEST(BadGguf, MagicAndVersion) {
    expect_gguf_error(GgufBytes().raw("GGUX").u32(3).u64(0).u64(0).b, "not a GGUF file");
    expect_gguf_error(GgufBytes().header(0, 0, 1).b, "GGUF version 1 is not supported");
    expect_gguf_error(GgufBytes().header(0, 0, 4).b, "unsupported GGUF version 4");
    expect_gguf_error(GgufBytes().header(0, 0, 0x03000000).b, "big-endian");
    // Version 2 is read like version 3.
    EXPECT_NO_THROW(GgufFile::parse(MappedFile::from_bytes("v2", GgufBytes().header(0, 1, 2).kv_u32("a", 1).b)));
}

TEST(BadGguf, AbsurdCounts) {
    expect_gguf_error(GgufBytes().header(kHuge, 0).b, "tensor count 1152921504606846976");
    expect_gguf_error(GgufBytes().header(0, kHuge).b, "metadata key count 1152921504606846976");
    expect_gguf_error(GgufBytes().header(~uint64_t{0}, ~uint64_t{0}).b, "truncated or corrupt file");
}

TEST(BadGguf, AbsurdMetadata) {
    // Key length.
    expect_gguf_error(GgufBytes().header(0, 1).u64(kHuge).raw("abc").u32(4).u32(1).b,
                      "truncated file: metadata entry #0 key (1152921504606846976 bytes)");
    expect_gguf_error(GgufBytes().header(0, 1).str("").u32(4).u32(1).raw("pad-pad-").b, "empty key");
    // String value length.
    expect_gguf_error(GgufBytes().header(0, 1).str("k").u32(8).u64(kHuge).raw("xyz").b,
                      "metadata key 'k' (string of 1152921504606846976 bytes)");
    // Array lengths, for fixed-size, string and nested items.
    for (uint32_t item : {0u, 6u, 10u, 8u, 9u}) {
        expect_gguf_error(GgufBytes().header(0, 1).str("arr").u32(9).u32(item).u64(kHuge).raw("0123456789abcdef").b,
                          "count 1152921504606846976");
    }
    // Unknown value types.
    expect_gguf_error(GgufBytes().header(0, 1).str("k").u32(13).u32(0).b, "metadata key 'k' has unknown value type 13");
    expect_gguf_error(GgufBytes().header(0, 1).str("k").u32(9).u32(77).u64(1).u32(0).b, "unknown array item type 77");
    // Arrays nested too deep (each level: item type array, count 1).
    GgufBytes deep;
    deep.header(0, 1).str("deep").u32(9);
    for (int i = 0; i < 20; ++i) deep.u32(9).u64(1);
    deep.u32(0).u64(0);
    expect_gguf_error(deep.b, "nested more than 8 deep");
    // Duplicate keys.
    expect_gguf_error(GgufBytes().header(0, 2).kv_u32("k", 1).kv_u32("k", 2).b, "duplicate metadata key 'k'");
    // A key's raw bytes (NUL, ESC) are escaped in the message, not printed (issue 14).
    const std::string odd("k\0\x1b[2J", 6);
    expect_gguf_error(GgufBytes().header(0, 2).kv_u32(odd, 1).kv_u32(odd, 2).b, "duplicate metadata key 'k\\x00\\x1b[2J'");
    // Alignment.
    expect_gguf_error(GgufBytes().header(0, 1).kv_u32("general.alignment", 0).b, "general.alignment 0 is not a power of two");
    expect_gguf_error(GgufBytes().header(0, 1).kv_u32("general.alignment", 48).b, "general.alignment 48 is not a power of two");
    expect_gguf_error(GgufBytes().header(0, 1).str("general.alignment").u32(8).str("32").b,
                      "'general.alignment' must be an unsigned integer, not string");
}

TEST(BadGguf, AbsurdTensorInfos) {
    auto one = [](std::vector<uint64_t> dims, uint32_t type, uint64_t offset, std::size_t data = 64) {
        GgufBytes b;
        b.header(1, 0).tensor("t", std::move(dims), type, offset).pad();
        b.b.append(data, '\0');
        return b.b;
    };
    expect_gguf_error(one({}, 0, 0), "tensor 't' has 0 dimensions");
    expect_gguf_error(one({1, 1, 1, 1, 1}, 0, 0), "tensor 't' has 5 dimensions");
    expect_gguf_error(one({4, 0}, 0, 0), "invalid dimension 0");
    expect_gguf_error(one({~uint64_t{0}}, 0, 0), "invalid dimension 18446744073709551615");
    expect_gguf_error(one({kHuge, kHuge}, 0, 0), "the product of its dimensions overflows");
    expect_gguf_error(one({uint64_t{1} << 62}, 0, 0), "its byte size overflows");
    expect_gguf_error(one({kHuge}, 0, 0), "truncated file: tensor 't' needs");
    expect_gguf_error(one({16}, 0, kHuge), "data offset 1152921504606846976 is past the end");
    expect_gguf_error(one({16}, 99, kHuge), "data offset 1152921504606846976 is past the end");
    expect_gguf_error(one({16}, 0, 8), "data offset 8 is not a multiple of the alignment 32");
    expect_gguf_error(one({16}, 0, 32, 64), "truncated file: tensor 't' needs 64 bytes at data offset 32");
    expect_gguf_error(one({48}, 8, 0, 256), "row length 48, not a multiple of its block size 32");
    expect_gguf_error(one({16}, 0, 0, 0), "truncated file");  // header ends exactly where data should begin
    // Huge name length.
    expect_gguf_error(GgufBytes().header(1, 0).u64(kHuge).raw(std::string(64, 'x')).b, "tensor info #0 name (1152921504606846976 bytes)");
    // Duplicate names.
    GgufBytes dup;
    dup.header(2, 0).tensor("t", {8}, 0, 0).tensor("t", {8}, 0, 32).pad();
    dup.b.append(64, '\0');
    expect_gguf_error(dup.b, "duplicate tensor name 't'");
    // Unknown type ids parse (their size is unknown) but cannot be viewed.
    const GgufFile g = GgufFile::parse(MappedFile::from_bytes("u.gguf", one({16}, 99, 0)));
    EXPECT_FORMAT_ERROR(g.tensor_view(g.tensors()[0]), "tensor 't' has unknown type id 99, which snapdoc does not support");
}

// ---------------------------------------------------------------------------------------------
// Model-level metadata and tensors (derived from a valid tiny GGUF)

class BadGgufModel : public ::testing::Test {
protected:
    void SetUp() override {
        spec_ = small_spec();
        write_tiny_gguf(dir_ / "base.gguf", make_tiny_weights(spec_), DType::F32);
    }
    std::filesystem::path variant(const GgufEdit& edit) {
        const auto p = dir_ / ("v" + std::to_string(n_++) + ".gguf");
        rewrite_gguf(dir_ / "base.gguf", p, edit);
        return p;
    }
    std::filesystem::path with_meta(const std::string& key, std::optional<GgufMetaValue> value) {
        GgufEdit e;
        bool found = false;
        e.meta = [&](std::string& k, GgufMetaValue& v) {
            if (k != key) return true;
            found = true;
            if (!value) return false;
            v = *value;
            return true;
        };
        auto p = variant(e);
        if (!found && value) {
            GgufEdit add;
            add.add_meta.emplace_back(key, *value);
            p = variant(add);
        }
        return p;
    }
    std::filesystem::path with_tensor(const std::string& name,
                                      std::function<bool(std::vector<int64_t>&, uint32_t&, std::vector<uint8_t>&)> f) {
        GgufEdit e;
        e.tensor = [&](std::string& n, std::vector<int64_t>& shape, uint32_t& type, std::vector<uint8_t>& bytes) {
            return n != name || f(shape, type, bytes);
        };
        return variant(e);
    }

    TempDir dir_;
    TinyModelSpec spec_;
    int n_ = 0;
};

TEST_F(BadGgufModel, MissingOrWrongMetadata) {
    using V = GgufMetaValue;
    EXPECT_FORMAT_ERROR(load_model(with_meta("general.architecture", std::nullopt)),
                        "missing metadata key 'general.architecture'");
    EXPECT_FORMAT_ERROR(load_model(with_meta("general.architecture", V::string("gemma"))),
                        "architecture 'gemma' is not supported (supported: llama, mistral, qwen2, qwen3, phi3)");
    EXPECT_FORMAT_ERROR(load_model(with_meta("general.architecture", V::u32(1))), "has type uint32, expected string");
    for (const char* key : {"llama.block_count", "llama.embedding_length", "llama.feed_forward_length",
                            "llama.attention.head_count", "llama.attention.layer_norm_rms_epsilon", "llama.context_length"}) {
        EXPECT_FORMAT_ERROR(load_model(with_meta(key, std::nullopt)), "missing metadata key '" + std::string(key) + "'");
    }
    EXPECT_FORMAT_ERROR(load_model(with_meta("llama.block_count", V::string("2"))),
                        "'llama.block_count' has type string, expected an integer");
    EXPECT_FORMAT_ERROR(load_model(with_meta("llama.block_count", V::u64(kHuge))), "'llama.block_count' value 1152921504606846976 is out of range");
    EXPECT_FORMAT_ERROR(load_model(with_meta("llama.block_count", V::u32(0))), "n_layers is 0");
    EXPECT_FORMAT_ERROR(load_model(with_meta("llama.block_count", V::u32(1000))), "missing tensor 'blk.1.attn_norm.weight'");
    EXPECT_FORMAT_ERROR(load_model(with_meta("llama.attention.head_count_kv", V::u32(3))), "n_kv_heads (3) must divide n_heads (2)");
    EXPECT_FORMAT_ERROR(load_model(with_meta("llama.attention.head_count", V::u32(3))),
                        "embedding_length 32 is not divisible by attention.head_count 3");
    EXPECT_FORMAT_ERROR(load_model(with_meta("llama.attention.head_count", V::u32(0))), "head_count must be positive");
    EXPECT_FORMAT_ERROR(load_model(with_meta("llama.rope.dimension_count", V::u32(8))), "partial rotary");
    EXPECT_FORMAT_ERROR(load_model(with_meta("llama.rope.scaling.type", V::string("dynamic"))),
                        "rope scaling type 'dynamic' is not supported");
    EXPECT_FORMAT_ERROR(load_model(with_meta("llama.rope.scaling.type", V::string("yarn"))),
                        "rope scaling type 'yarn' needs llama.rope.scaling.factor");
    EXPECT_FORMAT_ERROR(load_model(with_meta("llama.rope.freq_base", V::f32(-1.0f))), "rope_theta");
    EXPECT_FORMAT_ERROR(load_model(with_meta("llama.attention.layer_norm_rms_epsilon", V::f64(1e300))), "is out of range");
    EXPECT_FORMAT_ERROR(load_model(with_meta("llama.vocab_size", V::u32(41))),
                        "tensor 'token_embd.weight' has shape [40, 32], expected [41, 32]");
    EXPECT_FORMAT_ERROR(load_model(with_meta("tokenizer.ggml.bos_token_id", V::u32(600))), "bos_id (600)");
    EXPECT_FORMAT_ERROR(load_model(with_meta("llama.attention.head_count_kv", V::array(GgufType::Int32, {V::i32(1)}))),
                        "'llama.attention.head_count_kv' has type array of int32, expected an integer");
    // Defaults: no head_count_kv means MHA, no freq_base means 10000.
    EXPECT_FORMAT_ERROR(load_model(with_meta("llama.attention.head_count_kv", std::nullopt)),
                        "tensor 'blk.0.attn_k.weight' has shape [16, 32], expected [32, 32]");
    EXPECT_FLOAT_EQ(load_model(with_meta("llama.rope.freq_base", std::nullopt)).config.rope_theta, 10000.0f);
}

TEST_F(BadGgufModel, MissingWrongShapeAndUnsupportedTensors) {
    auto drop = [](std::vector<int64_t>&, uint32_t&, std::vector<uint8_t>&) { return false; };
    EXPECT_FORMAT_ERROR(load_model(with_tensor("blk.0.ffn_up.weight", drop)), "missing tensor 'blk.0.ffn_up.weight'");
    EXPECT_FORMAT_ERROR(load_model(with_tensor("token_embd.weight", drop)), "missing tensor 'token_embd.weight'");
    EXPECT_FORMAT_ERROR(load_model(with_tensor("output_norm.weight", drop)), "missing tensor 'output_norm.weight'");
    EXPECT_FORMAT_ERROR(load_model(with_tensor("blk.0.attn_k.weight",
                                               [](std::vector<int64_t>& s, uint32_t&, std::vector<uint8_t>&) {
                                                   std::swap(s[0], s[1]);
                                                   return true;
                                               })),
                        "tensor 'blk.0.attn_k.weight' has shape [32, 16], expected [16, 32]");
    EXPECT_FORMAT_ERROR(load_model(with_tensor("blk.0.attn_norm.weight",
                                               [](std::vector<int64_t>& s, uint32_t&, std::vector<uint8_t>&) {
                                                   s = {2, 16};
                                                   return true;
                                               })),
                        "tensor 'blk.0.attn_norm.weight' has shape [2, 16], expected [32]");
    // A GGML type snapdoc does not compute with (IQ2_XXS) is refused by name.
    EXPECT_FORMAT_ERROR(load_model(with_tensor("blk.0.attn_q.weight",
                                               [](std::vector<int64_t>&, uint32_t& t, std::vector<uint8_t>& b) {
                                                   t = 16;
                                                   b.assign(64, 0);
                                                   return true;
                                               })),
                        "tensor 'blk.0.attn_q.weight' has type IQ2_XXS, which snapdoc does not support "
                        "(supported: F32, F16, BF16, Q8_0, Q4_0");
    EXPECT_FORMAT_ERROR(load_model(with_tensor("blk.0.ffn_down.weight",
                                               [](std::vector<int64_t>&, uint32_t& t, std::vector<uint8_t>& b) {
                                                   t = 99;
                                                   b.assign(64, 0);
                                                   return true;
                                               })),
                        "tensor 'blk.0.ffn_down.weight' has unknown type id 99, which snapdoc does not support");
    // Mixed dtypes are fine: one F16 tensor among F32 ones.
    const auto mixed = with_tensor("blk.0.attn_v.weight", [](std::vector<int64_t>&, uint32_t& t, std::vector<uint8_t>& b) {
        std::vector<float> f(b.size() / 4);
        std::memcpy(f.data(), b.data(), b.size());
        b.assign(f.size() * 2, 0);
        quantize_row(DType::F16, f.data(), b.data(), static_cast<int64_t>(f.size()));
        t = ggml_type::F16;
        return true;
    });
    const Model m = load_model(mixed);
    EXPECT_EQ(m.weights.layers[0].wv.dtype, DType::F16);
    EXPECT_EQ(m.weights.layers[0].wq.dtype, DType::F32);
    EXPECT_EQ(m.config.weight_dtype, DType::F32);
}

TEST(BadGgufUnsupportedBlockType, RefusedNamingTypeAndTensor) {
    TempDir dir;
    TinyModelSpec s;
    s.n_layers = 1;
    s.dim = 256;
    s.n_heads = 4;
    s.n_kv_heads = 4;
    s.ffn_dim = 256;
    s.vocab_size = 8;
    write_tiny_gguf(dir / "m.gguf", make_tiny_weights(s), DType::F16);
    GgufEdit e;
    e.tensor = [](std::string& n, std::vector<int64_t>&, uint32_t& t, std::vector<uint8_t>& b) {
        if (n == "blk.0.attn_q.weight") {
            t = 15;  // Q8_K: a known layout (256 values in 292 bytes), but only an intermediate type in ggml
            b.assign(256 * 292, 0);
        }
        return true;
    };
    rewrite_gguf(dir / "m.gguf", dir / "q8k.gguf", e);
    EXPECT_FORMAT_ERROR(load_model(dir / "q8k.gguf"),
                        "tensor 'blk.0.attn_q.weight' has type Q8_K, which snapdoc does not support "
                        "(supported: F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, "
                        "IQ4_NL, IQ4_XS)");
}

TEST_F(BadGgufModel, TokenizerProblemsAreRecordedNotThrown) {
    using V = GgufMetaValue;
    Model m = load_model(with_meta("tokenizer.ggml.model", V::string("bert")));
    EXPECT_FALSE(m.has_tokenizer());
    EXPECT_NE(m.tokenizer_error.find("GGUF tokenizer 'bert' is not supported; snapdoc supports "
                                     "SentencePiece ('llama') and byte-level BPE ('gpt2') vocabularies"),
              std::string::npos)
        << m.tokenizer_error;

    GgufEdit no_tok;
    no_tok.meta = [](std::string& k, GgufMetaValue&) { return k.rfind("tokenizer.", 0) != 0; };
    m = load_model(variant(no_tok));
    EXPECT_TRUE(m.tokenizer_proto.empty());
    EXPECT_NE(m.tokenizer_error.find("has no tokenizer"), std::string::npos) << m.tokenizer_error;
    EXPECT_EQ(m.config.vocab_size, spec_.vocab_size);  // from token_embd when nothing else says

    m = load_model(with_meta("tokenizer.ggml.scores", V::array(GgufType::Float32, {V::f32(0)})));
    EXPECT_TRUE(m.tokenizer_proto.empty());
    EXPECT_NE(m.tokenizer_error.find("tokenizer.ggml.scores has 1 entries for 40 tokens"), std::string::npos)
        << m.tokenizer_error;

    m = load_model(with_meta("tokenizer.ggml.tokens", V::string("oops")));
    EXPECT_NE(m.tokenizer_error.find("'tokenizer.ggml.tokens' has type string"), std::string::npos) << m.tokenizer_error;

    m = load_model(with_meta("tokenizer.ggml.token_type", V::array(GgufType::Int32, std::vector<V>(40, V::i32(42)))));
    EXPECT_NE(m.tokenizer_error.find("unknown type 42"), std::string::npos) << m.tokenizer_error;
}

// ---------------------------------------------------------------------------------------------
// safetensors / Hugging Face folders

TEST(BadSafetensors, TruncationAtEveryByteIsAFormatError) {
    TempDir dir;
    write_tiny_hf(dir / "hf", make_tiny_weights(small_spec()), DType::BF16);
    const std::string full = read_file_bytes(dir / "hf" / "model.safetensors");
    ASSERT_NO_THROW(SafetensorsFile::parse(MappedFile::from_bytes("m", full)));
    for (std::size_t n = 0; n < full.size(); ++n) {
        try {
            SafetensorsFile::parse(MappedFile::from_bytes("m", full.substr(0, n)));
            ADD_FAILURE() << "truncated to " << n << " bytes parsed";
        } catch (const FormatError& e) {
            ASSERT_NE(std::string(e.what()).find("truncated"), std::string::npos) << "at " << n << ": " << e.what();
        }
    }
    // And through load_model, from disk.
    for (std::size_t n : {std::size_t{0}, std::size_t{5}, std::size_t{100}, full.size() - 1}) {
        std::ofstream(dir / "hf" / "model.safetensors", std::ios::binary | std::ios::trunc)
            .write(full.data(), static_cast<std::streamsize>(n));
        EXPECT_FORMAT_ERROR(load_model(dir / "hf"), n == 0 ? "the file is empty" : "truncated");
    }
}

TEST(BadSafetensors, CorruptBytesNeverCrash) {
    // Flip every byte of the header (and some data) in turn: each variant either loads or throws
    // FormatError.
    TempDir dir;
    write_tiny_hf(dir / "hf", make_tiny_weights(small_spec()), DType::F32);
    const std::string full = read_file_bytes(dir / "hf" / "model.safetensors");
    uint64_t header_len = 0;
    std::memcpy(&header_len, full.data(), 8);
    for (std::size_t i = 0; i < 8 + header_len; ++i) {
        for (unsigned char x : {0x01, 0x80, 0xff}) {
            std::string b = full;
            b[i] = static_cast<char>(b[i] ^ x);
            try {
                SafetensorsFile::parse(MappedFile::from_bytes("m", b));
            } catch (const FormatError&) {
            }
        }
    }
}

TEST(BadGguf, CorruptBytesNeverCrash) {
    TempDir dir;
    write_tiny_gguf(dir / "m.gguf", make_tiny_weights(small_spec()), DType::Q8_0);
    const std::string full = read_file_bytes(dir / "m.gguf");
    const GgufFile g = GgufFile::parse(MappedFile::from_bytes("m", full));
    for (std::size_t i = 0; i < g.data_offset(); ++i) {
        for (unsigned char x : {0x01, 0x10, 0x80, 0xff}) {
            std::string b = full;
            b[i] = static_cast<char>(b[i] ^ x);
            try {
                load_bytes(b);
            } catch (const FormatError&) {
            }
        }
    }
}

class BadHf : public ::testing::Test {
protected:
    void SetUp() override {
        spec_ = small_spec();
        write_tiny_hf(dir_ / "hf", make_tiny_weights(spec_), DType::F32);
        st_ = dir_ / "hf" / "model.safetensors";
        const SafetensorsFile f = SafetensorsFile::open(st_);
        for (const auto& t : f.tensors()) {
            const TensorView v = f.view(t);
            StTensor s{t.name, v.dtype, v.shape, std::vector<float>(static_cast<std::size_t>(v.numel()))};
            dequantize_row(v.dtype, v.data, s.values.data(), v.numel());
            tensors_.push_back(std::move(s));
        }
    }
    // Rewrites model.safetensors with `edit` applied to each tensor (return false to drop it).
    void rewrite(const std::function<bool(StTensor&)>& edit) {
        std::vector<StTensor> out;
        for (StTensor t : tensors_)
            if (edit(t)) out.push_back(std::move(t));
        write_safetensors(st_, out);
    }
    void set_config(const std::string& key, const std::string& json_value) {
        auto cfg = nlohmann::json::parse(read_file_bytes(dir_ / "hf" / "config.json"));
        cfg[key] = nlohmann::json::parse(json_value);
        std::ofstream(dir_ / "hf" / "config.json") << cfg.dump(2);
    }

    TempDir dir_;
    TinyModelSpec spec_;
    std::filesystem::path st_;
    std::vector<StTensor> tensors_;
};

TEST_F(BadHf, MissingAndMisshapenTensors) {
    ASSERT_NO_THROW(load_model(dir_ / "hf"));
    rewrite([](StTensor& t) { return t.name != "model.layers.0.mlp.up_proj.weight"; });
    EXPECT_FORMAT_ERROR(load_model(dir_ / "hf"), "missing tensor 'model.layers.0.mlp.up_proj.weight'");
    rewrite([](StTensor& t) { return t.name != "model.norm.weight"; });
    EXPECT_FORMAT_ERROR(load_model(dir_ / "hf"), "missing tensor 'model.norm.weight'");
    rewrite([](StTensor& t) {
        if (t.name == "model.layers.0.self_attn.k_proj.weight") std::swap(t.shape[0], t.shape[1]);
        return true;
    });
    EXPECT_FORMAT_ERROR(load_model(dir_ / "hf"),
                        "tensor 'model.layers.0.self_attn.k_proj.weight' has shape [32, 16], expected [16, 32]");
    // lm_head absent -> tied.
    rewrite([](StTensor& t) { return t.name != "lm_head.weight"; });
    const Model m = load_model(dir_ / "hf");
    EXPECT_TRUE(m.config.tied_embeddings);
    EXPECT_EQ(m.weights.output.data, m.weights.tok_embeddings.data);
}

TEST_F(BadHf, UnsupportedDtypeNamesTensor) {
    // Rewrite by hand with an I32 tensor in place of a weight.
    std::string data(32 * 4, '\0');
    write_raw_safetensors(st_, R"({"model.embed_tokens.weight":{"dtype":"I32","shape":[32],"data_offsets":[0,128]}})", data);
    EXPECT_FORMAT_ERROR(load_model(dir_ / "hf"),
                        "tensor 'model.embed_tokens.weight' has dtype I32, which snapdoc does not support");
}

TEST_F(BadHf, ConfigProblems) {
    set_config("architectures", R"(["GPT2LMHeadModel"])");
    EXPECT_FORMAT_ERROR(load_model(dir_ / "hf"), "architecture 'GPT2LMHeadModel' is not supported");
    set_config("architectures", R"(["LlamaForCausalLM"])");
    set_config("num_key_value_heads", "3");
    EXPECT_FORMAT_ERROR(load_model(dir_ / "hf"), "config.json: num_key_value_heads (3) does not divide num_attention_heads (2)");
    set_config("num_key_value_heads", "1");
    set_config("hidden_size", "\"big\"");
    EXPECT_FORMAT_ERROR(load_model(dir_ / "hf"), "key 'hidden_size' must be an integer, not string");
    set_config("hidden_size", "64");
    EXPECT_FORMAT_ERROR(load_model(dir_ / "hf"), "tensor 'model.embed_tokens.weight' has shape [40, 32], expected [40, 64]");
    std::ofstream(dir_ / "hf" / "config.json") << "{";
    EXPECT_FORMAT_ERROR(load_model(dir_ / "hf"), "config.json: not valid JSON");
    std::filesystem::remove(dir_ / "hf" / "config.json");
    EXPECT_FORMAT_ERROR(load_model(dir_ / "hf"), "is not a Hugging Face model folder: it has no config.json");
}

TEST_F(BadHf, MissingWeightsAndTokenizer) {
    std::ofstream(dir_ / "hf" / "tokenizer.json") << "{}";
    const Model m = load_model(dir_ / "hf");
    EXPECT_FALSE(m.has_tokenizer());
    EXPECT_NE(m.tokenizer_error.find("tokenizer.json': tokenizer.json: no 'model' object"), std::string::npos)
        << m.tokenizer_error;
    std::filesystem::remove(st_);
    EXPECT_FORMAT_ERROR(load_model(dir_ / "hf"), "no model.safetensors or model.safetensors.index.json");
}

}  // namespace
}  // namespace snapdoc
