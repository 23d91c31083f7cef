#include "tests/remote/cli_run.h"

#include <unistd.h>

#include <fstream>

#include "tests/server/server_process.h"

namespace snapdoc::test {

namespace fs = std::filesystem;

std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

fs::path temp_path(const std::string& name) {
    return fs::temp_directory_path() / ("snapdoc-remote-test-" + std::to_string(getpid()) + "-" + name);
}

// Bounded: the CLI's own timeouts end every request, and `timeout` ends the process at 120 s.
CliRun cli(const std::vector<std::string>& args) {
    const fs::path err = temp_path("stderr.txt");
    std::string cmd = "timeout 120 " + quote(SNAPDOC_CLI_PATH);
    for (const auto& a : args) cmd += " " + quote(a);
    cmd += " 2>" + quote(err.string());
    const CommandResult r = run_command(cmd);
    CliRun out{r.status, r.output, read_text(err)};
    fs::remove(err);
    return out;
}

fs::path write_file(const std::string& name, const std::string& text) {
    const fs::path p = temp_path(name);
    std::ofstream(p, std::ios::binary) << text;
    return p;
}

}  // namespace snapdoc::test
