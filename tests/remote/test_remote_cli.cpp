// snapdoc-cli ask/models --remote end to end: against the real snapdoc-server (document sessions and
// citations), the fake engines (plain chat, the fit check), and a TLS fake with a self-signed
// certificate (untrusted, --ca-cert, --insecure).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "tests/remote/cli_run.h"
#include "tests/remote/fake_engine.h"
#include "tests/server/self_signed_cert.h"
#include "tests/server/server_process.h"

namespace snapdoc::test {
namespace {

namespace fs = std::filesystem;

TEST(RemoteCli, AskAgainstSnapdocServerUsesItsDocumentSessionAndCitations) {
    if (!fs::exists(demo_model_path())) GTEST_SKIP() << "demo model not found: " << demo_model_path();
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache", "--api-key", "team-key"});
    const fs::path doc = write_file("report.txt", demo_report() + "\n");
    const fs::path json = temp_path("answer.json");
    const CliRun r = cli({"ask", "--remote", s.url() + "/v1/", "--api-key", "team-key", "--doc", doc.string(), "-q",
                          "What was the total revenue?", "-q", "Who wrote the report?", "-n", "16", "--json",
                          json.string()});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("remote: snapdoc-server at " + s.url()), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("  [1] tokens "), std::string::npos) << r.out;  // the citations, as a local ask prints them
    const auto j = nlohmann::json::parse(read_text(json));
    EXPECT_EQ(j["remote"]["engine"], "snapdoc-server");
    ASSERT_EQ(j["answers"].size(), 2u);
    for (const auto& a : j["answers"]) {
        EXPECT_FALSE(a["answer"].get<std::string>().empty());
        ASSERT_TRUE(a["citations"].is_array());
        EXPECT_FALSE(a["citations"].empty());
        EXPECT_TRUE(a["citations"][0].contains("first_token"));
        EXPECT_TRUE(a["citations"][0].contains("text"));
    }
    // The document was uploaded once, as a document session: the server holds exactly one.
    const Reply docs = http_get(s.port(), "/v1/documents", {{"Authorization", "Bearer team-key"}});
    ASSERT_EQ(docs.status, 200);
    ASSERT_EQ(docs.json()["data"].size(), 1u);
    EXPECT_EQ(docs.json()["data"][0]["id"], j["remote"]["document_id"]);
    EXPECT_GT(j["document_tokens"].get<int>(), 100);

    // The same answer as a local ask with the same model and document (temperature 0).
    const CliRun local = cli({"ask", "-m", demo_model_path().string(), "--no-cache", "--doc", doc.string(), "-q",
                              "What was the total revenue?", "-n", "16"});
    ASSERT_EQ(local.status, 0) << local.err;
    const std::string remote_first = j["answers"][0]["answer"].get<std::string>();
    EXPECT_NE(local.out.find(remote_first), std::string::npos) << local.out << "\nremote: " << remote_first;

    const CliRun m = cli({"models", "--remote", s.url(), "--api-key", "team-key"});
    ASSERT_EQ(m.status, 0) << m.err;
    EXPECT_NE(m.out.find("snapdoc-server /props context_length"), std::string::npos) << m.out;
    const CliRun wrong = cli({"models", "--remote", s.url(), "--api-key", "not-the-key"});
    EXPECT_EQ(wrong.status, 1);
    EXPECT_NE(wrong.err.find("HTTP 401"), std::string::npos) << wrong.err;
    fs::remove(doc);
    fs::remove(json);
}

TEST(RemoteCli, AskAgainstVllmPutsTheDocumentInThePromptWithoutCitations) {
    FakeEngine e;
    add_vllm_routes(e, "meta-llama/Llama-3.1-8B-Instruct", 4096);
    e.start();
    const fs::path doc = write_file("small.txt", "The sky is green on Tuesdays.\n\n");
    const fs::path json = temp_path("vllm.json");
    const CliRun r = cli({"ask", "--remote", e.url("/v1"), "--doc", doc.string(), "-q", "What colour is the sky?",
                          "--system", "Be brief.", "--json", json.string()});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "The answer is 42.\n");
    const auto j = nlohmann::json::parse(read_text(json));
    EXPECT_EQ(j["remote"]["engine"], "vLLM");
    EXPECT_EQ(j["remote"]["context"], 4096);
    EXPECT_EQ(j["answers"][0]["answer"], "The answer is 42.");
    EXPECT_FALSE(j["answers"][0].contains("citations"));
    EXPECT_EQ(e.chat_requests.load(), 1);
    const CliRun m = cli({"models", "--remote", e.url()});
    ASSERT_EQ(m.status, 0) << m.err;
    EXPECT_NE(m.out.find("vLLM at " + e.url()), std::string::npos) << m.out;
    EXPECT_NE(m.out.find("4096"), std::string::npos) << m.out;
    fs::remove(doc);
    fs::remove(json);
}

