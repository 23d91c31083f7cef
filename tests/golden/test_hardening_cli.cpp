// Issue 14 reproducers from the command line (stories260K: context 2048): special files as model,
// document and output, an over-long document refused before any prefill, bounded numeric flags.
// Every command that could hang runs under `timeout`, so a regression fails instead of blocking.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

const char* kModel = "stories260K/stories260K.gguf";

class HardeningCli : public ::testing::Test {
protected:
    void SetUp() override {
        SNAPDOC_REQUIRE_FIXTURE(kModel);
        ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
        std::filesystem::create_symlink("/dev/zero", dir_ / "zero.txt");
        std::ofstream(dir_ / "doc.txt") << "Tom has a red ball. He plays with it in the park.\n";
    }
    // Runs snapdoc-cli with `args` (stderr merged into the output) under a 60 s timeout.
    CommandResult cli(const std::string& args) const {
        return run_command("timeout 60 " + std::string(SNAPDOC_CLI_PATH) + " " + args + " 2>&1");
    }
    std::string model() const { return "'" + fixture_path(kModel).string() + "'"; }
    std::string in_dir(const std::string& name) const { return "'" + (dir_ / name).string() + "'"; }
    testing::TempDir dir_;
};

TEST_F(HardeningCli, FifoOrDeviceAsModelOrDocumentIsRefusedAtOnce) {
    CommandResult r = cli("info -m " + in_dir("fifo"));
    EXPECT_EQ(r.status, 1) << r.output;  // 124 would be the timeout: the open blocked
    EXPECT_NE(r.output.find("it is a FIFO (named pipe), not a regular file"), std::string::npos) << r.output;

    r = cli("ask -m " + model() + " --doc " + in_dir("zero.txt") + " -q 'what?'");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("cannot open document"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("character device"), std::string::npos) << r.output;

    r = cli("ask -m " + model() + " --doc " + in_dir("fifo") + " -q 'what?'");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("FIFO"), std::string::npos) << r.output;
}

TEST_F(HardeningCli, DeepConfigJsonIsAnErrorNotACrash) {
    std::filesystem::create_directory(dir_ / "hf");
    std::ofstream(dir_ / "hf" / "config.json") << std::string(100000, '[') << std::string(100000, ']');
    const CommandResult r = cli("info -m " + in_dir("hf"));
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("config.json: not valid JSON: nested deeper than"), std::string::npos)
        << r.output;
}

TEST_F(HardeningCli, OutputTargetsFollowTheWriterRule) {
    const std::string eval = "eval -m " + model() + " --ids '1 2 3' --logits-out ";
    // A directory: refused with a real message (it was "cannot rename into /tmp: Success").
    CommandResult r = cli(eval + in_dir(""));
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("it is a directory"), std::string::npos) << r.output;
    // A full device: the device's own error, and it stays a device.
    r = cli(eval + "/dev/full");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("No space left on device"), std::string::npos) << r.output;
    // A FIFO with no reader: an error at once, not a hang, and the FIFO is not replaced.
    r = cli(eval + in_dir("fifo"));
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("no process is reading this FIFO"), std::string::npos) << r.output;
    EXPECT_TRUE(std::filesystem::is_fifo(dir_ / "fifo"));
    // A symlink: written through, the link kept, the target's mode kept.
    std::ofstream(dir_ / "real.f32") << "old";
    ::chmod((dir_ / "real.f32").c_str(), 0600);
    std::filesystem::create_symlink("real.f32", dir_ / "link.f32");
    r = cli(eval + in_dir("link.f32"));
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_TRUE(std::filesystem::is_symlink(dir_ / "link.f32"));
    EXPECT_GT(std::filesystem::file_size(dir_ / "real.f32"), 3u);
    struct stat st {};
    ASSERT_EQ(::stat((dir_ / "real.f32").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST_F(HardeningCli, OverLongDocumentIsRefusedBeforePrefill) {
    {
        std::ofstream doc(dir_ / "long.txt");
        for (int i = 0; i < 800; ++i) doc << "Once upon a time there was a cat. ";
    }
    for (const std::string& cmd :
         {std::string("ask -q 'what?'"), std::string("inspect -q 'what?' --json ") + in_dir("o.json")}) {
        const CommandResult r = cli(cmd + " -m " + model() + " --doc " + in_dir("long.txt"));
        EXPECT_EQ(r.status, 1) << r.output;
        EXPECT_NE(r.output.find("tokens, but the model's context is 2048"), std::string::npos) << r.output;
        // Refused before the prefill: ask prints its "document: N tokens, prefilled in" line after it.
        EXPECT_EQ(r.output.find("prefilled in"), std::string::npos) << r.output;
    }
    const CommandResult g = cli("generate -m " + model() + " -p 'hi' -n 5000");
    EXPECT_EQ(g.status, 1) << g.output;
    EXPECT_NE(g.output.find("but the model's context is 2048"), std::string::npos) << g.output;
    const CommandResult n = cli("eval-niah -m " + model() + " --lengths 99999");
    EXPECT_EQ(n.status, 1) << n.output;
    EXPECT_NE(n.output.find("eval-niah --lengths 99999"), std::string::npos) << n.output;
}

TEST_F(HardeningCli, NumericFlagsAreBounded) {
    CommandResult r = cli("generate -m " + model() + " -p 'hi' -n 2147483647");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("-n 2147483647 is outside [0, 16777216]"), std::string::npos) << r.output;
    r = cli("generate -m " + model() + " -p 'hi' -n 4 --threads 100000");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("--threads 100000 is more than the 1024 supported"), std::string::npos)
        << r.output;
    r = cli("ask -m " + model() + " --doc " + in_dir("doc.txt") + " -q 'who?' -n 2147483647");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("-n 2147483647 is outside"), std::string::npos) << r.output;
}

