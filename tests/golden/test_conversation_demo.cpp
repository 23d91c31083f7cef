// Conversations and citations on the committed demo model (resources/models/snapdoc-demo.gguf, see
// docs/demo_model.md): a two-turn conversation answers a follow-up about a different fact, the top
// citation of a needle answer covers the needle sentence, and `snapdoc-cli ask --conversation`
// runs its questions as turns (only the new turn through the layers) and prints citations. Skips
// with a message when the model file is absent.
#include <cstdio>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/model/model.h"
#include "engine/runtime/backend.h"
#include "engine/session/document_chat.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/fixtures.h"
#include "tests/support/repo_paths.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

using testing::demo_model_path;
using testing::repo_root;

class ConversationDemo : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(demo_model_path()))
            GTEST_SKIP() << "demo model " << demo_model_path().string() << " is absent (docs/demo_model.md); skipping";
        model_ = std::make_unique<Model>(load_model(demo_model_path()));
        tok_ = std::make_unique<Tokenizer>(Tokenizer::from_model(*model_));
        backend_ = make_cpu_backend(*model_);
    }
    std::unique_ptr<Model> model_;
    std::unique_ptr<Tokenizer> tok_;
    std::unique_ptr<Backend> backend_;
};

// The committed sample document and its questions (resources/samples/demo-report.*: made for the
// committed model, so they stay in step with it).
struct SampleQuestion {
    std::string question, value, entity;  // entity: "green office" from "... for the green office?"
};
std::vector<SampleQuestion> sample_questions() {
    std::vector<SampleQuestion> out;
    std::istringstream in(read_text_file(repo_root() / "resources" / "samples" / "demo-report.questions.tsv"));
    for (std::string line; std::getline(in, line);) {
        const auto tab = line.find('\t');
        if (tab == std::string::npos) continue;
        SampleQuestion q{line.substr(0, tab), line.substr(tab + 1), {}};
        const auto f = q.question.rfind("for the ");
        if (f != std::string::npos) q.entity = q.question.substr(f + 8, q.question.size() - f - 9);
        out.push_back(q);
    }
    return out;
}
std::string sample_text() { return read_text_file(repo_root() / "resources" / "samples" / "demo-report.txt"); }
bool states(const std::string& answer, const SampleQuestion& q) {
    return answer.find("for the " + q.entity + " is " + q.value + ".") != std::string::npos;
}

// Turn 2 asks about another fact than turn 1, with turn 1 in the prompt, full KV and SnapKV. The
// demo model was trained on one question per document: on the 56 ordered pairs of the sample's
// questions the long-context model (issue 15) answers both turns right 40 times with full KV and 40
// with SnapKV at 128 (the first model: 29 and 28); most misses are follow-ups about the sample's
// first three facts — the model's limit, not the engine's (docs/RESULTS.md). These pairs it gets
// right; a wrong history K/V, position or layout breaks them.
TEST_F(ConversationDemo, AFollowUpAboutAnotherFactIsAnsweredRight) {
    const auto qs = sample_questions();
    ASSERT_GE(qs.size(), 8u);
    DocumentChat chat(*backend_, *tok_, ChatTemplateKind::ChatML);
    chat.load_document(sample_text());
    for (const auto& [i, j] : {std::pair{0, 4}, std::pair{3, 6}, std::pair{7, 0}, std::pair{2, 1}, std::pair{4, 5}}) {
        for (const bool compress : {false, true}) {
            SCOPED_TRACE(qs[i].question + " then " + qs[j].question + (compress ? " (snapkv)" : " (full)"));
            AskOptions o;
            o.snapkv.enabled = compress;
            o.snapkv.budget = 128;
            o.max_new_tokens = 24;
            const AskResult a1 = chat.ask(qs[i].question, o);
            EXPECT_TRUE(states(a1.answer, qs[i])) << a1.answer;
            o.history = {{qs[i].question, a1.answer}};
            const AskResult a2 = chat.ask(qs[j].question, o);
            EXPECT_GT(a2.history_tokens, 0);
            EXPECT_GT(a2.reused_tokens, a1.question_tokens);  // turn 1's question and answer were stored
            EXPECT_TRUE(states(a2.answer, qs[j])) << a2.answer;
        }
    }
}