TEST(RemoteCli, TheDocumentLaidOutAsALocalAskLaysItOut) {
    FakeEngine e;
    nlohmann::json seen;
    std::mutex mu;
    e.http().Get("/v1/models", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(R"({"object":"list","data":[{"id":"m","object":"model","owned_by":"vllm","max_model_len":8192}]})",
                        "application/json");
    });
    e.http().Post("/v1/chat/completions", [&](const httplib::Request& req, httplib::Response& res) {
        std::lock_guard lock(mu);
        seen = nlohmann::json::parse(req.body);
        res.set_content(sse_answer("m", {"ok"}), "text/event-stream");
    });
    e.start();
    const fs::path doc = write_file("layout.txt", "  Line one.\n\nLine two.\n\n\n");
    const CliRun r = cli({"ask", "--remote", e.url(), "--doc", doc.string(), "-q", " Why? ", "--system", "Sys",
                          "-n", "20", "--temp", "0"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::lock_guard lock(mu);
    EXPECT_EQ(seen["messages"], nlohmann::json::parse(
                                    R"([{"role":"system","content":"Sys"},{"role":"user","content":"Line one.\n\nLine two.\n\nQuestion: Why?"}])"));
    EXPECT_EQ(seen["max_tokens"], 20);
    EXPECT_EQ(seen["temperature"], 0.0);
    EXPECT_EQ(seen["stream"], true);
    fs::remove(doc);
}

// Several --doc against a plain engine: one user message with each document under its title, in
// order, as a local ask lays them out (app/common/document_set.h).
TEST(RemoteCli, SeveralDocumentsAreLaidOutUnderTheirTitlesInOrder) {
    FakeEngine e;
    nlohmann::json seen;
    int posts = 0;
    std::mutex mu;
    e.http().Get("/v1/models", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(R"({"object":"list","data":[{"id":"m","object":"model","owned_by":"vllm","max_model_len":8192}]})",
                        "application/json");
    });
    e.http().Post("/v1/chat/completions", [&](const httplib::Request& req, httplib::Response& res) {
        std::lock_guard lock(mu);
        seen = nlohmann::json::parse(req.body);
        ++posts;
        res.set_content(sse_answer("m", {"ok"}), "text/event-stream");
    });
    e.start();
    const fs::path a = write_file("alpha.txt", "Alpha text.\n"), b = write_file("beta.md", "\nBeta text.\n\n");
    const fs::path json = temp_path("two.json");
    const CliRun r = cli({"ask", "--remote", e.url(), "--doc", a.string(), "--doc", b.string(), "-q", "Why?", "--json",
                          json.string()});
    ASSERT_EQ(r.status, 0) << r.err;
    {
        std::lock_guard lock(mu);
        ASSERT_EQ(seen["messages"].size(), 1u) << seen.dump();
        EXPECT_EQ(seen["messages"][0]["content"], "Document 1: " + a.filename().string() + "\n\nAlpha text.\n\n" +
                                                      "Document 2: " + b.filename().string() +
                                                      "\n\nBeta text.\n\nQuestion: Why?");
    }
    const auto j = nlohmann::json::parse(read_text(json));
    EXPECT_FALSE(j.contains("document"));
    ASSERT_EQ(j["documents"].size(), 2u);
    EXPECT_EQ(j["documents"][1]["document"], b.filename().string());
    // A missing second document: refused by name before anything is sent, no --json.
    const int before = [&] {
        std::lock_guard lock(mu);
        return posts;
    }();
    fs::remove(json);
    const CliRun bad = cli({"ask", "--remote", e.url(), "--doc", a.string(), "--doc", temp_path("gone.txt").string(),
                            "-q", "Why?", "--json", json.string()});
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.err.find("document 2 of 2"), std::string::npos) << bad.err;
    EXPECT_NE(bad.err.find("gone.txt"), std::string::npos) << bad.err;
    EXPECT_FALSE(fs::exists(json));
    {
        std::lock_guard lock(mu);
        EXPECT_EQ(posts, before);
        EXPECT_EQ(posts, 1);
    }
    fs::remove(a);
    fs::remove(b);
}

