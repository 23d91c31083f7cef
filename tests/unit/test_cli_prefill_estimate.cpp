// `ask` and `inspect` say how long the prefill will take before it starts (issue 15 item 4): the
// estimate line comes first on stderr, then the prefill's own report. Runs the CLI on the bundled
// demo model (resources/models, part of the repository) with a document of a few thousand tokens.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/fixtures.h"
#include "tests/support/repo_paths.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

using testing::repo_root;

class CliPrefillEstimate : public ::testing::Test {
protected:
    void SetUp() override {
        std::ifstream in(repo_root() / "resources" / "samples" / "demo-report.txt");
        std::stringstream ss;
        ss << in.rdbuf();
        // Three copies: several thousand tokens, enough for a probe, short enough to prefill in seconds.
        std::ofstream(dir_.path() / "doc.txt") << ss.str() << "\n" << ss.str() << "\n" << ss.str() << "\n";
    }
    std::string base() const {
        return "timeout 300 " + std::string(SNAPDOC_CLI_PATH) + " %s -m '" +
               (repo_root() / "resources" / "models" / "snapdoc-demo.gguf").string() + "' --doc '" +
               (dir_.path() / "doc.txt").string() + "' -q 'What is the access code for the north gate?' ";
    }
    CommandResult run(const std::string& cmd, const std::string& extra) const {
        std::string c = base();
        c.replace(c.find("%s"), 2, cmd);
        return run_command(c + extra + " 2>&1");
    }
    testing::TempDir dir_;
};

TEST_F(CliPrefillEstimate, AskPrintsTheEstimateBeforeThePrefill) {
    const CommandResult r = run("ask", "-n 1 --no-cache --threads 2");
    ASSERT_EQ(r.status, 0) << r.output;
    const auto est = r.output.find("prefilling ");
    const auto done = r.output.find("document: ");
    ASSERT_NE(est, std::string::npos) << r.output;
    ASSERT_NE(done, std::string::npos) << r.output;
    EXPECT_LT(est, done) << r.output;
    EXPECT_NE(r.output.find(" on this machine (probe "), std::string::npos) << r.output;
}

TEST_F(CliPrefillEstimate, InspectPrintsItToo) {
    const CommandResult r = run("inspect", "--threads 2 --json '" + (dir_.path() / "sel.json").string() + "'");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find(" tokens: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(" on this machine (probe "), std::string::npos) << r.output;
}

}  // namespace
}  // namespace snapdoc
