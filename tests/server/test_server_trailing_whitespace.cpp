// A pasted document is the same document whatever whitespace ends it (issue 37, major 4): a file
// read whole (open().read()) ends in a newline, so "{doc}\n" + "\n\nQuestion: q" must find the
// session held for "{doc}\n\nQuestion: q", and the K/V cache file `snapdoc-cli ask --doc` (and the
// app) wrote for the file, instead of prefilling it again.
#include <gtest/gtest.h>

#include <fstream>

#include "tests/server/server_process.h"
#include "tests/support/temp_dir.h"

namespace snapdoc::test {
namespace {

using nlohmann::json;
using snapdoc::testing::TempDir;

const char* kQ1 = "What is the batch number for the green office?";
const char* kQ2 = "What is the alarm code for the south office?";

json ask(int port, const std::string& user) {
    json b = chat_body(user, 32);
    b["snapkv"] = {{"budget", 128}};
    const Reply r = post_json(port, "/v1/chat/completions", b);
    EXPECT_EQ(r.status, 200) << r.body;
    return r.json();
}

class ServerTrailingWhitespace : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    }
};

TEST_F(ServerTrailingWhitespace, HeldSessionServesTheDocumentWithTrailingNewlinesOrSpaces) {
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache", "--snapkv-min-tokens", "1024"});
    const json first = ask(s.port(), demo_report() + "\n\nQuestion: " + kQ1);
    ASSERT_EQ(first["usage"]["snapkv"]["session"], "new") << first.dump();
    const int doc_tokens = first["usage"]["snapkv"]["document_tokens"];
    ASSERT_GT(doc_tokens, 1500);
    for (const std::string& end : {"\n", "\n\n", "  ", " \n \n\t"}) {
        SCOPED_TRACE("document ends in " + json(end).dump());
        const json r = ask(s.port(), demo_report() + end + "\n\nQuestion: " + kQ2);
        EXPECT_EQ(r["usage"]["snapkv"]["session"], "ram") << r.dump();
        EXPECT_EQ(r["usage"]["snapkv"]["document_tokens"], doc_tokens) << r.dump();
        EXPECT_GE(r["usage"]["prompt_tokens_details"]["cached_tokens"].get<int>(), doc_tokens) << r.dump();
    }
    // Whitespace after the break is the same question: the same prompt, so the same greedy answer.
    const json again = ask(s.port(), demo_report() + "\n\n\n  Question: " + kQ1);
    EXPECT_EQ(again["usage"]["prompt_tokens"], first["usage"]["prompt_tokens"]) << again.dump();
    EXPECT_EQ(again["choices"][0]["message"]["content"], first["choices"][0]["message"]["content"]);
}

TEST_F(ServerTrailingWhitespace, FileReadWholeFindsTheCliKvCacheFile) {
    TempDir dir("server-trailing-nl");
    const auto doc = dir.path() / "report.txt";
    std::ofstream(doc) << demo_report() << "\n";  // as a text file ends
    const auto kv = dir.path() / "kv";
    // `ask` keys its cache file on the document as read from the file (trimmed), as the app does.
    const CommandResult cli =
        run_command(std::string(SNAPDOC_CLI_PATH) + " ask -m " + demo_model_path().string() + " --doc " +
                    doc.string() + " -q '" + kQ1 + "' -n 1 --cache-dir " + kv.string() + " 2>&1");
    ASSERT_EQ(cli.status, 0) << cli.output;

    ServerProcess s({"-m", demo_model_path().string(), "--cache-dir", kv.string(), "--snapkv-min-tokens", "1024"});
    // The file's text as a client reads it whole, trailing newline included.
    const json r = ask(s.port(), read_text(doc) + "\n\nQuestion: " + kQ2);
    EXPECT_EQ(r["usage"]["snapkv"]["session"], "kv-cache") << r.dump();
    const int doc_tokens = r["usage"]["snapkv"]["document_tokens"];
    EXPECT_GT(doc_tokens, 1500);
    EXPECT_GE(r["usage"]["prompt_tokens_details"]["cached_tokens"].get<int>(), doc_tokens) << r.dump();
}

}  // namespace
}  // namespace snapdoc::test
