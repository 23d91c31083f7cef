// Test harness for snapdoc-server: starts the real binary on a free loopback port (--port 0; the
// server prints the port it bound), waits for GET /health to say 200 (bounded), and stops it with
// SIGTERM when the test is done. Plus small HTTP helpers on cpp-httplib's client.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace snapdoc::test {

std::filesystem::path demo_model_path();  // resources/models/snapdoc-demo.gguf (or $SNAPDOC_DEMO_MODEL)
std::filesystem::path repo_path(const std::string& relative);
std::string read_text(const std::filesystem::path& path);
// The bundled sample report (resources/samples/demo-report.txt) without the whitespace its file
// ends with: the document the server tests paste.
std::string demo_report();

class ServerProcess {
public:
    // `args` after the binary; "--port 0" is added. Throws std::runtime_error (with the server's
    // stderr) when it does not come up within the bound.
    explicit ServerProcess(std::vector<std::string> args);
    ~ServerProcess();
    ServerProcess(const ServerProcess&) = delete;
    ServerProcess& operator=(const ServerProcess&) = delete;

    int port() const { return port_; }
    pid_t pid() const { return pid_; }
    // https:// when the server said it listens with TLS (--ssl-cert / --ssl-key).
    std::string url() const { return (tls_ ? "https" : "http") + std::string("://127.0.0.1:") + std::to_string(port_); }
    bool tls() const { return tls_; }
    // SIGTERM and wait (bounded, then SIGKILL); the exit status, or -1 if it had to be killed.
    int stop();
    // Waits (at most `seconds`) for the server to exit on its own; its status, or stop()'s.
    int wait_exit(int seconds);
    int64_t peak_rss_bytes() const;  // VmHWM
    std::string stderr_text() const;

private:
    pid_t pid_ = -1;
    int port_ = 0;
    bool tls_ = false;
    std::filesystem::path stderr_file_;
};

struct Reply {
    int status = 0;  // 0: no response (connection error)
    std::string body;
    nlohmann::json json() const;
};

Reply http_get(int port, const std::string& path, const std::map<std::string, std::string>& headers = {});
Reply http_post(int port, const std::string& path, const std::string& body,
                const std::map<std::string, std::string>& headers = {});
Reply post_json(int port, const std::string& path, const nlohmann::json& body);
// Over HTTPS (cpp-httplib's SSLClient): the server's certificate is checked against `ca_file`, or
// not at all when it is empty. `error` (when given) gets the client's error in words.
Reply https_request(const std::string& method, int port, const std::string& path, const std::string& body,
                    const std::map<std::string, std::string>& headers = {}, const std::string& ca_file = {},
                    std::string* error = nullptr);

// Runs a shell command; its stdout (stderr to stdout with `merge`) and exit status.
struct CommandResult {
    int status = -1;
    std::string output;
};
CommandResult run_command(const std::string& command);

// A chat request body with one user message.
nlohmann::json chat_body(const std::string& user, int max_tokens, bool stream = false);

}  // namespace snapdoc::test
