// Partial prefix reuse: a pasted document whose end was edited, or to which text was appended,
// takes the K/V of the tokens it shares with the document held from an earlier request (the
// token-level longest common prefix) and prefills only the rest; usage says exactly how many were
// reused, and the greedy answer equals a fresh server's for the same prompt.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/server/server_process.h"
#include "tests/support/temp_dir.h"

namespace snapdoc::test {
namespace {

using nlohmann::json;

const char* kQuestion = "What is the alarm code for the south office?";

// The report with its last paragraph (line) replaced by a longer one.
std::string edited_report() {
    std::string t = demo_report();
    t.erase(t.rfind('\n') + 1);
    return t +
           "It was dark in the harbor district during the long storm, and the lamps on the pier were lit "
           "early.";
}

json pasted(const std::string& document) {
    json b = chat_body(document + "\n\nQuestion: " + kQuestion, 48);
    b["snapkv"] = {{"budget", 128}};
    return b;
}

std::vector<int> tokens_of(int port, const std::string& text) {
    const json j = post_json(port, "/tokenize", {{"content", text}}).json();
    return j.at("tokens").get<std::vector<int>>();
}

int common_prefix(const std::vector<int>& a, const std::vector<int>& b) {
    return static_cast<int>(std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first - a.begin());
}

json ask(int port, const json& body) {
    const Reply r = post_json(port, "/v1/chat/completions", body);
    EXPECT_EQ(r.status, 200) << r.body;
    return r.json();
}

std::string content(const json& reply) {
    return reply["choices"][0]["message"]["content"].get<std::string>();
}

class ServerPrefixReuse : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    }
    std::vector<std::string> args() const {
        return {"-m", demo_model_path().string(), "--no-cache", "--snapkv-min-tokens", "1024"};
    }
};

TEST_F(ServerPrefixReuse, AnEditedLastParagraphReusesExactlyTheCommonPrefixAndAnswersAsAFreshServer) {
    ServerProcess s(args());
    const json first = ask(s.port(), pasted(demo_report()));
    ASSERT_EQ(first["usage"]["snapkv"]["session"], "new") << first.dump();
    // The document part is the template's opening, then the text before the question's paragraph
    // break, encoded on its own: the expected reuse is the opening plus the texts' common tokens.
    const std::vector<int> old_text = tokens_of(s.port(), demo_report() + "\n\n");
    const std::vector<int> new_text = tokens_of(s.port(), edited_report() + "\n\n");
    const int opening =
        first["usage"]["snapkv"]["document_tokens"].get<int>() - static_cast<int>(old_text.size());
    ASSERT_GE(opening, 0);
    const int expected = opening + common_prefix(old_text, new_text);
    ASSERT_LT(expected, opening + static_cast<int>(old_text.size())) << "the edit changed no token";

    const json edited = ask(s.port(), pasted(edited_report()));
    EXPECT_EQ(edited["usage"]["snapkv"]["session"], "partial") << edited.dump();
    EXPECT_EQ(edited["usage"]["snapkv"]["document_tokens"].get<int>(),
              opening + static_cast<int>(new_text.size()));
    EXPECT_EQ(edited["usage"]["prompt_tokens_details"]["cached_tokens"].get<int>(), expected);
    EXPECT_EQ(edited["usage"]["snapkv"]["reused_tokens"].get<int>(), expected);

    // The same question again is served from the new session as a whole.
    const json again = ask(s.port(), pasted(edited_report()));
    EXPECT_EQ(again["usage"]["snapkv"]["session"], "ram");
    EXPECT_EQ(content(again), content(edited));

    ServerProcess fresh(args());
    const json alone = ask(fresh.port(), pasted(edited_report()));
    EXPECT_EQ(alone["usage"]["snapkv"]["session"], "new");
    EXPECT_EQ(content(edited), content(alone));
}

TEST_F(ServerPrefixReuse, AnAppendedDocumentReusesTheWholeOldOne) {
    // Appended after a paragraph break, so the old text's tokens (up to its break) stay as they
    // were; appended within the last line, the old part's closing "\n\n" token is not shared.
    const std::string appended =
        demo_report() +
        "\n\nIn the harbor district, the gate code for the west pier is 6142, and it changes in spring.";
    // --max-tail 32: the appended paragraph and the question do not fit one tail run, so the
    // longer document gets a session of its own, built on the old one (with the default, the
    // old session serves it with the paragraph in the tail: reused as a whole too).
    std::vector<std::string> a = args();
    a.insert(a.end(), {"--max-tail", "32"});
    ServerProcess s(a);
    const json first = ask(s.port(), pasted(demo_report()));
    const int old_part = first["usage"]["snapkv"]["document_tokens"].get<int>();
    const json longer = ask(s.port(), pasted(appended));
    EXPECT_EQ(longer["usage"]["snapkv"]["session"], "partial") << longer.dump();
    EXPECT_GT(longer["usage"]["snapkv"]["document_tokens"].get<int>(), old_part);
    EXPECT_EQ(longer["usage"]["prompt_tokens_details"]["cached_tokens"].get<int>(), old_part);

    ServerProcess fresh(a);
    EXPECT_EQ(content(longer), content(ask(fresh.port(), pasted(appended))));
}

TEST_F(ServerPrefixReuse, AnEvictedDocumentIsReusedFromItsKvCacheFile) {
    snapdoc::testing::TempDir dir("server-prefix-kv");
    // A RAM cap of 0 keeps only the session in use: the report's session is evicted by the next one.
    ServerProcess s({"-m", demo_model_path().string(), "--cache-dir", (dir.path() / "kv").string(),
                     "--snapkv-min-tokens", "1024", "--session-ram-mb", "0"});
    const json first = ask(s.port(), pasted(demo_report()));
    ASSERT_EQ(first["usage"]["snapkv"]["session"], "new") << first.dump();
    ask(s.port(), chat_body("Hello", 4));
    ASSERT_GE(http_get(s.port(), "/props").json()["sessions"]["evicted"].get<int>(), 1);
    const json edited = ask(s.port(), pasted(edited_report()));
    EXPECT_EQ(edited["usage"]["snapkv"]["session"], "partial") << edited.dump();
    EXPECT_GT(edited["usage"]["prompt_tokens_details"]["cached_tokens"].get<int>(), 1500);
}

TEST_F(ServerPrefixReuse, APromptSharingOnlyTheTemplateOpeningIsPrefilledOnItsOwn) {
    ServerProcess s(args());
    ask(s.port(), pasted(demo_report()));
    // The same lines in reverse order: only the template's opening is shared.
    std::string text = demo_report(), reversed;
    for (std::size_t end = text.size(); end != std::string::npos && end > 0;) {
        const std::size_t start = text.rfind('\n', end - 1);
        const std::size_t from = start == std::string::npos ? 0 : start + 1;
        reversed += text.substr(from, end - from) + "\n";
        end = start == std::string::npos ? std::string::npos : start;
    }
    const json other = ask(s.port(), pasted(reversed));
    EXPECT_EQ(other["usage"]["snapkv"]["session"], "new") << other.dump();
    EXPECT_EQ(other["usage"]["prompt_tokens_details"]["cached_tokens"], 0);
}

}  // namespace
}  // namespace snapdoc::test
