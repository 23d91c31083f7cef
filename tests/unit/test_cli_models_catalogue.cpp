// `snapdoc-cli models --catalogue`: the fit table for a given length on given machine numbers, the
// recommended pick and its pull command; with -m and --doc, the document tokenized by that model
// and prefill times from a probe run with it; bad flags refused in words.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

CommandResult cli(const std::string& flags) {
    return run_command("timeout 300 " + std::string(SNAPDOC_CLI_PATH) + " models --catalogue " + flags +
                       " 2>&1");
}

std::string line_of(const std::string& out, const std::string& needle) {
    const auto at = out.find(needle);
    if (at == std::string::npos) return "";
    const auto begin = out.rfind('\n', at) + 1;
    return out.substr(begin, out.find('\n', at) - begin);
}

TEST(CliModelsCatalogue, TableForFixedMachine) {
    const CommandResult r = cli("--tokens 100000 --ram-mb 65536 --gpu-free-mb 0");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("fit for a document of 100,000 tokens"), std::string::npos) << r.output;
    const std::string llama = line_of(r.output, "Llama 3.1 8B Instruct        Q4_K_M");
    EXPECT_EQ(llama.rfind("* ", 0), 0u) << llama;  // the recommended pick
    EXPECT_NE(llama.find("fits"), std::string::npos) << llama;
    EXPECT_NE(line_of(r.output, "Qwen2.5 7B Instruct          Q4_K_M").find("over ctx"), std::string::npos);
    EXPECT_NE(r.output.find("snapdoc-cli pull bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:Q4_K_M"),
              std::string::npos);

    const CommandResult small = cli("--tokens 100000 --ram-mb 1024 --gpu-free-mb 0");
    ASSERT_EQ(small.status, 0);
    EXPECT_NE(small.output.find("no catalogue model fits this document here"), std::string::npos)
        << small.output;
}

std::filesystem::path demo_model() {
    return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "resources" /
           "models" / "snapdoc-demo.gguf";
}

TEST(CliModelsCatalogue, DocumentTokenizedByAModel) {
    testing::TempDir dir;
    std::string text;
    for (int i = 0; i < 1500; ++i) text += "The harbour of Vell keeps " + std::to_string(i) + " boats.\n";
    std::ofstream(dir / "doc.txt") << text;
    // Without -m: counted at ~4 bytes per token, no prefill times.
    const CommandResult rough = cli("--doc '" + (dir / "doc.txt").string() + "' --ram-mb 65536");
    ASSERT_EQ(rough.status, 0) << rough.output;
    EXPECT_NE(rough.output.find(" tokens (about 4 bytes per token"), std::string::npos) << rough.output;
    if (!std::filesystem::exists(demo_model())) GTEST_SKIP() << demo_model() << " is absent";
    // With the demo model: its token count, and a probe (the document is past 2,048 tokens) whose
    // time is scaled to every catalogue model.
    const CommandResult exact = cli("--doc '" + (dir / "doc.txt").string() + "' -m '" +
                                    demo_model().string() + "' --ram-mb 65536 -t 2");
    ASSERT_EQ(exact.status, 0) << exact.output;
    EXPECT_NE(exact.output.find("tokenized by snapdoc-demo.gguf"), std::string::npos) << exact.output;
    const std::string llama = line_of(exact.output, "Llama 3.1 8B Instruct        Q4_K_M");
    EXPECT_TRUE(llama.find(" s ") != std::string::npos || llama.find("min") != std::string::npos ||
                llama.find(" h ") != std::string::npos || llama.find("second") != std::string::npos)
        << exact.output;
}

TEST(CliModelsCatalogue, BadFlags) {
    CommandResult r = cli("--tokens 0");
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.output.find("--tokens must be >= 1"), std::string::npos) << r.output;
    r = cli("--tokens 10 --doc x.txt");
    EXPECT_NE(r.output.find("give --doc or --tokens, not both"), std::string::npos) << r.output;
    r = cli("--budget 0");
    EXPECT_NE(r.output.find("--budget must be >= 1"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace snapdoc
