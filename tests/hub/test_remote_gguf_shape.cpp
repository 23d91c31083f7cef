// A hub model's shape before its download (Get models' fit for any repository's files): the
// first bytes of the GGUF by range requests, grown until the header ends, read as the loader
// reads a whole file; and what goes wrong in words.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <string>

#include "app/hub/hub_tree.h"
#include "app/hub/listed_fit.h"
#include "app/hub/remote_gguf_shape.h"
#include "engine/common/error.h"
#include "engine/model/gguf_model.h"
#include "tests/hub/hub_test_env.h"
#include "tests/support/gguf_edit.h"
#include "tests/support/tiny_model.h"

using namespace snapdoc;
using namespace snapdoc::hub;
using namespace snapdoc::testing;
namespace fs = std::filesystem;

namespace {

constexpr const char* kRepo = "tester/shape-GGUF";

class RemoteShapeTest : public HubTest {
protected:
    // A tiny llama whose header carries `padding` extra bytes of metadata (a real vocabulary's
    // tokens and merges make headers of several MiB) and whose weights are larger than the header.
    fs::path tiny(std::size_t padding, const std::string& arch = "") {
        TinyModelSpec spec;
        spec.n_layers = 3;
        spec.dim = 256;
        spec.n_heads = 8;
        spec.n_kv_heads = 2;
        spec.vocab_size = 4096;
        spec.context_length = 8192;
        const fs::path plain = dir.path() / "plain.gguf", out = dir.path() / "tiny.gguf";
        write_tiny_gguf(plain, make_tiny_weights(spec), DType::F32);
        GgufEdit edit;
        if (padding > 0) edit.add_meta.emplace_back("tester.padding", GgufMetaValue::string(std::string(padding, 'p')));
        if (!arch.empty()) {
            edit.meta = [arch](std::string& key, GgufMetaValue& value) {
                if (key == "general.architecture") value = GgufMetaValue::string(arch);
                return true;
            };
        }
        rewrite_gguf(plain, out, edit);
        return out;
    }
    ModelConfig fetch(const fs::path& file, const std::atomic<bool>* cancel = nullptr) {
        return fetch_gguf_shape(endpoint(), kRepo, "main", file.filename().string(),
                                static_cast<int64_t>(fs::file_size(file)), cancel);
    }
};

TEST_F(RemoteShapeTest, AHeaderLargerThanTheFirstFetchIsReadInAFewRangesNotTheWholeFile) {
    const fs::path file = tiny(3 << 20);  // the header ends past the first 2 MiB
    add_from_disk(kRepo, file.filename().string(), file);
    const ModelConfig shape = fetch(file);
    const ModelConfig loaded = load_gguf_model(file).config;
    EXPECT_EQ(shape.architecture, "llama");
    EXPECT_EQ(shape.n_layers, 3);
    EXPECT_EQ(shape.dim, 256);
    EXPECT_EQ(shape.n_heads, 8);
    EXPECT_EQ(shape.n_kv_heads, 2);
    EXPECT_EQ(shape.vocab_size, 4096);
    EXPECT_EQ(shape.context_length, 8192);
    EXPECT_EQ(shape.head_dim, loaded.head_dim);
    EXPECT_EQ(shape.ffn_dim, loaded.ffn_dim);
    EXPECT_EQ(hub.stats().range_requests, 2);
    EXPECT_LT(hub.stats().body_bytes_sent, static_cast<int64_t>(fs::file_size(file)));
}

TEST_F(RemoteShapeTest, ASmallHeaderTakesOneRequestAndAServerIgnoringRangesIsCutOff) {
    const fs::path file = tiny(0);
    add_from_disk(kRepo, file.filename().string(), file);
    EXPECT_EQ(fetch(file).n_layers, 3);
    EXPECT_EQ(hub.stats().range_requests, 1);
    HubFaults whole;
    whole.ignore_range = true;  // 200 with the whole file: the client stops after what it asked for
    hub.set_faults(whole);
    const ModelConfig again = fetch(file);
    EXPECT_EQ(again.dim, 256);
}

TEST_F(RemoteShapeTest, NotAGgufAnUnsupportedFamilyAndAGatedRepoAreErrorsInWords) {
    add(kRepo, "random-Q8_0.gguf", 3 << 20, 9);
    try {
        fetch_gguf_shape(endpoint(), kRepo, "main", "random-Q8_0.gguf", 3 << 20, nullptr);
        ADD_FAILURE() << "random bytes read as a GGUF";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("not a GGUF file"), std::string::npos) << e.what();
    }
    const fs::path other = tiny(0, "gemma");
    add_from_disk(kRepo, "gemma.gguf", other);
    try {
        fetch_gguf_shape(endpoint(), kRepo, "main", "gemma.gguf", static_cast<int64_t>(fs::file_size(other)), nullptr);
        ADD_FAILURE() << "an unsupported architecture gave a shape";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("architecture 'gemma' is not supported"), std::string::npos) << e.what();
    }
    hub.set_gated(kRepo, "secret");
    try {
        fetch(other);
        ADD_FAILURE() << "a gated repository answered without a token";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("401"), std::string::npos) << e.what();
    }
    // A file path that leaves the repository is refused before any request.
    EXPECT_THROW(fetch_gguf_shape(endpoint(), kRepo, "main", "../x.gguf", 100, nullptr), Error);
}