// Several --doc against snapdoc-server: each uploaded under its file name, asked with "document_ids";
// the citations name the document.
TEST(RemoteCli, SeveralDocumentsOnSnapdocServerAreUploadedAndCitedByName) {
    if (!fs::exists(demo_model_path())) GTEST_SKIP() << "demo model not found: " << demo_model_path();
    ServerProcess s({"-m", demo_model_path().string(), "--no-cache"});
    const fs::path a = write_file("notes.txt", "The harbour office opens at nine.\nThe mill closes on Fridays.\n");
    const fs::path b = write_file("report.txt", demo_report() + "\n");
    const fs::path json = temp_path("server-two.json");
    const CliRun r = cli({"ask", "--remote", s.url(), "--doc", a.string(), "--doc", b.string(), "-q",
                          "What was the total revenue?", "-n", "16", "--json", json.string()});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(read_text(json));
    ASSERT_EQ(j["remote"]["document_ids"].size(), 2u) << j.dump();
    ASSERT_EQ(j["documents"].size(), 2u);
    EXPECT_EQ(j["documents"][1]["document_id"], j["remote"]["document_ids"][1]);
    const auto& citations = j["answers"][0]["citations"];
    ASSERT_FALSE(citations.empty()) << j.dump();
    for (const auto& c : citations) {
        const std::string name = c.value("document", "");
        EXPECT_TRUE(name == a.filename().string() || name == b.filename().string()) << citations.dump();
    }
    EXPECT_NE(r.out.find("  [1] " + citations[0]["document"].get<std::string>() + ", tokens "), std::string::npos)
        << r.out;
    const Reply docs = http_get(s.port(), "/v1/documents");
    ASSERT_EQ(docs.status, 200);
    EXPECT_EQ(docs.json()["data"].size(), 2u);
    fs::remove(a);
    fs::remove(b);
    fs::remove(json);
}

TEST(RemoteCli, AConversationSendsTheEarlierTurnsAsALocalConversationLaysThemOut) {
    FakeEngine e;
    std::vector<nlohmann::json> seen;
    std::mutex mu;
    e.http().Get("/v1/models", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(R"({"object":"list","data":[{"id":"m","object":"model","owned_by":"vllm","max_model_len":8192}]})",
                        "application/json");
    });
    e.http().Post("/v1/chat/completions", [&](const httplib::Request& req, httplib::Response& res) {
        std::lock_guard lock(mu);
        seen.push_back(nlohmann::json::parse(req.body)["messages"]);
        res.set_content(sse_answer("m", {"A", std::to_string(seen.size())}), "text/event-stream");
    });
    e.start();
    const fs::path doc = write_file("conv.txt", "Doc.");
    const CliRun r = cli({"ask", "--remote", e.url(), "--doc", doc.string(), "-q", "One?", "-q", "Two?", "--conversation"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "A1\nA2\n");
    std::lock_guard lock(mu);
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[1], nlohmann::json::parse(R"([{"role":"user","content":"Doc.\n\nQuestion: One?"},
        {"role":"assistant","content":"A1"},{"role":"user","content":"Question: Two?"}])"));
    fs::remove(doc);
}

