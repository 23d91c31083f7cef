// Issue 39, items 7, 9 and 12: inputs that cost the server too much or crashed it.
//  - A prompt whose bytes alone cannot fit the context is refused (400 exceed_context_size_error)
//    before it is tokenized: no seconds of tokenizing on an HTTP thread, no GiB of memory.
//  - A K/V cache file truncated while the session restored from it is held: the session still
//    answers right, the server lives (it used to die of SIGBUS on the mapped file).
//  - A multipart document upload that is not UTF-8 is refused, as a JSON one is.
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>

#include "tests/server/server_process.h"
#include "tests/support/temp_dir.h"

namespace snapdoc::test {
namespace {

using nlohmann::json;
using snapdoc::testing::TempDir;
namespace fs = std::filesystem;

class ServerInputs : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(demo_model_path())) GTEST_SKIP() << "demo model absent; skipping";
    }
};

void expect_context_refusal(const Reply& r) {
    ASSERT_EQ(r.status, 400) << r.body.substr(0, 400);
    EXPECT_EQ(r.json()["error"]["code"], "exceed_context_size_error") << r.body;
}

TEST_F(ServerInputs, APromptTooLongInBytesIsRefusedBeforeTokenizing) {
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache"});
    const json props = http_get(s.port(), "/props").json();
    const int per_token = props["prompt_bytes_per_token"].get<int>();
    ASSERT_GT(per_token, 0) << "the demo model's tokenizer should give a bound";
    // 16 MiB of text (a quarter of --max-body-mb's 64): tokenized whole it took seconds and ~1 GiB.
    const std::string text(16u << 20, 'a');
    ASSERT_GT(static_cast<int64_t>(text.size()) / per_token, props["context_length"].get<int64_t>());
    const int64_t rss_before = s.peak_rss_bytes();

    expect_context_refusal(post_json(s.port(), "/v1/chat/completions", chat_body(text, 8)));
    expect_context_refusal(post_json(s.port(), "/v1/completions", {{"prompt", text}, {"max_tokens", 8}}));
    expect_context_refusal(post_json(s.port(), "/v1/documents", {{"text", text}}));
    expect_context_refusal(post_json(s.port(), "/tokenize", {{"content", text}}));
    // The body itself (a few copies while read and parsed) is all the memory it costs.
    EXPECT_LT(s.peak_rss_bytes() - rss_before, int64_t{256} << 20);
    // A prompt that fits is still answered.
    EXPECT_EQ(post_json(s.port(), "/v1/chat/completions", chat_body("Hello", 4)).status, 200);
}

TEST_F(ServerInputs, MultipartUploadsThatAreNotUtf8AreRefused) {
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache"});
    httplib::Client c("127.0.0.1", s.port());
    c.set_read_timeout(60, 0);
    const httplib::MultipartFormDataItems bad = {{"file", "caf\xC3 au lait \xFF\xFE", "doc.txt", "text/plain"}};
    auto r = c.Post("/v1/documents", bad);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << r->body;
    EXPECT_NE(r->body.find("UTF-8"), std::string::npos) << r->body;
    const httplib::MultipartFormDataItems bad_system = {{"file", "A short note.", "doc.txt", "text/plain"},
                                                        {"system", "\xC0\xAF", "system.txt", "text/plain"}};
    r = c.Post("/v1/documents", bad_system);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << r->body;
    const httplib::MultipartFormDataItems good = {{"file", "caf\xC3\xA9 au lait", "doc.txt", "text/plain"}};
    r = c.Post("/v1/documents", good);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 202) << r->body;
}

json pasted(const std::string& question) {
    json b = chat_body(demo_report() + "\n\nQuestion: " + question, 256);
    b["snapkv"] = {{"budget", 128}};
    return b;
}

TEST_F(ServerInputs, TruncatingTheKvCacheFileOfAHeldSessionDoesNotCrashTheServer) {
    TempDir dir("server-kv-truncate");
    const fs::path kv = dir.path() / "kv";
    // A RAM cap of 0 keeps only the session in use: the next prompt evicts the document's.
    ServerProcess s({"-m", demo_model_path().string(), "--cache-dir", kv.string(), "--snapkv-min-tokens",
                     "1024", "--session-ram-mb", "0"});
    const char* q = "What is the alarm code for the south office?";
    ASSERT_EQ(post_json(s.port(), "/v1/chat/completions", pasted(q)).status, 200);
    ASSERT_EQ(post_json(s.port(), "/v1/chat/completions", chat_body("Hello", 4)).status, 200);
    const json back = post_json(s.port(), "/v1/chat/completions", pasted(q)).json();
    ASSERT_EQ(back["usage"]["snapkv"]["session"], "kv-cache") << back.dump();

    // The session restored from the file is held; someone cuts the file under it.
    int cut = 0;
    for (const auto& e : fs::directory_iterator(kv))
        if (e.path().extension() == ".snapkv") {
            fs::resize_file(e.path(), 4096);
            ++cut;
        }
    ASSERT_GE(cut, 1);
    const Reply again = post_json(s.port(), "/v1/chat/completions", pasted(q));
    ASSERT_EQ(again.status, 200) << again.body << "\n" << s.stderr_text();
    const std::string answer = again.json()["choices"][0]["message"]["content"].get<std::string>();
    EXPECT_NE(answer.find("3013"), std::string::npos) << answer;
    EXPECT_EQ(http_get(s.port(), "/health").status, 200);
}

}  // namespace
}  // namespace snapdoc::test