// The top citation of each answer covers the fact sentence it restates (full KV and SnapKV).
TEST_F(ConversationDemo, TheTopCitationCoversTheNeedleSentence) {
    const auto qs = sample_questions();
    DocumentChat chat(*backend_, *tok_, ChatTemplateKind::ChatML);
    chat.load_document(sample_text());
    for (const SampleQuestion& q : qs)
        for (const bool compress : {false, true}) {
            SCOPED_TRACE(q.question + (compress ? " (snapkv)" : " (full)"));
            AskOptions o;
            o.snapkv.enabled = compress;
            o.snapkv.budget = 128;
            o.max_new_tokens = 24;
            const AskResult a = chat.ask(q.question, o);
            ASSERT_TRUE(states(a.answer, q)) << a.answer;
            ASSERT_FALSE(a.citations.empty());
            const Citation& top = a.citations.front();
            const std::string text = chat.document_excerpt(top.first_token, top.last_token, 100000);
            EXPECT_NE(text.find(a.answer), std::string::npos)
                << "top citation [" << top.first_token << ", " << top.last_token << "] weight " << top.weight
                << " reads '" << text << "'";
            EXPECT_GT(top.weight, 0.01);
            // Issue 23, item 10: the needle stands out from the background and nothing else is
            // cited (one or two unrelated ~1% passages were).
            EXPECT_FALSE(top.weak) << "lift " << top.lift;
            for (const Citation& c : a.citations)
                std::printf("  citation [%d, %d] weight %.4f lift %.2f%s\n", c.first_token, c.last_token, c.weight,
                            c.lift, c.weak ? " (weak)" : "");
            EXPECT_EQ(a.citations.size(), 1u);
        }
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// `ask --conversation`: the second question is a turn after the first (history in the prompt,
// only the new turn run), citations printed and in the JSON; without it both are independent.
TEST_F(ConversationDemo, CliAsksQuestionsAsTurnsOfOneConversation) {
    const auto sample = repo_root() / "resources" / "samples" / "demo-report.txt";
    ASSERT_TRUE(std::filesystem::exists(sample));
    testing::TempDir dir("snapdoc-conversation-cli");
    const auto qs = sample_questions();
    const std::string q1 = qs.at(0).question, q2 = qs.at(4).question;
    for (const bool conversation : {true, false}) {
        const auto json_out = dir.path() / (conversation ? "conv.json" : "plain.json");
        // A throw-away cache folder: the CLI may keep K/V cache files under XDG_CACHE_HOME.
        const std::string cmd = "XDG_CACHE_HOME=" + quoted((dir.path() / "cache").string()) + " " +
                                std::string(SNAPDOC_CLI_PATH) + " ask -m " + quoted(demo_model_path().string()) +
                                " --doc " + quoted(sample.string()) + " -q " + quoted(q1) + " -q " + quoted(q2) +
                                " -n 24 --budget 128" + (conversation ? " --conversation" : "") + " --json " +
                                quoted(json_out.string());
        const CommandResult r = run_command(cmd + " 2>/dev/null");
        ASSERT_EQ(r.status, 0) << r.output;
        // stdout: answer, citation lines, answer, citation lines.
        EXPECT_NE(r.output.find(qs[0].entity + " is " + qs[0].value + "."), std::string::npos) << r.output;
        EXPECT_NE(r.output.find(qs[4].entity + " is " + qs[4].value + "."), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("  [1] tokens "), std::string::npos) << r.output;
        const nlohmann::json out = nlohmann::json::parse(read_text_file(json_out));
        EXPECT_EQ(out.at("conversation").get<bool>(), conversation);
        const auto& answers = out.at("answers");
        ASSERT_EQ(answers.size(), 2u);
        EXPECT_EQ(answers[0].at("history_tokens").get<int>(), 0);
        if (conversation) {
            EXPECT_GT(answers[1].at("history_tokens").get<int>(), 0);
            EXPECT_GT(answers[1].at("reused_tokens").get<int>(), answers[0].at("question_tokens").get<int>());
            EXPECT_LT(answers[1].at("forwarded_tokens").get<int>(), answers[1].at("question_tokens").get<int>() + 8);
            EXPECT_EQ(answers[1].at("prompt_tokens").get<int>(),
                      answers[0].at("prompt_tokens").get<int>() + answers[1].at("history_tokens").get<int>() -
                          answers[0].at("question_tokens").get<int>() + answers[1].at("question_tokens").get<int>());
        } else {
            EXPECT_EQ(answers[1].at("history_tokens").get<int>(), 0);
        }
        for (const auto& a : answers) {
            ASSERT_FALSE(a.at("citations").empty());
            const std::string text = a.at("citations")[0].at("text");
            const std::string value = a.at("answer").get<std::string>();
            EXPECT_NE(text.find(value.substr(value.size() - 5, 4)), std::string::npos) << text << " / " << value;
        }
    }
}

}  // namespace
}  // namespace snapdoc
