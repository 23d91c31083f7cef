#include "app/cli/remote_flags.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "app/cli/remote_commands.h"
#include "engine/common/error.h"

namespace snapdoc::cli {

bool has_remote_flag(int argc, char** argv) {
    for (int i = 2; i < argc; ++i)
        if (!std::strcmp(argv[i], "--remote")) return true;
    return false;
}

std::vector<FlagSpec> remote_flags() {
    return {{{"--remote"}},      {{"--api-key"}},         {{"--ca-cert"}}, {{"--insecure"}, false},
            {{"--connect-timeout"}}, {{"--stall-timeout"}}, {{"--log-level"}}};
}

remote::RemoteEndpoint remote_endpoint_from(const Args& args) {
    remote::RemoteEndpoint ep;
    ep.root = remote::normalize_base_url(args.required("remote"));
    // The key from the environment keeps it out of the process list and shell history.
    ep.api_key = args.str("api-key");
    if (ep.api_key.empty())
        if (const char* k = std::getenv("SNAPDOC_API_KEY")) ep.api_key = k;
    ep.ca_cert_file = args.str("ca-cert");
    if (!ep.ca_cert_file.empty() && !std::filesystem::is_regular_file(ep.ca_cert_file))
        throw Error("--ca-cert " + ep.ca_cert_file + ": no such file");
    ep.insecure_skip_verify = args.has("insecure");
    if (ep.insecure_skip_verify && !ep.ca_cert_file.empty())
        throw Error("give --ca-cert FILE or --insecure, not both");
    const auto seconds = [&](const char* key, long fallback_ms) {
        const float s = args.real(key, static_cast<float>(fallback_ms) / 1000.0f);
        if (!(s > 0) || s > 86400) throw Error(std::string("--") + key + " must be between 0 and 86400 seconds");
        return static_cast<long>(s * 1000.0f);
    };
    ep.connect_timeout_ms = seconds("connect-timeout", ep.connect_timeout_ms);
    ep.stall_timeout_ms = seconds("stall-timeout", ep.stall_timeout_ms);
    if (ep.root.rfind("http://", 0) == 0 && !ep.api_key.empty() && ep.root.find("://127.") == std::string::npos &&
        ep.root.find("://localhost") == std::string::npos && ep.root.find("://[::1]") == std::string::npos)
        std::fprintf(stderr, "warning: the API key goes to %s over plain HTTP (unencrypted)\n", ep.root.c_str());
    return ep;
}

}  // namespace snapdoc::cli