TEST_F(RemoteShapeTest, AHeaderOverTheLimitIsRefusedAfterOneFetchAndCancelStops) {
    const fs::path huge = tiny(std::size_t{70} << 20);  // 70 MiB of metadata: over the 64 MiB limit
    add_from_disk(kRepo, huge.filename().string(), huge);
    try {
        fetch(huge);
        ADD_FAILURE() << "a 70 MiB header was fetched";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("larger than 64 MiB"), std::string::npos) << e.what();
    }
    EXPECT_EQ(hub.stats().range_requests, 1);  // the string's length said so after the first 2 MiB
    std::atomic<bool> cancel{true};
    EXPECT_THROW(fetch(huge, &cancel), Cancelled);
}

TEST_F(RemoteShapeTest, EachListedChoiceGetsTheFitOfItsOwnSize) {
    const fs::path file = tiny(0);
    const ModelConfig shape = load_gguf_model(file).config;
    const std::vector<GgufChoice> choices = gguf_choices(
        {{"m-Q8_0.gguf", int64_t{2} << 30, ""}, {"m-Q4_K_M.gguf", int64_t{1} << 30, ""},
         {"m-F16-00001-of-00002.gguf", int64_t{3} << 29, ""}});
    ASSERT_EQ(choices.size(), 3u);
    // The header is read from the smallest complete choice (the F16 set misses its second shard).
    const int source = shape_source_choice(choices);
    ASSERT_GE(source, 0);
    EXPECT_EQ(choices[static_cast<std::size_t>(source)].quant, "Q4_K_M");
    FitOptions options;
    options.document_tokens = 4096;
    const auto fits = estimate_listed_choices(kRepo, shape, choices, MachineMemory{int64_t{2} << 30, 0}, options);
    ASSERT_EQ(fits.size(), choices.size());
    for (std::size_t i = 0; i < fits.size(); ++i) {
        EXPECT_EQ(fits[i].memory.weights, choices[i].total_bytes());
        EXPECT_EQ(fits[i].quant, choices[i].quant);
    }
    // Smallest first: 1 GiB of weights fits 2 GiB of RAM, 2 GiB does not.
    EXPECT_EQ(fits.front().quant, "Q4_K_M");
    EXPECT_EQ(fits.front().badge, FitBadge::Fits);
    EXPECT_EQ(fits.back().quant, "Q8_0");
    EXPECT_EQ(fits.back().badge, FitBadge::DoesNotFit);
}

}  // namespace
