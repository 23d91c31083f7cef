#include "tests/server/server_process.h"

#include <fcntl.h>
#include <httplib.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace snapdoc::test {

namespace fs = std::filesystem;

fs::path repo_path(const std::string& relative) {
    return fs::path(SNAPDOC_SOURCE_DIR) / relative;
}

fs::path demo_model_path() {
    if (const char* env = std::getenv("SNAPDOC_DEMO_MODEL")) return env;
    return repo_path("resources/models/snapdoc-demo.gguf");
}

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string demo_report() {
    std::string t = read_text(repo_path("resources/samples/demo-report.txt"));
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
    return t;
}

ServerProcess::ServerProcess(std::vector<std::string> args) {
    static int counter = 0;
    stderr_file_ = fs::temp_directory_path() / ("snapdoc-server-test-" + std::to_string(getpid()) + "-" +
                                                std::to_string(++counter) + ".err");
    // SNAPDOC_TEST_SERVER_BINARY runs the suite against another build (an older one, to see a
    // test fail before its fix).
    const char* other = std::getenv("SNAPDOC_TEST_SERVER_BINARY");
    args.insert(args.begin(), other && *other ? other : SNAPDOC_SERVER_PATH);
    args.push_back("--port");
    args.push_back("0");
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ == 0) {
        dup2(out[1], 1);
        const int err = open(stderr_file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(err, 2);
        close(out[0]);
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(127);
    }
    close(out[1]);
    // The first stdout line names the port (bounded wait).
    std::string line;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < deadline) {
        pollfd p{out[0], POLLIN, 0};
        if (poll(&p, 1, 200) <= 0) continue;
        char buf[256];
        const ssize_t n = read(out[0], buf, sizeof buf);
        if (n <= 0) break;
        line.append(buf, static_cast<std::size_t>(n));
    }
    close(out[0]);
    tls_ = line.find("https://") != std::string::npos;
    const auto colon = line.rfind(':');
    if (colon != std::string::npos) port_ = std::atoi(line.c_str() + colon + 1);
    if (port_ <= 0) {
        stop();
        throw std::runtime_error("snapdoc-server did not print its port: " + line + " / " + stderr_text());
    }
    for (int i = 0; i < 1200; ++i) {  // at most 60 s
        const int health = tls_ ? https_request("GET", port_, "/health", "").status : http_get(port_, "/health").status;
        if (health == 200) return;
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            throw std::runtime_error("snapdoc-server exited while loading: " + stderr_text());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    stop();
    throw std::runtime_error("snapdoc-server /health did not turn 200 within 60 s: " + stderr_text());
}

ServerProcess::~ServerProcess() {
    stop();
    std::error_code ec;
    fs::remove(stderr_file_, ec);
}

int ServerProcess::stop() {
    if (pid_ <= 0) return -1;
    kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 400; ++i) {  // 20 s
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return -1;
}

int ServerProcess::wait_exit(int seconds) {
    for (int i = 0; pid_ > 0 && i < seconds * 20; ++i) {
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return stop();
}

int64_t ServerProcess::peak_rss_bytes() const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
    std::string key;
    while (in >> key) {
        if (key == "VmHWM:") {
            int64_t kb = 0;
            in >> kb;
            return kb * 1024;
        }
        std::string rest;
        std::getline(in, rest);
    }
    return -1;
}

std::string ServerProcess::stderr_text() const {
    return read_text(stderr_file_);
}

nlohmann::json Reply::json() const {
    return nlohmann::json::parse(body, nullptr, false);
}

namespace {
httplib::Client client(int port) {
    httplib::Client c("127.0.0.1", port);
    c.set_connection_timeout(5, 0);
    c.set_read_timeout(120, 0);
    c.set_write_timeout(30, 0);
    return c;
}
httplib::Headers to_headers(const std::map<std::string, std::string>& h) {
    httplib::Headers out;
    for (const auto& [k, v] : h) out.emplace(k, v);
    return out;
}
}  // namespace

Reply http_get(int port, const std::string& path, const std::map<std::string, std::string>& headers) {
    auto c = client(port);
    auto r = c.Get(path, to_headers(headers));
    if (!r) return {};
    return {r->status, r->body};
}

Reply http_post(int port, const std::string& path, const std::string& body,
                const std::map<std::string, std::string>& headers) {
    auto c = client(port);
    auto r = c.Post(path, to_headers(headers), body, "application/json");
    if (!r) return {};
    return {r->status, r->body};
}

Reply post_json(int port, const std::string& path, const nlohmann::json& body) {
    return http_post(port, path, body.dump());
}

Reply https_request(const std::string& method, int port, const std::string& path, const std::string& body,
                    const std::map<std::string, std::string>& headers, const std::string& ca_file,
                    std::string* error) {
    httplib::SSLClient c("127.0.0.1", port);
    c.set_connection_timeout(5, 0);
    c.set_read_timeout(120, 0);
    c.set_write_timeout(30, 0);
    if (ca_file.empty())
        c.enable_server_certificate_verification(false);
    else
        c.set_ca_cert_path(ca_file.c_str());
    httplib::Result r = method == "GET"      ? c.Get(path, to_headers(headers))
                        : method == "DELETE" ? c.Delete(path, to_headers(headers))
                                             : c.Post(path, to_headers(headers), body, "application/json");
    if (!r) {
        if (error) *error = httplib::to_string(r.error());
        return {};
    }
    return {r->status, r->body};
}

CommandResult run_command(const std::string& command) {
    CommandResult r;
    FILE* p = popen(command.c_str(), "r");
    if (!p) return r;
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
    const int status = pclose(p);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

nlohmann::json chat_body(const std::string& user, int max_tokens, bool stream) {
    return {{"messages", {{{"role", "user"}, {"content", user}}}},
            {"max_tokens", max_tokens},
            {"temperature", 0},
            {"stream", stream}};
}

}  // namespace snapdoc::test
