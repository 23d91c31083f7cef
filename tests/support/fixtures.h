// Access to the shared, read-only fixtures (../shared/fixtures). Tests that need them call
// SNAPDOC_REQUIRE_FIXTURE first, which skips the test with a clear message when they are absent
// (a fresh clone elsewhere), so the suite still passes there.
#pragma once

#include <filesystem>
#include <string>

namespace snapdoc {

std::filesystem::path fixtures_dir();  // env SNAPDOC_FIXTURES_DIR, else the configured path
std::filesystem::path fixture_path(const std::string& relative);
bool fixture_exists(const std::string& relative);
std::string read_text_file(const std::filesystem::path& path);

struct CommandResult {
    int status = -1;     // exit status
    std::string output;  // stdout
};
// Runs a shell command and captures its stdout (tests of the CLI binaries).
CommandResult run_command(const std::string& command);

}  // namespace snapdoc

#define SNAPDOC_REQUIRE_FIXTURE(rel)                                                                \
    do {                                                                                            \
        if (!::snapdoc::fixture_exists(rel))                                                        \
            GTEST_SKIP() << "fixture " << ::snapdoc::fixture_path(rel).string()                     \
                         << " is absent (../shared/fixtures not present); skipping";                \
    } while (0)
