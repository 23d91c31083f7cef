// snapdoc-cli against the local hub: pull, models, -m hf://... on a model command, a gated repo,
// and a pull killed with SIGKILL half-way that the next run resumes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "app/hub/download.h"
#include "tests/hub/hub_test_env.h"
#include "tests/support/fixtures.h"
#include "tests/support/gguf_split_writer.h"

namespace fs = std::filesystem;
using namespace snapdoc;
using snapdoc::testing::file_sha256;

namespace {

std::string quoted(const std::string& s) {
    std::string out = "'";
    for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return out + "'";
}

class CliPullTest : public snapdoc::testing::HubTest {
protected:
    // The CLI with the hub and models folder of this test (HF_TOKEN cleared so the machine's own
    // token never leaks into a test).
    std::string cli(const std::string& args) const {
        return "env -u HF_TOKEN HF_ENDPOINT=" + hub.endpoint() +
               " SNAPDOC_MODELS_DIR=" + quoted(models().string()) + " " + SNAPDOC_CLI_PATH + " " + args +
               " 2>&1";
    }
};

TEST_F(CliPullTest, PullThenModelsListsIt) {
    const std::string sha = add("tester/tiny-GGUF", "tiny-Q4_K_M.gguf", 200000, 1);
    add("tester/tiny-GGUF", "tiny-Q8_0.gguf", 300000, 2);
    CommandResult r = run_command(cli("pull tester/tiny-GGUF"));
    ASSERT_EQ(r.status, 0) << r.output;
    const fs::path got = models() / "tester/tiny-GGUF/tiny-Q4_K_M.gguf";  // the default pick
    EXPECT_NE(r.output.find(got.string()), std::string::npos) << r.output;
    EXPECT_EQ(file_sha256(got), sha);
    r = run_command(cli("pull tester/tiny-GGUF tiny-Q8_0.gguf"));
    ASSERT_EQ(r.status, 0) << r.output;
    r = run_command(cli("models"));
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("tester/tiny-GGUF"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Q4_K_M"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Q8_0"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("2 models"), std::string::npos) << r.output;
    r = run_command(cli("pull tester/tiny-GGUF:IQ1_S"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find("has no complete IQ1_S"), std::string::npos) << r.output;
    r = run_command(cli("pull tester/absent-GGUF"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find("404"), std::string::npos) << r.output;
    check_models_folder();
}

TEST_F(CliPullTest, AGatedRepoSaysATokenIsNeeded) {
    add("tester/gated-GGUF", "g-Q4_K_M.gguf", 5000, 3);
    hub.set_gated("tester/gated-GGUF", "hf_abc");
    CommandResult r = run_command(cli("pull tester/gated-GGUF"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find("HF_TOKEN"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(hub.endpoint() + "/tester/gated-GGUF"), std::string::npos) << r.output;
    r = run_command(cli("pull tester/gated-GGUF --hf-token hf_abc"));
    EXPECT_EQ(r.status, 0) << r.output;
    check_models_folder();
}

TEST_F(CliPullTest, APullKilledHalfWayResumesOnTheNextRun) {
    const std::string repo = "tester/slow-GGUF", file = "slow-Q4_K_M.gguf";
    const std::string sha = add(repo, file, 3000000, 4);
    snapdoc::testing::HubFaults f;
    f.bytes_per_second = 2000000;  // ~1.5 s for the whole file; the kill comes after ~0.3 s
    hub.set_faults(f);
    const std::string cmd = cli("pull " + repo);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::execl("/bin/sh", "sh", "-c", ("exec " + cmd + " >/dev/null 2>&1").c_str(),
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    const fs::path final = models() / repo / file;
    const fs::path part = hub::part_path(final);
    std::error_code ec;
    for (int i = 0; i < 2000; ++i) {  // bounded: at most ~10 s
        if (fs::exists(part, ec) && fs::file_size(part, ec) > 600000) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the pull finished before it could be killed";
    ASSERT_TRUE(fs::exists(part));
    ASSERT_TRUE(fs::exists(hub::sidecar_path(final)));
    EXPECT_FALSE(fs::exists(final));
    check_models_folder();
    const int64_t kept = static_cast<int64_t>(fs::file_size(part));
    hub.set_faults({});
    const int ranges_before = hub.stats().range_requests;
    const CommandResult r = run_command(cli("pull " + repo));
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("checking the"), std::string::npos) << r.output;  // re-hash of the kept bytes
    EXPECT_EQ(hub.stats().range_requests, ranges_before + 1);
    EXPECT_GT(kept, 0);
    EXPECT_EQ(file_sha256(final), sha);
    check_models_folder();
}

// Two processes pulling one file: the second says who holds it, the first finishes unharmed.
TEST_F(CliPullTest, ASecondProcessOnTheSameFileIsToldWhoHasIt) {
    const std::string repo = "tester/busy-GGUF", file = "busy-Q4_K_M.gguf";
    const std::string sha = add(repo, file, 2000000, 5);
    snapdoc::testing::HubFaults f;
    f.bytes_per_second = 1000000;  // ~2 s
    hub.set_faults(f);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::execl("/bin/sh", "sh", "-c", ("exec " + cli("pull " + repo) + " >/dev/null 2>&1").c_str(),
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    const fs::path final = models() / repo / file;
    std::error_code ec;
    for (int i = 0; i < 2000 && !fs::exists(hub::part_path(final), ec); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const CommandResult second = run_command(cli("pull " + repo));
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    EXPECT_EQ(second.status, 1) << second.output;
    EXPECT_NE(second.output.find("already being downloaded by process"), std::string::npos) << second.output;
    EXPECT_EQ(file_sha256(final), sha);
    check_models_folder();
}

// The newcomer's path on the command line: a modelzoo-shaped model on the (local) hub, asked
// about a document with -m hf://..., then the local copy reused without the network.
TEST_F(CliPullTest, AskWithAnHfUriDownloadsThenAnswers) {
    const std::string rel = "modelzoo/llama31-tiny/llama31-tiny-Q4_K_M.gguf";
    SNAPDOC_REQUIRE_FIXTURE(rel);
    const std::string repo = "tester/llama31-tiny-GGUF";
    add_from_disk(repo, "llama31-tiny-Q4_K_M.gguf", fixture_path(rel));
    add_from_disk(repo, "llama31-tiny-Q8_0.gguf",
                  fixture_path("modelzoo/llama31-tiny/llama31-tiny-Q8_0.gguf"));
    const fs::path doc = dir.path() / "doc.txt";
    {
        std::ofstream out(doc);
        for (int i = 0; i < 12; ++i)
            out << "Line " << i << ": Ada keeps the lighthouse on the north island.\n";
    }
    const fs::path json_out = dir.path() / "ask.json";
    const std::string ask = "ask --doc " + quoted(doc.string()) +
                            " -q 'Who keeps the lighthouse?' -n 8 --budget 48 "
                            "--window 8 --threads 2 --json " +
                            quoted(json_out.string()) + " --cache-dir " +
                            quoted((dir.path() / "kv").string());
    CommandResult r = run_command(cli(ask + " -m hf://" + repo + ":Q4_K_M"));
    ASSERT_EQ(r.status, 0) << r.output;
    const auto out = nlohmann::json::parse(read_text_file(json_out));
    ASSERT_EQ(out.at("answers").size(), 1u);
    EXPECT_GT(out.at("answers")[0].at("generated_tokens").get<int>(), 0);
    EXPECT_EQ(file_sha256(models() / repo / "llama31-tiny-Q4_K_M.gguf"), file_sha256(fixture_path(rel)));
    const int trees = hub.stats().tree_requests;
    r = run_command(cli("info --hf-repo " + repo + ":Q4_K_M"));
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("llama"), std::string::npos) << r.output;
    EXPECT_EQ(hub.stats().tree_requests, trees);  // the local copy, no listing
    EXPECT_FALSE(fs::exists(models() / repo / "llama31-tiny-Q8_0.gguf"));
    check_models_folder();
}

// A split GGUF on the hub (llama.cpp gguf-split layout): `pull REPO:QUANT` fetches the whole set,
// and a model command opens the local set as one model.
TEST_F(CliPullTest, AShardedModelIsPulledAsASetAndLoadsAsOneModel) {
    const std::string rel = "modelzoo/llama31-tiny/llama31-tiny-Q8_0.gguf";
    SNAPDOC_REQUIRE_FIXTURE(rel);
    const std::string repo = "tester/llama31-split-GGUF";
    fs::create_directories(dir.path() / "split");
    const auto shards =
        snapdoc::testing::write_gguf_split(fixture_path(rel), dir.path() / "split", "llama31-tiny-Q8_0", 3);
    ASSERT_EQ(shards.size(), 3u);
    for (const auto& s : shards) add_from_disk(repo, s.filename().string(), s);
    CommandResult r = run_command(cli("pull " + repo + ":Q8_0"));
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("3 files"), std::string::npos) << r.output;
    for (const auto& s : shards) EXPECT_EQ(file_sha256(models() / repo / s.filename()), file_sha256(s));
    r = run_command(cli("models"));
    EXPECT_NE(r.output.find("(+2 shards)"), std::string::npos) << r.output;
    r = run_command(cli("info -m hf://" + repo + ":Q8_0"));
    ASSERT_EQ(r.status, 0) << r.output;
    const CommandResult whole =
        run_command(std::string(SNAPDOC_CLI_PATH) + " info -m " + quoted(fixture_path(rel).string()));
    ASSERT_EQ(whole.status, 0) << whole.output;
    // Same parameters and tensor mix as the unsplit file.
    auto line = [](const std::string& out, const std::string& key) {
        const auto at = out.find(key);
        return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
    };
    EXPECT_FALSE(line(r.output, "parameters:").empty()) << r.output;
    EXPECT_EQ(line(r.output, "parameters:"), line(whole.output, "parameters:"));
    EXPECT_EQ(line(r.output, "tensor types:"), line(whole.output, "tensor types:"));
    check_models_folder();
}

TEST_F(CliPullTest, ModelsCatalogueShowsTheFitTableAndWhatIsDownloaded) {
    CommandResult r = run_command(cli("models --catalogue --tokens 4000"));
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("fit for a document of 4K tokens"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Qwen/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("\n* "), std::string::npos) << "a recommended pick for 4K tokens: " << r.output;
    EXPECT_EQ(r.output.find("[downloaded]"), std::string::npos);
    // A catalogue file in the models folder is marked as downloaded (found offline by repo:quant).
    const fs::path f = models() / "Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf";
    fs::create_directories(f.parent_path());
    std::ofstream(f) << "x";
    r = run_command(cli("models --catalogue --tokens 4000"));
    EXPECT_NE(r.output.find("[downloaded]"), std::string::npos) << r.output;
    r = run_command(cli("models --catalogue --tokens 0"));
    EXPECT_EQ(r.status, 1) << r.output;
}

}  // namespace

namespace {

// Issue 39, item 15: a file the hub lists without a sha256 is checked by size only, and the CLI
// says so instead of "verified".
TEST_F(CliPullTest, AFileWithoutSha256IsReportedSizeCheckedNotVerified) {
    add("tester/plain-GGUF", "plain-Q8_0.gguf", 100000, 7);
    snapdoc::testing::HubFaults f;
    f.no_sha256 = true;
    hub.set_faults(f);
    const CommandResult r = run_command(cli("pull tester/plain-GGUF"));
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("size checked"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("verified"), std::string::npos) << r.output;
}

}  // namespace
