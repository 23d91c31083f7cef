// Regression check on the committed demo model (resources/models/snapdoc-demo.gguf, trained by
// tools/demo_model/): it must answer a fixed set of needle-in-a-haystack questions at ~1K tokens
// correctly with SnapKV on (a ~12% budget) and with the full cache, and the eval-niah command must
// run end to end. Skips with a message when the model file is absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "app/eval/haystack.h"
#include "app/eval/niah.h"
#include "engine/model/model.h"
#include "engine/runtime/backend.h"
#include "engine/session/document_chat.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/repo_paths.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

using testing::demo_model_path;

class DemoModel : public ::testing::Test {
protected:
    void SetUp() override {
        path_ = demo_model_path();
        if (!std::filesystem::exists(path_))
            GTEST_SKIP() << "demo model " << path_.string()
                         << " is absent (train and export it with tools/demo_model, see docs/demo_model.md); skipping";
    }
    std::filesystem::path path_;
};

TEST_F(DemoModel, AnswersNeedleQuestionsWithSnapKv) {
    const Model model = load_model(path_);
    const Tokenizer tok = Tokenizer::from_model(model);
    auto backend = make_cpu_backend(model);
    const ChatTemplateKind kind = choose_chat_template(model.chat_template, "");
    ASSERT_EQ(kind, ChatTemplateKind::ChatML);
    DocumentChat chat(*backend, tok, kind);
    const eval::TokenCounter count = [&](std::string_view s) { return static_cast<int>(tok.encode(s).size()) + 1; };

    int full_ok = 0, snap_ok = 0, n = 0;
    for (int i = 0; i < 8; ++i) {
        eval::Rng rng(eval::mix_seed({2024, static_cast<uint64_t>(i)}));
        const double depth = i / 7.0;
        const eval::Needle nd = eval::needle_document(rng, 1000, count, depth);
        chat.load_document(nd.document.text);
        const std::string q = nd.needle.question();
        AskOptions full;
        full.snapkv.enabled = false;
        full.max_new_tokens = 24;
        const AskResult a = chat.ask(q, full);
        AskOptions snap;
        snap.snapkv.budget = 128;
        snap.snapkv.window = 32;
        snap.max_new_tokens = 24;
        const AskResult b = chat.ask(q, snap);
        EXPECT_TRUE(b.selection->compressed);
        EXPECT_LT(b.generation.kv_bytes_compressed * 5, b.generation.kv_bytes_full);
        const bool fa = eval::answer_matches(a.answer, nd.needle);
        const bool sb = eval::answer_matches(b.answer, nd.needle);
        EXPECT_TRUE(fa) << "full KV, depth " << depth << ": " << q << " expected " << nd.needle.answer() << ", got '"
                        << a.answer << "'";
        EXPECT_TRUE(sb) << "SnapKV B=128, depth " << depth << ": " << q << " expected " << nd.needle.value
                        << ", got '" << b.answer << "'";
        full_ok += fa;
        snap_ok += sb;
        ++n;
    }
    RecordProperty("full_correct", full_ok);
    RecordProperty("snapkv_correct", snap_ok);
    EXPECT_EQ(n, 8);
}

TEST_F(DemoModel, EvalNiahCommandRuns) {
    const testing::TempDir tmp_dir("snapdoc_golden_niah");  // unique: ctest runs tests in parallel
    const std::filesystem::path& dir = tmp_dir.path();
    const std::string cmd = std::string(SNAPDOC_CLI_PATH) + " eval-niah -m '" + path_.string() +
                            "' --lengths 256,512 --depths 0,50,100 --trials 1 --budgets full,64 --quiet --csv '" +
                            (dir / "niah.csv").string() + "' --png '" + (dir / "niah.png").string() + "'";
    const CommandResult r = run_command(cmd);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("B=64"), std::string::npos) << r.output;
    EXPECT_TRUE(std::filesystem::exists(dir / "niah.csv"));
    EXPECT_TRUE(std::filesystem::exists(dir / "niah-full.png"));
    EXPECT_TRUE(std::filesystem::exists(dir / "niah-b64.png"));
    const std::string csv = read_text_file(dir / "niah.csv");
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 2 * 2 * 3);
}

}  // namespace
}  // namespace snapdoc
