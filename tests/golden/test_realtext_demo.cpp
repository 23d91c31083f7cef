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

// Issue 37: the other kinds of text a Debian system ships, each on its own, generated at test time
// (nothing committed): Markdown READMEs (/usr/share/doc/*/README.md), HTML documentation
// (/usr/share/doc/*/*.html and one level deeper), Debian changelogs (/usr/share/doc/*/changelog.Debian.gz,
// through gzip -dc), C headers (/usr/include/*.h) and man pages rendered as text (/usr/share/man/man1/*.gz
// through gzip -dc | groff -Tutf8 -man | col -bx). A kind that is absent on this machine (or whose
// tools are) is skipped with a message; all absent skips the test. Each kind at two lengths, three facts
// at 10/50/90%, full KV and SnapKV B=1024; every answer must be exact. The facts are the demo's
// contract: entities and values from its lists, each one piece of its tokenizer (the issue's "4821" is
// not: see TheIssuesValueIsNotOneOfTheModelsValues). SNAPDOC_DEBIAN_LENGTHS=a,b,... changes the lengths.
namespace fs = std::filesystem;

// Regular files `dir/*` (depth 1) or `dir/*/*` (depth 2) ... whose name ends with `suffix` (or equals
// it when `exact`), sorted, at most `limit` spread over the sorted list.
std::vector<fs::path> files_under(const fs::path& dir, int depth, const std::string& suffix, bool exact, int limit) {
    std::vector<fs::path> out;
    std::error_code ec;
    std::vector<fs::path> level = {dir};
    for (int d = 1; d <= depth; ++d) {
        std::vector<fs::path> next;
        for (const fs::path& p : level)
            for (const auto& e : fs::directory_iterator(p, ec)) {
                const std::string name = e.path().filename().string();
                if (e.is_regular_file(ec) && (exact ? name == suffix : name.ends_with(suffix))) out.push_back(e.path());
                if (d < depth && e.is_directory(ec) && !e.is_symlink(ec)) next.push_back(e.path());
            }
        level = std::move(next);
    }
    std::sort(out.begin(), out.end());
    if (static_cast<int>(out.size()) <= limit) return out;
    std::vector<fs::path> spread;
    for (int i = 0; i < limit; ++i) spread.push_back(out[static_cast<std::size_t>(i) * out.size() / static_cast<std::size_t>(limit)]);
    return spread;
}

bool have_tool(const std::string& name) { return run_command("command -v " + name + " >/dev/null 2>&1").status == 0; }

// One kind's sources, or an empty list and why in `why`.
std::vector<eval::TextSource> debian_kind(const std::string& kind, std::string& why) {
    std::vector<eval::TextSource> out;
    auto add = [&](const fs::path& p, const std::string& text) {
        eval::TextSource s = eval::text_source(p, text);
        if (!s.paragraphs.empty()) out.push_back(std::move(s));
    };
    auto add_file = [&](const fs::path& p) {
        eval::TextSource s = eval::read_text_source(p);
        if (!s.paragraphs.empty()) out.push_back(std::move(s));
    };
    auto piped = [](const fs::path& p, const std::string& filter) {
        return run_command("gzip -dc '" + p.string() + "' 2>/dev/null" + filter).output;
    };
    if (kind == "markdown") {
        for (const fs::path& p : files_under("/usr/share/doc", 2, "README.md", true, 80)) add_file(p);
        why = "no /usr/share/doc/*/README.md";
    } else if (kind == "html") {
        for (const fs::path& p : files_under("/usr/share/doc", 3, ".html", false, 60)) add_file(p);
        why = "no /usr/share/doc/*/*.html";
    } else if (kind == "changelog") {
        if (!have_tool("gzip")) {
            why = "no gzip";
            return out;
        }
        for (const fs::path& p : files_under("/usr/share/doc", 2, "changelog.Debian.gz", true, 40)) add(p, piped(p, ""));
        why = "no /usr/share/doc/*/changelog.Debian.gz";
    } else if (kind == "code") {
        for (const fs::path& p : files_under("/usr/include", 1, ".h", false, 60)) add_file(p);
        why = "no /usr/include/*.h";
    } else if (kind == "man") {
        if (!have_tool("gzip") || !have_tool("groff") || !have_tool("col")) {
            why = "gzip, groff or col is missing";
            return out;
        }
        for (const fs::path& p : files_under("/usr/share/man/man1", 1, ".1.gz", false, 30))
            add(p, piped(p, " | groff -Tutf8 -man 2>/dev/null | col -bx"));
        why = "no /usr/share/man/man1/*.1.gz rendered to text";
    }
    return out;
}

