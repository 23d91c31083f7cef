// Running snapdoc-cli as a child in the remote tests: its exit status, stdout and stderr, bounded
// by `timeout 120`; plus the scratch files the commands read and write.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace snapdoc::test {

struct CliRun {
    int status = -1;
    std::string out, err;
};

std::string quote(const std::string& s);  // for the shell
std::filesystem::path temp_path(const std::string& name);
CliRun cli(const std::vector<std::string>& args);
std::filesystem::path write_file(const std::string& name, const std::string& text);

}  // namespace snapdoc::test