TEST(RemoteCli, ADocumentThatDoesNotFitIsRefusedWithTheNumbersBeforeAnythingIsSent) {
    FakeEngine e;
    add_llama_server_routes(e, "qwen.gguf", 2048);
    e.start();
    const fs::path doc = write_file("long.txt", std::string(40000, 'a') + "\n");  // ~10000 tokens at 4 bytes
    const fs::path json = temp_path("long.json");
    const CliRun r = cli({"ask", "--remote", e.url(), "--doc", doc.string(), "-q", "Q?", "--json", json.string()});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("does not fit qwen.gguf's context"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("the context is 2048 tokens (llama-server /props n_ctx)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("llama-server /tokenize"), std::string::npos) << r.err;
    EXPECT_EQ(e.chat_requests.load(), 0);
    // With Ollama (no /tokenize) the estimate refuses it too.
    FakeEngine o;
    add_ollama_routes(o, "llama3.2:latest", 4096, 131072);
    o.start();
    const CliRun r2 = cli({"ask", "--remote", o.url(), "--doc", doc.string(), "-q", "Q?"});
    EXPECT_EQ(r2.status, 1);
    EXPECT_NE(r2.err.find("estimated at 3 bytes per token"), std::string::npos) << r2.err;
    EXPECT_NE(r2.err.find("the context is 4096 tokens (Ollama /api/show parameters num_ctx)"), std::string::npos)
        << r2.err;
    EXPECT_EQ(o.chat_requests.load(), 0);
    fs::remove(doc);
}

TEST(RemoteCli, ServerErrorsEndTheCommandWithTheirWordsAndPartialJson) {
    FakeEngine e;
    e.http().Get("/v1/models", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(R"({"object":"list","data":[{"id":"m","object":"model"}]})", "application/json");
    });
    e.http().Post("/v1/chat/completions", [](const httplib::Request&, httplib::Response& res) {
        res.status = 400;
        res.set_content(R"({"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}})",
                        "application/json");
    });
    e.start();
    const fs::path doc = write_file("err.txt", "Some text.");
    const fs::path json = temp_path("err.json");
    const CliRun r = cli({"ask", "--remote", e.url(), "--doc", doc.string(), "-q", "Q?", "--json", json.string()});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("does not say m's context"), std::string::npos) << r.err;  // sent unchecked, said so
    EXPECT_NE(r.err.find("HTTP 400: the request exceeds the available context size, try increasing it"),
              std::string::npos)
        << r.err;
    const auto j = nlohmann::json::parse(read_text(json));
    EXPECT_NE(j["error"].get<std::string>().find("exceeds the available context size"), std::string::npos);
    fs::remove(doc);
    fs::remove(json);
}

// A self-signed certificate for 127.0.0.1, made with OpenSSL's API (tests/server/self_signed_cert.h).
TEST(RemoteCli, TlsWithASelfSignedCertificateUntrustedCaCertOrInsecure) {
    const CertFiles made = make_self_signed_cert(fs::temp_directory_path(), "snapdoc-remote-test-" + std::to_string(getpid()));
    const fs::path cert = made.cert, key = made.key;
    FakeEngine e(cert.string(), key.string());
    add_llama_server_routes(e, "qwen.gguf", 2048, "k");
    e.start();
    ASSERT_EQ(e.url().rfind("https://", 0), 0u);
    const CliRun untrusted = cli({"models", "--remote", e.url(), "--api-key", "k"});
    EXPECT_EQ(untrusted.status, 1);
    EXPECT_NE(untrusted.err.find("TLS certificate is not trusted"), std::string::npos) << untrusted.err;
    EXPECT_NE(untrusted.err.find("--ca-cert FILE"), std::string::npos) << untrusted.err;
    const CliRun with_ca = cli({"models", "--remote", e.url(), "--api-key", "k", "--ca-cert", cert.string()});
    EXPECT_EQ(with_ca.status, 0) << with_ca.err;
    EXPECT_NE(with_ca.out.find("llama-server at " + e.url()), std::string::npos) << with_ca.out;
    const fs::path doc = write_file("tls.txt", "Short document.");
    const CliRun insecure = cli({"ask", "--remote", e.url(), "--api-key", "k", "--insecure", "--doc", doc.string(),
                                 "-q", "Q?"});
    EXPECT_EQ(insecure.status, 0) << insecure.err;
    EXPECT_EQ(insecure.out, "The answer is 42.\n");
    const CliRun both = cli({"models", "--remote", e.url(), "--insecure", "--ca-cert", cert.string()});
    EXPECT_EQ(both.status, 1);
    fs::remove(cert);
    fs::remove(key);
    fs::remove(doc);
}

TEST(RemoteCli, BadRemoteUrlsAreRefusedInWords) {
    const fs::path doc = write_file("url.txt", "Text.");
    const CliRun r = cli({"ask", "--remote", "gpu-box:8000", "--doc", doc.string(), "-q", "Q?"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("must start with http:// or https://"), std::string::npos) << r.err;
    fs::remove(doc);
}

}  // namespace
}  // namespace snapdoc::test
