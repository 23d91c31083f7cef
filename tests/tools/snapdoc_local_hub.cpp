// snapdoc-local-hub: serves a folder as a Hugging Face hub on 127.0.0.1, for trying `snapdoc-cli
// pull` and the app's "Get models" window without internet, and for their tests.
//
//   snapdoc-local-hub --root DIR [--port N] [--gated OWNER/NAME=TOKEN] [--rate BYTES_PER_S]
//                     [--cut-at N --cut-times K] [--stall-at N --stall-seconds S --stall-times K]
//
// DIR holds DIR/{owner}/{name}/{files}. The first line on stdout is the endpoint
// (http://127.0.0.1:PORT), for HF_ENDPOINT. Runs until SIGINT/SIGTERM.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "tests/support/local_hub.h"

namespace {

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) {
    g_stop = 1;
}

[[noreturn]] void usage_error(const char* msg) {
    std::fprintf(
        stderr,
        "snapdoc-local-hub: %s\nusage: snapdoc-local-hub --root DIR [--gated REPO=TOKEN] [--rate B/s] "
        "[--cut-at N --cut-times K] [--stall-at N --stall-seconds S --stall-times K]\n",
        msg);
    std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
    std::string root;
    snapdoc::testing::HubFaults faults;
    std::vector<std::pair<std::string, std::string>> gated;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage_error(("missing value after " + a).c_str());
            return argv[++i];
        };
        if (a == "--root")
            root = value();
        else if (a == "--rate")
            faults.bytes_per_second = std::atoll(value().c_str());
        else if (a == "--cut-at")
            faults.cut_at_byte = std::atoll(value().c_str());
        else if (a == "--cut-times")
            faults.cut_times = std::atoi(value().c_str());
        else if (a == "--stall-at")
            faults.stall_at_byte = std::atoll(value().c_str());
        else if (a == "--stall-seconds")
            faults.stall_seconds = std::atof(value().c_str());
        else if (a == "--stall-times")
            faults.stall_times = std::atoi(value().c_str());
        else if (a == "--gated") {
            const std::string v = value();
            const auto eq = v.find('=');
            if (eq == std::string::npos) usage_error("--gated wants OWNER/NAME=TOKEN");
            gated.emplace_back(v.substr(0, eq), v.substr(eq + 1));
        } else if (a == "--help" || a == "-h") {
            usage_error("serves DIR/{owner}/{name}/{files} as a Hugging Face hub on 127.0.0.1");
        } else {
            usage_error(("unknown argument " + a).c_str());
        }
    }
    if (root.empty()) usage_error("--root DIR is required");
    try {
        snapdoc::testing::LocalHub hub;
        hub.add_folder(root);
        for (const auto& [repo, token] : gated) hub.set_gated(repo, token);
        hub.set_faults(faults);
        std::signal(SIGINT, on_signal);
        std::signal(SIGTERM, on_signal);
        std::printf("%s\n", hub.endpoint().c_str());
        std::fflush(stdout);
        while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "snapdoc-local-hub: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