TEST(RealTextDemo, AnswersFactsInEveryKindOfDebianText) {
    const auto path = demo_model_path();
    if (!std::filesystem::exists(path))
        GTEST_SKIP() << "demo model " << path.string() << " is absent (see docs/demo_model.md); skipping";
    const Model model = load_model(path);
    const Tokenizer tok = Tokenizer::from_model(model);
    auto backend = make_cpu_backend(model);
    const ChatTemplateKind chat_kind = choose_chat_template(model.chat_template, "");
    const eval::TokenCounter count = [](std::string_view s) { return static_cast<int>(s.size() * 2 / 3); };
    const std::vector<std::string> kinds = {"markdown", "html", "changelog", "code", "man"};
    int exact = 0, n = 0, present = 0;
    for (std::size_t k = 0; k < kinds.size(); ++k) {
        std::string why;
        const std::vector<eval::TextSource> sources = debian_kind(kinds[k], why);
        if (sources.empty()) {
            std::printf("debian text, %s: skipped (%s on this machine)\n", kinds[k].c_str(), why.c_str());
            continue;
        }
        ++present;
        for (int length : env_ints("SNAPDOC_DEBIAN_LENGTHS", {2048, 8192})) {
            eval::Rng rng(eval::mix_seed({37, static_cast<uint64_t>(k), static_cast<uint64_t>(length)}));
            const std::vector<eval::Fact> facts = eval::make_facts(rng, 3, 0.5);
            const eval::Document doc = eval::real_text_document(rng, sources, length, count, facts, {0.1, 0.5, 0.9});
            DocumentChat chat(*backend, tok, chat_kind);
            const int doc_tokens = chat.load_document(doc.text);
            for (int budget : {0, 1024}) {
                int exact_here = 0;
                for (const eval::Fact& f : doc.facts) {
                    AskOptions ask;
                    ask.snapkv.enabled = budget > 0;
                    ask.snapkv.budget = budget;
                    ask.snapkv.window = 32;
                    ask.max_new_tokens = 20;
                    const AskResult a = chat.ask(f.question(), ask);
                    const bool ok = eval::answer_matches(a.answer, f);
                    EXPECT_TRUE(ok) << kinds[k] << ", " << doc_tokens << " tokens, "
                                    << (budget ? "B=" + std::to_string(budget) : std::string("full KV")) << ": "
                                    << f.question() << " -> '" << a.answer << "' (expected '" << f.answer() << "')";
                    exact += ok;
                    exact_here += ok;
                    ++n;
                }
                std::printf("debian text, %s (%zu files), target %d, %d tokens, %s: %d of %zu exact\n", kinds[k].c_str(),
                            sources.size(), length, doc_tokens,
                            budget ? ("B=" + std::to_string(budget)).c_str() : "full KV", exact_here, doc.facts.size());
            }
        }
    }
    if (present == 0) GTEST_SKIP() << "none of the Debian text kinds is on this machine; skipping";
    RecordProperty("exact", exact);
    RecordProperty("asked", n);
    EXPECT_EQ(exact, n);
}

// The issue's failures ("… is the copper office is the copper office …", "The wing?", "The glass
// warehouse?") came from facts outside the demo's contract, not from the text around them: its value
// "4821" is not one of the model's 2000 values (it reads " is" " 4" "8" "2" "1", so the lookup copies
// "is" after the entity and the answer loops), and "west wing" / "glass warehouse" are not entities of
// its lists (several pieces, no entity flag: the echo stops after the first). The same document with
// pool values and entities is answered exactly (AnswersFactsInEveryKindOfDebianText).
TEST(RealTextDemo, TheIssuesValueIsNotOneOfTheModelsValues) {
    const auto path = demo_model_path();
    if (!std::filesystem::exists(path))
        GTEST_SKIP() << "demo model " << path.string() << " is absent (see docs/demo_model.md); skipping";
    const Model model = load_model(path);
    const Tokenizer tok = Tokenizer::from_model(model);
    EXPECT_EQ(tok.encode("copper office").size(), 1u);  // an entity of the lists: one piece
    EXPECT_EQ(tok.encode("is 3317").size(), 1u);        // a pool value with its verb: one piece
    EXPECT_GT(tok.encode("is 4821").size(), 1u);        // the issue's value: not a value of the model
    EXPECT_GT(tok.encode("glass warehouse").size(), 1u);
    EXPECT_GT(tok.encode("west wing").size(), 1u);
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
