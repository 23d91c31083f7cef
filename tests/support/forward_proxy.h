// A plain-HTTP forward proxy on 127.0.0.1 that records the absolute URLs it was asked for, so tests
// can show that the download engine honours http_proxy / HTTPS_PROXY from the environment (libcurl
// reads them itself) without any network beyond loopback.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace snapdoc::testing {

class ForwardProxy {
public:
    ForwardProxy();  // ephemeral port
    ~ForwardProxy();
    ForwardProxy(const ForwardProxy&) = delete;
    ForwardProxy& operator=(const ForwardProxy&) = delete;
    std::string url() const;                   // "http://127.0.0.1:PORT"
    std::vector<std::string> targets() const;  // request targets seen, e.g. "http://127.0.0.1:N/api/..."

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace snapdoc::testing
