// Split GGUF sets (llama.cpp's gguf-split layout) load as one model: the same weights and logits as
// the unsplit file, from whichever shard is named; broken sets end in messages naming the shard.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/kv/kv_store_cache.h"
#include "engine/model/gguf_model.h"
#include "engine/model/gguf_split.h"
#include "engine/model/gguf_writer.h"
#include "engine/model/mapped_file.h"
#include "engine/model/model.h"
#include "tests/support/engine_logits.h"
#include "tests/support/expect_format_error.h"
#include "tests/support/gguf_edit.h"
#include "tests/support/gguf_split_writer.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tiny_model.h"
#include "tests/support/token_ids.h"

namespace snapdoc {
namespace {

using namespace snapdoc::testing;
namespace fs = std::filesystem;

TEST(GgufSplitName, ParsesTheConvention) {
    const auto s = parse_gguf_shard_name("Qwen2.5-7B-Instruct-Q4_K_M-00002-of-00003.gguf");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->prefix, "Qwen2.5-7B-Instruct-Q4_K_M");
    EXPECT_EQ(s->index, 2);
    EXPECT_EQ(s->count, 3);
    EXPECT_EQ(gguf_shard_file_name(s->prefix, 1, 3), "Qwen2.5-7B-Instruct-Q4_K_M-00001-of-00003.gguf");
    for (const char* bad : {"model.gguf", "-00001-of-00002.gguf", "m-00003-of-00002.gguf", "m-00000-of-00002.gguf",
                            "m-0001-of-00002.gguf", "m-00001-of-00002.bin", "m-0000a-of-00002.gguf"})
        EXPECT_FALSE(parse_gguf_shard_name(bad)) << bad;
}

class GgufSplitTest : public ::testing::Test {
protected:
    void SetUp() override {
        spec.n_layers = 3;
        spec.seed = 5;
        write_tiny_gguf(dir / "whole.gguf", make_tiny_weights(spec), DType::Q8_0);
        ids = random_ids(40, spec.vocab_size, 9);
    }
    TempDir dir;
    TinyModelSpec spec;
    std::vector<int32_t> ids;
};

TEST_F(GgufSplitTest, ShardsLoadAsTheWholeModel) {
    const Model whole = load_model(dir / "whole.gguf");
    const auto shards = write_gguf_split(dir / "whole.gguf", dir.path(), "tiny", 3);
    ASSERT_EQ(shards.size(), 3u);
    const std::vector<float> expected = engine_logits(whole, ids);
    for (const fs::path& opened : shards) {  // any shard names the set
        SCOPED_TRACE(opened.filename().string());
        const Model split = load_model(opened);
        EXPECT_EQ(split.path, shards.front());
        EXPECT_EQ(split.mappings.size(), 3u);
        EXPECT_EQ(split.parameter_count(), whole.parameter_count());
        EXPECT_EQ(split.weight_bytes(), whole.weight_bytes());
        EXPECT_EQ(split.config.n_layers, whole.config.n_layers);
        EXPECT_EQ(engine_logits(split, ids), expected);  // the same bytes: bit-identical logits
    }
    EXPECT_EQ(gguf_model_files(shards[1]), shards);
    EXPECT_EQ(gguf_model_files(dir / "whole.gguf"), std::vector<fs::path>{dir / "whole.gguf"});
}

TEST_F(GgufSplitTest, OneShardSetIsAPlainFile) {
    const auto shards = write_gguf_split(dir / "whole.gguf", dir.path(), "one", 1);
    EXPECT_EQ(engine_logits(load_model(shards[0]), ids), engine_logits(load_model(dir / "whole.gguf"), ids));
}

TEST_F(GgufSplitTest, MissingShardIsNamed) {
    const auto shards = write_gguf_split(dir / "whole.gguf", dir.path(), "tiny", 3);
    fs::remove(shards[2]);
    EXPECT_FORMAT_ERROR(load_model(shards[0]), "shard 3 of 3 ('tiny-00003-of-00003.gguf') is missing");
    EXPECT_FORMAT_ERROR(load_model(shards[1]), "is missing");
}

TEST_F(GgufSplitTest, ShardOfAnotherSetIsRefused) {
    // Shard 2 of a 2-shard set put where shard 2 of a 3-shard set belongs.
    const auto three = write_gguf_split(dir / "whole.gguf", dir.path(), "tiny", 3);
    TempDir other;
    const auto two = write_gguf_split(dir / "whole.gguf", other.path(), "tiny", 2);
    fs::copy_file(two[1], three[1], fs::copy_options::overwrite_existing);
    EXPECT_FORMAT_ERROR(load_model(three[0]),
                        "'tiny-00002-of-00003.gguf' says it is shard 2 of 2, not 2 of 3 (a shard of another set?)");
}

TEST_F(GgufSplitTest, RenamedShardCannotFindItsSiblings) {
    const auto shards = write_gguf_split(dir / "whole.gguf", dir.path(), "tiny", 2);
    fs::rename(shards[0], dir / "renamed.gguf");
    EXPECT_FORMAT_ERROR(load_model(dir / "renamed.gguf"),
                        "is shard 1 of 2 of a split model, but its name does not say so (expected "
                        "renamed-00001-of-00002.gguf)");
}

TEST_F(GgufSplitTest, TensorCountMustMatch) {
    const auto shards = write_gguf_split(dir / "whole.gguf", dir.path(), "tiny", 2);
    GgufEdit edit;
    edit.meta = [](std::string& key, GgufMetaValue& v) {
        if (key == "split.tensors.count") v = GgufMetaValue::i32(99);
        return true;
    };
    rewrite_gguf(shards[0], dir / "edited.gguf", edit);
    fs::rename(dir / "edited.gguf", shards[0]);
    EXPECT_FORMAT_ERROR(load_model(shards[0]), "tensors in its 2 shards, but split.tensors.count says 99");
}

TEST_F(GgufSplitTest, TensorInTwoShardsIsRefused) {
    const auto shards = write_gguf_split(dir / "whole.gguf", dir.path(), "tiny", 2);
    const GgufFile first = GgufFile::open(shards[0]), second = GgufFile::open(shards[1]);
    const int total = static_cast<int>(first.tensors().size() + second.tensors().size());
    // Shard 2 rebuilt with a copy of shard 1's first tensor, and the declared count raised to match.
    GgufEdit count;
    count.meta = [&](std::string& key, GgufMetaValue& v) {
        if (key == "split.tensors.count") v = GgufMetaValue::i32(total + 1);
        return true;
    };
    rewrite_gguf(shards[0], dir / "first.gguf", count);
    const auto& dup = first.tensors().front();
    GgufWriter w;
    for (const auto& e : second.entries()) w.set(e.key, second.value(e.key));
    const auto copy = [&w](const GgufFile& g, const GgufFile::TensorInfo& t) {
        const uint8_t* p = g.tensor_data(t);
        w.add_tensor_raw(t.name, t.shape(), t.ggml_type, std::vector<uint8_t>(p, p + *t.nbytes));
    };
    copy(first, dup);
    for (const auto& t : second.tensors()) copy(second, t);
    w.write(dir / "second.gguf");
    fs::rename(dir / "first.gguf", shards[0]);
    fs::rename(dir / "second.gguf", shards[1]);
    EXPECT_FORMAT_ERROR(load_model(shards[0]), "tensor '" + dup.name + "' is in two shards");
}

TEST_F(GgufSplitTest, InMemoryShardIsRefused) {
    const auto shards = write_gguf_split(dir / "whole.gguf", dir.path(), "tiny", 2);
    EXPECT_FORMAT_ERROR(load_gguf_model(MappedFile::from_bytes("mem.gguf", read_file_bytes(shards[0]))),
                        "'mem.gguf' is shard 1 of 2 of a split model, but its name does not say so");
}

TEST_F(GgufSplitTest, IdentityCoversEveryShard) {
    const auto shards = write_gguf_split(dir / "whole.gguf", dir.path(), "tiny", 2);
    const ModelIdentity before = model_identity(shards[0]);
    EXPECT_EQ(before.file_bytes, fs::file_size(shards[0]) + fs::file_size(shards[1]));
    // Same size, other bytes in the second shard: another model.
    std::string bytes = read_file_bytes(shards[1]);
    bytes[bytes.size() / 2] ^= 0x55;
    {
        std::ofstream(shards[1], std::ios::binary | std::ios::trunc) << bytes;
    }
    EXPECT_NE(model_identity(shards[0]).content_hash, before.content_hash);
}

}  // namespace
}  // namespace snapdoc
