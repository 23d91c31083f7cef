// Adding a third document reuses the first two's K/V (issue 41 item 5): with the on-disk K/V cache,
// asking about [A, B, C] after [A, B] restores [A, B]'s file and runs only C's rows through the
// layers (SessionCounters::rows_forwarded), and the next [A, B, C] is served from its own file.
// The demo model (docs/demo_model.md); skips when it is absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "app/common/document_set_load.h"
#include "engine/kv/kv_store_cache.h"
#include "engine/model/model.h"
#include "engine/runtime/backend.h"
#include "engine/session/document_chat.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/repo_paths.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

namespace fs = std::filesystem;
using testing::demo_model_path;

// A document of `n` sentences about `topic`, long enough that its rows are a real share of the part.
std::string sentences(const std::string& topic, int n) {
    std::string out;
    for (int i = 0; i < n; ++i)
        out += "The " + topic + " record " + std::to_string(i + 1) + " says the count was " +
               std::to_string(17 * i + 3) + ".\n";
    return out;
}

class DocumentSetReuse : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(demo_model_path())) GTEST_SKIP() << "demo model absent: " << demo_model_path().string();
        model = std::make_unique<Model>(load_model(demo_model_path()));
        tok = std::make_unique<Tokenizer>(Tokenizer::from_model(*model));
        backend = make_cpu_backend(*model);
        kind = choose_chat_template(model->chat_template, "");
        cache = std::make_unique<KvStoreCache>(dir.path() / "kv");
        identity = cache->model_identity(demo_model_path());
    }
    // Loads docs[0, n) into a fresh chat with the cache (or none); returns the chat and the load.
    std::pair<std::unique_ptr<DocumentChat>, DocumentSetLoad> load(std::size_t n, bool with_cache = true) {
        auto chat = std::make_unique<DocumentChat>(*backend, *tok, kind);
        if (with_cache) chat->set_kv_cache(cache.get(), identity);
        const DocumentSetPart part = build_document_set_part(kind, *tok, "", std::span(docs).first(n));
        const DocumentSetLoad l =
            load_document_set(*chat, *backend, *tok, kind, with_cache ? cache.get() : nullptr, identity, 0, part, "");
        return {std::move(chat), l};
    }
    int part_tokens(std::size_t n) const {
        return static_cast<int>(build_document_set_part(kind, *tok, "", std::span(docs).first(n)).ids.size());
    }

    const std::vector<SetDocument> docs = {{"harbour.txt", sentences("harbour", 30), {}},
                                           {"farm.txt", sentences("farm", 30), {}},
                                           {"mill.txt", sentences("mill", 20), {}}};
    testing::TempDir dir;
    std::unique_ptr<Model> model;
    std::unique_ptr<Tokenizer> tok;
    std::unique_ptr<Backend> backend;
    ChatTemplateKind kind{};
    ModelIdentity identity;
    std::unique_ptr<KvStoreCache> cache;
};

TEST_F(DocumentSetReuse, AThirdDocumentPrefillsOnlyItsOwnRows) {
    const int layers = model->config.n_layers;
    const int two = part_tokens(2), three = part_tokens(3);
    ASSERT_GT(three - two, 100);
    ASSERT_GT(two, 2 * (three - two)) << "the test wants C much shorter than A + B";

    // [A, B]: a prefill of all its rows, and its cache file written.
    auto [ab, ab_load] = load(2);
    EXPECT_EQ(ab_load.reused_rows, 0);
    EXPECT_TRUE(ab->cache_report().saved) << ab->cache_report().note;
    EXPECT_EQ(ab->session().counters().rows_forwarded, static_cast<int64_t>(layers) * two);

    // [A, B, C] in a new chat (a new run of the CLI): [A, B]'s rows come from that file, only C's run.
    auto [abc, abc_load] = load(3);
    EXPECT_EQ(abc_load.from_documents, 2u);
    EXPECT_EQ(abc_load.reused_rows, two);
    EXPECT_EQ(abc->session().counters().rows_forwarded, static_cast<int64_t>(layers) * (three - two));
    EXPECT_EQ(abc->session().document_tokens(), three);
    EXPECT_TRUE(abc->cache_report().saved) << abc->cache_report().note;

    // Without the cache the same set runs every row.
    auto [fresh, fresh_load] = load(3, /*with_cache=*/false);
    EXPECT_EQ(fresh_load.reused_rows, 0);
    EXPECT_EQ(fresh->session().counters().rows_forwarded, static_cast<int64_t>(layers) * three);

    // Both answer from the same document part: greedy answers agree (the reused rows are the
    // f16 rows of the cache; the tiny model's greedy choice does not turn on that rounding).
    AskOptions o;
    o.snapkv.budget = 64;
    o.snapkv.window = 16;
    o.max_new_tokens = 12;
    o.citations = false;
    EXPECT_EQ(abc->ask("What does the mill record 3 say?", o).answer, fresh->ask("What does the mill record 3 say?", o).answer);

    // The next [A, B, C] is its own file, restored whole: no rows run.
    auto [again, again_load] = load(3);
    EXPECT_EQ(again_load.reused_rows, 0);
    EXPECT_TRUE(again->served_from_cache());
    EXPECT_EQ(again->session().counters().rows_forwarded, 0);
}

TEST_F(DocumentSetReuse, NoSubsetFileMeansAWholePrefill) {
    // [A, C] is no prefix of [A, B, C]: nothing is reused.
    const std::vector<SetDocument> ac = {docs[0], docs[2]};
    auto chat = std::make_unique<DocumentChat>(*backend, *tok, kind);
    chat->set_kv_cache(cache.get(), identity);
    load_document_set(*chat, *backend, *tok, kind, cache.get(), identity, 0,
                      build_document_set_part(kind, *tok, "", ac), "");
    auto [abc, abc_load] = load(3);
    EXPECT_EQ(abc_load.reused_rows, 0);
    EXPECT_EQ(abc->session().counters().rows_forwarded,
              static_cast<int64_t>(model->config.n_layers) * part_tokens(3));
}

}  // namespace
}  // namespace snapdoc