// Ctrl-C during eval-niah: a message and exit status 130, as the other commands give (it died
// silently). 200 trials take far longer than the 3 s before the signal. One Ctrl-C, as a terminal
// sends it: without `--foreground`, `timeout` signals the child and then its own process group, so
// the CLI could get two SIGINTs, and a second one is the "quit now" of a second Ctrl-C (exit 130
// without the message); that made this test fail about 1 run in 5.
TEST_F(HardeningCli, InterruptedEvalNiahSaysSoAndExits130) {
    const CommandResult r = run_command("timeout --foreground --preserve-status -s INT 3 " +
                                        std::string(SNAPDOC_CLI_PATH) + " eval-niah -m " + model() +
                                        " --lengths 1024 --trials 200 --quiet 2>&1");
    EXPECT_EQ(r.status, 130) << r.output;
    EXPECT_NE(r.output.find("snapdoc-cli eval-niah: interrupted"), std::string::npos) << r.output;
}

// A model file truncated while a run maps it: a message and exit status 1 instead of "Bus error".
// The run (100K tokens past the context) lasts far longer than the 1 s before the truncation.
TEST_F(HardeningCli, ModelTruncatedWhileMappedIsAMessage) {
    const auto copy = dir_ / "m.gguf";
    std::filesystem::copy_file(fixture_path(kModel), copy);
    const CommandResult r =
        run_command("(timeout 60 " + std::string(SNAPDOC_CLI_PATH) + " generate -m '" + copy.string() +
                    "' -p hi -n 100000 --ignore-context --temp 0 >/dev/null & sleep 1; truncate -s 4096 '" +
                    copy.string() + "'; wait $!) 2>&1");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("was truncated or removed while in use (SIGBUS)"), std::string::npos) << r.output;
}

// Issue 24: `ask` on a Phi-3.5 file ran every prompt with LongRoPE's long factors (the context
// defaulted to the declared 131,072); llama.cpp at n_ctx 2048 uses the short ones. A chat that fits
// the original 4096 tokens now runs there (document_run_context), and says so.
TEST(HardeningCliPhi35, AskThatFitsTheOriginalContextUsesTheShortFactors) {
    SNAPDOC_REQUIRE_FIXTURE("modelzoo/phi35-tiny/phi35-tiny-F16.gguf");
    testing::TempDir dir;
    std::ofstream(dir / "doc.txt") << "The harbour office keeps the key. The north gate code is 7391.\n";
    const CommandResult r = run_command("timeout 60 " + std::string(SNAPDOC_CLI_PATH) + " ask -m '" +
                                        fixture_path("modelzoo/phi35-tiny/phi35-tiny-F16.gguf").string() +
                                        "' --doc '" + (dir / "doc.txt").string() +
                                        "' -q 'What is the code?' -n 8 --no-cache 2>&1");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("note: LongRoPE short factors"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("runs with a 4096-token context"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace snapdoc
