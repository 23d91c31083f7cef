// Each catalogue entry names the modelzoo fixture of its family (../shared/fixtures/modelzoo: real
// vocabularies, metadata keys, tensor names and type mixes of those downloads, random weights).
// Here each fixture loads with the entry's architecture and the tokenizer its family uses, and
// split sets made from the fixtures (llama.cpp's gguf-split layout, K-quants, rope factor tensors
// that can land in any shard) give the unsplit file's logits.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "app/hub/catalogue.h"
#include "engine/model/model.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/engine_logits.h"
#include "tests/support/fixtures.h"
#include "tests/support/gguf_split_writer.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

namespace fs = std::filesystem;

fs::path first_gguf(const std::string& fixture) {
    std::vector<fs::path> found;
    for (const auto& e : fs::directory_iterator(fixture_path("modelzoo/" + fixture)))
        if (e.path().extension() == ".gguf") found.push_back(e.path());
    std::sort(found.begin(), found.end());
    return found.empty() ? fs::path() : found.front();
}

TEST(HubCatalogueFixtures, EachFamilyLoadsAsTheCatalogueSays) {
    SNAPDOC_REQUIRE_FIXTURE("modelzoo/README.md");
    struct Loaded {
        std::string architecture;
        TokenizerKind tokenizer;
    };
    std::map<std::string, Loaded> loaded;  // each fixture once (building a BPE vocabulary takes a second)
    for (const hub::CatalogueEntry& e : hub::builtin_catalogue().models) {
        SCOPED_TRACE(e.id + " / " + e.fixture);
        ASSERT_FALSE(e.fixture.empty());
        if (!loaded.count(e.fixture)) {
            const fs::path file = first_gguf(e.fixture);
            ASSERT_FALSE(file.empty());
            const Model m = load_model(file);
            loaded[e.fixture] = {m.config.architecture, Tokenizer::from_model(m).kind()};
        }
        const Loaded& l = loaded[e.fixture];
        EXPECT_EQ(l.architecture, e.shape.architecture);
        // Llama 3 and Qwen vocabularies are byte-level BPE; Mistral and Phi-3.5 SentencePiece.
        const bool bpe = e.shape.vocab_size > 100000;
        EXPECT_EQ(l.tokenizer == TokenizerKind::ByteLevelBpe, bpe);
    }
}

struct SplitCase {
    const char* file;
    int shards;
};

class GgufSplitFixture : public ::testing::TestWithParam<SplitCase> {};

TEST_P(GgufSplitFixture, ShardsGiveTheUnsplitLogits) {
    const std::string rel = std::string("modelzoo/") + GetParam().file;
    SNAPDOC_REQUIRE_FIXTURE(rel);
    testing::TempDir dir;
    const auto shards = testing::write_gguf_split(fixture_path(rel), dir.path(), "zoo", GetParam().shards);
    const Model whole = load_model(fixture_path(rel));
    const Model split = load_model(shards.back());
    EXPECT_EQ(split.mappings.size(), static_cast<std::size_t>(GetParam().shards));
    EXPECT_EQ(split.config.rope_scaling.freq_factors, whole.config.rope_scaling.freq_factors);
    EXPECT_EQ(split.config.rope_scaling.long_freq_factors, whole.config.rope_scaling.long_freq_factors);
    const std::vector<int32_t> ids = {1, 50, 700, 3000, 12, 9, 401, 25};
    EXPECT_EQ(testing::engine_logits(split, ids), testing::engine_logits(whole, ids));

    // llama.cpp as an independent reader of the set, when its oracle is built
    // (SNAPDOC_LLAMA_ORACLE=path/to/llama_oracle, see ../shared/tools/llama-oracle): it loads the
    // shards from the first one by the same naming convention, and must answer as on the whole file.
    const char* oracle = std::getenv("SNAPDOC_LLAMA_ORACLE");
    if (!oracle || !*oracle) return;
    std::string id_list;
    for (int32_t id : ids) id_list += (id_list.empty() ? "" : " ") + std::to_string(id);
    const auto eval = [&](const fs::path& model, const fs::path& out) {
        const std::string cmd = std::string(oracle) + " eval '" + model.string() + "' --ids '" + id_list +
                                "' --out '" + out.string() + "' > /dev/null 2>&1";
        return std::system(cmd.c_str());
    };
    ASSERT_EQ(eval(fixture_path(rel), dir / "whole.f32"), 0);
    ASSERT_EQ(eval(shards.front(), dir / "split.f32"), 0);
    const std::string a = read_text_file(dir / "whole.f32"), b = read_text_file(dir / "split.f32");
    EXPECT_GT(a.size(), 0u);
    EXPECT_EQ(a, b) << "llama.cpp reads the split set differently from the whole file";
}

INSTANTIATE_TEST_SUITE_P(Modelzoo, GgufSplitFixture,
                         ::testing::Values(SplitCase{"llama31-tiny/llama31-tiny-Q4_K_M.gguf", 3},
                                           SplitCase{"phi35-tiny/phi35-tiny-F16.gguf", 4},
                                           SplitCase{"qwen25-tiny/qwen25-tiny-F16.gguf", 2}));

}  // namespace
}  // namespace snapdoc
