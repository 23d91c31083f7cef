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
        return "env -u HF_TOKEN HF_ENDPOINT=" + hub.endpoint() + " SNAPDOC_MODELS_DIR=" + quoted(models().string()) +
               " " + SNAPDOC_CLI_PATH + " " + args + " 2>&1";
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
        ::execl("/bin/sh", "sh", "-c", ("exec " + cmd + " >/dev/null 2>&1").c_str(), static_cast<char*>(nullptr));
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

// The newcomer's path on the command line: a modelzoo-shaped model on the (local) hub, asked
// about a document with -m hf://..., then the local copy reused without the network.
TEST_F(CliPullTest, AskWithAnHfUriDownloadsThenAnswers) {
    const std::string rel = "modelzoo/llama31-tiny/llama31-tiny-Q4_K_M.gguf";
    SNAPDOC_REQUIRE_FIXTURE(rel);
    const std::string repo = "tester/llama31-tiny-GGUF";
    hub.add_file_from_disk(repo, "llama31-tiny-Q4_K_M.gguf", fixture_path(rel));
    hub.add_file_from_disk(repo, "llama31-tiny-Q8_0.gguf", fixture_path("modelzoo/llama31-tiny/llama31-tiny-Q8_0.gguf"));
    const fs::path doc = dir.path() / "doc.txt";
    {
        std::ofstream out(doc);
        for (int i = 0; i < 12; ++i) out << "Line " << i << ": Ada keeps the lighthouse on the north island.\n";
    }
    const fs::path json_out = dir.path() / "ask.json";
    const std::string ask = "ask --doc " + quoted(doc.string()) + " -q 'Who keeps the lighthouse?' -n 8 --budget 48 "
                            "--window 8 --threads 2 --json " + quoted(json_out.string()) +
                            " --cache-dir " + quoted((dir.path() / "kv").string());
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
}

}  // namespace
