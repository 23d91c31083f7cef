// `snapdoc-cli COMMAND --help` prints that command's usage on stdout and exits 0, as
// `snapdoc-cli --help` does for the whole (issue 37). The commands are the ones --help lists, which
// main() prints from the same table it dispatches through, so a new command is checked too.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/support/fixtures.h"

namespace snapdoc {
namespace {

const std::string kCli = SNAPDOC_CLI_PATH;

// The names in the "commands:" section of `snapdoc-cli --help`: each entry's first line is
// indented by two spaces, its continuation lines by more.
std::vector<std::string> listed_commands() {
    const CommandResult r = run_command(kCli + " --help 2>/dev/null");
    EXPECT_EQ(r.status, 0) << r.output;
    std::vector<std::string> names;
    std::istringstream in(r.output);
    bool in_commands = false;
    for (std::string line; std::getline(in, line);) {
        if (line == "commands:") {
            in_commands = true;
        } else if (in_commands && line.empty()) {
            break;
        } else if (in_commands && line.size() > 2 && line.rfind("  ", 0) == 0 && line[2] != ' ') {
            names.push_back(line.substr(2, line.find(' ', 2) - 2));
        }
    }
    return names;
}

TEST(CliSubcommandHelp, EveryCommandPrintsItsUsageOnStdoutAndExitsZero) {
    const std::vector<std::string> names = listed_commands();
    ASSERT_GE(names.size(), 12u) << "--help lists fewer commands than the CLI has";
    for (const std::string& name : names) {
        for (const char* flag : {"--help", "-h"}) {
            SCOPED_TRACE(name + " " + flag);
            const CommandResult out = run_command(kCli + " " + name + " " + flag + " 2>/dev/null");
            EXPECT_EQ(out.status, 0) << out.output;
            EXPECT_EQ(out.output.rfind("usage: snapdoc-cli " + name + " ", 0), 0u) << out.output;
            EXPECT_NE(out.output.find("\n  " + name + " "), std::string::npos) << out.output;
            // Nothing on stderr: the usage is the answer, not an error.
            EXPECT_EQ(run_command(kCli + " " + name + " " + flag + " 2>&1 >/dev/null").output, "");
        }
    }
}

TEST(CliSubcommandHelp, HelpAfterOtherFlagsStillPrintsTheUsage) {
    const CommandResult out = run_command(kCli + " ask -m demo --help 2>&1");
    EXPECT_EQ(out.status, 0) << out.output;
    EXPECT_EQ(out.output.rfind("usage: snapdoc-cli ask ", 0), 0u) << out.output;
}

TEST(CliSubcommandHelp, AnUnknownCommandIsStillAnError) {
    const CommandResult out = run_command(kCli + " no-such-command --help 2>&1");
    EXPECT_EQ(out.status, 2) << out.output;
    EXPECT_NE(out.output.find("unknown command"), std::string::npos) << out.output;
}

}  // namespace
}  // namespace snapdoc
