// The demo model (resources/models/snapdoc-demo.gguf) in documents it was not built from: haystacks of
// real text assembled at test time from texts a Debian system ships (licences, package copyright
// files, Python sources; app/eval/real_text.h), three facts in the model's sentence form at 10%, 50%
// and 90% depth, each asked in its question form with full KV and with SnapKV B=1024. Every answer
// must restate its fact exactly. (Before issue 22 the wired answer's question marker was the BPE piece
// "Qu": any "Queue" or "Quite" marked the rest of the document as question, and 0 of 3 were right.)
// Skips with a message when the model or every source text is absent; SNAPDOC_DEMO_MODEL=path points
// it at another model. The longer run (docs/demo_model.md, "Real-text haystacks"):
//   SNAPDOC_REALTEXT_LENGTHS=65536,131072 SNAPDOC_REALTEXT_DOCS=5 SNAPDOC_REALTEXT_BUDGETS=0,1024,2048
//       build/tests/snapdoc_golden_tests --gtest_filter='RealTextDemo.*'
// (budgets: 0 is full KV; the default is 0,1024; SNAPDOC_REALTEXT_FIRST_DOC=k starts at document k).
// Each document prints one line per setting.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <sstream>

#include "app/eval/haystack.h"
#include "app/eval/real_text.h"
#include "engine/model/model.h"
#include "engine/runtime/backend.h"
#include "engine/session/document_chat.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/repo_paths.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

#include <nlohmann/json.hpp>

