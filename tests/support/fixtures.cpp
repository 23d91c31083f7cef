#include "tests/support/fixtures.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace snapdoc {

std::filesystem::path fixtures_dir() {
    if (const char* env = std::getenv("SNAPDOC_FIXTURES_DIR")) return env;
    return SNAPDOC_FIXTURES_DIR;
}

std::filesystem::path fixture_path(const std::string& relative) { return fixtures_dir() / relative; }

bool fixture_exists(const std::string& relative) { return std::filesystem::exists(fixture_path(relative)); }

std::string read_text_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

CommandResult run_command(const std::string& command) {
    CommandResult r;
    std::FILE* p = popen(command.c_str(), "r");
    if (!p) return r;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
    const int st = pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

}  // namespace snapdoc