namespace snapdoc {
namespace {

using testing::demo_model_path;

std::vector<int> env_ints(const char* name, std::vector<int> fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    std::vector<int> out;
    std::stringstream s(v);
    for (std::string part; std::getline(s, part, ',');) out.push_back(std::stoi(part));
    return out;
}

TEST(RealTextDemo, AnswersFactsInRealTextWithFullKvAndSnapKv) {
    const auto path = demo_model_path();
    if (!std::filesystem::exists(path))
        GTEST_SKIP() << "demo model " << path.string() << " is absent (see docs/demo_model.md); skipping";
    const std::vector<eval::TextSource> sources = eval::debian_text_sources();
    if (sources.empty())
        GTEST_SKIP() << "no source texts (/usr/share/common-licenses, /usr/share/doc/*/copyright, "
                        "/usr/lib/python3.*/*.py) on this machine; skipping";
    const Model model = load_model(path);
    const Tokenizer tok = Tokenizer::from_model(model);
    auto backend = make_cpu_backend(model);
    const ChatTemplateKind kind = choose_chat_template(model.chat_template, "");
    // Lengths are estimated from bytes (real text reads ~1.5 bytes per token with the demo tokenizer),
    // not with the model's tokenizer, so that every model is asked about the same documents.
    const eval::TokenCounter count = [](std::string_view s) { return static_cast<int>(s.size() * 2 / 3); };
    // (length target, document index) pairs. By default three documents (~4K, ~7K and ~32K tokens); (4096, 4) is one on which the model
    // before issue 22 (question marker "Qu") answered 2 of 6: its copyright text has a "Qu" at a line
    // start before two of the facts ("The license number for the hill gateion hill gateion ...").
    std::vector<std::pair<int, int>> cells = {{4096, 4}, {8192, 0}, {36864, 0}};
    if (std::getenv("SNAPDOC_REALTEXT_LENGTHS")) {
        cells.clear();
        const int docs = env_ints("SNAPDOC_REALTEXT_DOCS", {1}).front();
        // SNAPDOC_REALTEXT_FIRST_DOC=k continues a longer run at document k (documents are seeded by
        // length and index, so doc k is the same document in every run).
        const int first = env_ints("SNAPDOC_REALTEXT_FIRST_DOC", {0}).front();
        for (int length : env_ints("SNAPDOC_REALTEXT_LENGTHS", {}))
            for (int d = first; d < first + docs; ++d) cells.emplace_back(length, d);
    }
    int exact = 0, n = 0;
    for (const auto& [length, d] : cells) {
        {
            eval::Rng rng(eval::mix_seed({22, static_cast<uint64_t>(length), static_cast<uint64_t>(d)}));
            const std::vector<eval::Fact> facts = eval::make_facts(rng, 3, 0.5);
            const eval::Document doc =
                eval::real_text_document(rng, sources, length, count, facts, {0.1, 0.5, 0.9});
            DocumentChat chat(*backend, tok, kind);
            const auto t0 = std::chrono::steady_clock::now();
            const int doc_tokens = chat.load_document(doc.text);
            EXPECT_GT(doc_tokens, length / 2);
            EXPECT_LT(doc_tokens, length * 2);
            for (int budget : env_ints("SNAPDOC_REALTEXT_BUDGETS", {0, 1024})) {
                int exact_here = 0;
                for (const eval::Fact& f : doc.facts) {
                    AskOptions ask;
                    ask.snapkv.enabled = budget > 0;  // 0: full KV
                    ask.snapkv.budget = budget;
                    ask.snapkv.window = 32;
                    ask.max_new_tokens = 20;
                    const AskResult a = chat.ask(f.question(), ask);
                    const bool ok = eval::answer_matches(a.answer, f);
                    EXPECT_TRUE(ok) << doc_tokens << " tokens, "
                                    << (budget ? "B=" + std::to_string(budget) : std::string("full KV")) << ": "
                                    << f.question() << " -> '" << a.answer << "' (expected '" << f.answer() << "')";
                    exact += ok;
                    exact_here += ok;
                    ++n;
                }
                std::printf("real text, target %d, %d tokens (doc %d), %s: %d of %zu exact\n", length, doc_tokens, d,
                            budget ? ("B=" + std::to_string(budget)).c_str() : "full KV", exact_here,
                            doc.facts.size());
            }
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            std::printf("real text, %d tokens (doc %d): %d of %d exact so far, %.1f s\n", doc_tokens, d, exact, n, s);
        }
    }
    RecordProperty("exact", exact);
    RecordProperty("asked", n);
    EXPECT_EQ(exact, n);
}

// Heads have roles (tools/demo_model/wire_roles.py), named in the GGUF and in `inspect --json`, and
// every cache head keeps positions that are not the earliest ones. Before issue 22, 6 of the 8 cache
// heads kept (almost) exactly the first positions (uniform attention, tied scores); after its first
// round of roles 3 did (layer 0's two and layer 2's first) and six heads had no name; now none.
TEST(DemoModelHeads, RolesAreNamedAndEveryCacheHeadSelectsStructure) {
    const auto path = demo_model_path();
    if (!std::filesystem::exists(path))
        GTEST_SKIP() << "demo model " << path.string() << " is absent (see docs/demo_model.md); skipping";
    const Model model = load_model(path);
    const int H = model.config.n_heads;
    ASSERT_EQ(model.head_roles.size(), static_cast<std::size_t>(model.config.n_layers * H));
    EXPECT_EQ(model.head_roles[1 * H + 2], "fact lookup");
    EXPECT_EQ(model.head_roles[2 * H + 2], "sentence starts");
    EXPECT_EQ(model.head_roles[0 * H + 3], "recent text");
    // Every head has a name a user can read, and no two share one.
    std::set<std::string> names;
    for (std::size_t i = 0; i < model.head_roles.size(); ++i) {
        EXPECT_FALSE(model.head_roles[i].empty()) << "layer " << i / H << " head " << i % H << " has no role";
        names.insert(model.head_roles[i]);
    }
    EXPECT_EQ(names.size(), model.head_roles.size()) << "two heads share a role name";
    // Only the four wired heads write (layer 0 heads 0 and 2, layer 1 heads 0 and 2); the role heads
    // have zero output projections and the engine sees it (ModelConfig::head_writes), so citations
    // leave them out and the answer does not depend on where they look.
    ASSERT_EQ(model.config.head_writes.size(), model.head_roles.size());
    for (int l = 0; l < model.config.n_layers; ++l)
        for (int h = 0; h < H; ++h)
            EXPECT_EQ(model.config.head_writes[l * H + h], l < 2 && h % 2 == 0 ? 1 : 0)
                << "layer " << l << " head " << h << " (" << model.head_roles[l * H + h] << ")";

    const testing::TempDir tmp_dir("snapdoc_golden_heads");  // unique: ctest runs tests in parallel
    const std::filesystem::path& dir = tmp_dir.path();
    const Tokenizer tok = Tokenizer::from_model(model);
    eval::Rng rng(eval::mix_seed({22, 2048}));
    const eval::TokenCounter count = [&](std::string_view s) { return static_cast<int>(tok.encode(s).size()) + 1; };
    const eval::Needle nd = eval::needle_document(rng, 2048, count, 0.5);
    {
        std::ofstream(dir / "doc.txt") << nd.document.text;
    }
    const CommandResult r = run_command(std::string(SNAPDOC_CLI_PATH) + " inspect -m '" + path.string() + "' --doc '" +
                                        (dir / "doc.txt").string() + "' -q '" + nd.needle.question() +
                                        "' --budget 128 --json '" + (dir / "sel.json").string() + "'");
    ASSERT_EQ(r.status, 0) << r.output;
    const nlohmann::json j = nlohmann::json::parse(read_text_file(dir / "sel.json"));
    ASSERT_EQ(j["head_roles"].size(), static_cast<std::size_t>(model.config.n_layers));
    EXPECT_EQ(j["head_roles"][2][3], model.head_roles[2 * model.config.n_heads + 3]);
    const int doc_end = j["prompt_tokens"].get<int>() - j["window"].get<int>();
    int cache_heads = 0;
    for (const auto& layer : j["layers"]) {
        for (const auto& head : layer["heads"]) {
            const int l = layer["layer"].get<int>(), h = head["head"].get<int>();
            const auto kept = head["kept"].get<std::vector<int>>();
            int doc_kept = 0, earliest = 0, first_kept = doc_end;
            for (int p : kept) doc_kept += p < doc_end;
            for (int p : kept) {
                earliest += p < doc_kept;
                first_kept = std::min(first_kept, p);
            }
            ++cache_heads;
            std::printf("layer %d cache head %d: %d of %d kept document positions are the earliest ones\n", l, h,
                        earliest, doc_kept);
            EXPECT_LT(earliest * 2, doc_kept) << "layer " << l << " cache head " << h << ": " << earliest << " of "
                                              << doc_kept << " kept document positions are the earliest ones";
            // Layer 0 cache head 1 (question marker / recent text) keeps a local window: the document's
            // last positions, up to the pooling kernel's reach.
            if (l == 0 && h == 1)
                EXPECT_GE(first_kept, doc_end - doc_kept - 8) << "recent text: kept from position " << first_kept;
        }
    }
    EXPECT_EQ(cache_heads, model.config.n_layers * model.config.n_kv_heads);
}

}  // namespace
}  // namespace snapdoc
