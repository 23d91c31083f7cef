#include "tests/support/forward_proxy.h"

#include <httplib.h>

#include <mutex>
#include <thread>

namespace snapdoc::testing {

struct ForwardProxy::Impl {
    httplib::Server server;
    std::thread thread;
    int port = 0;
    mutable std::mutex mu;
    std::vector<std::string> targets;

    void forward(const httplib::Request& req, httplib::Response& res) {
        {
            std::lock_guard<std::mutex> lock(mu);
            targets.push_back(req.target);
        }
        // Absolute-form target of a proxied request: http://host:port/path?query
        const std::string& t = req.target;
        const std::string scheme = "http://";
        const auto slash = t.find('/', scheme.size());
        if (t.rfind(scheme, 0) != 0 || slash == std::string::npos) {
            res.status = 400;
            return;
        }
        const std::string authority = t.substr(scheme.size(), slash - scheme.size());
        const auto colon = authority.rfind(':');
        const std::string host = authority.substr(0, colon);
        const int target_port = colon == std::string::npos ? 80 : std::stoi(authority.substr(colon + 1));
        httplib::Client upstream(host, target_port);
        httplib::Headers headers;
        for (const char* h : {"Authorization", "Range", "User-Agent"})
            if (req.has_header(h)) headers.emplace(h, req.get_header_value(h));
        const auto r = upstream.Get(t.substr(slash), headers);
        if (!r) {
            res.status = 502;
            return;
        }
        res.status = r->status;
        for (const auto& [k, v] : r->headers)
            if (k != "Content-Length" && k != "Transfer-Encoding" && k != "Connection") res.set_header(k, v);
        res.body = r->body;
    }
};

ForwardProxy::ForwardProxy() : impl_(std::make_unique<Impl>()) {
    Impl& im = *impl_;
    im.server.Get(".*", [&im](const httplib::Request& q, httplib::Response& r) { im.forward(q, r); });
    im.port = im.server.bind_to_any_port("127.0.0.1");
    im.thread = std::thread([&im] { im.server.listen_after_bind(); });
    for (int i = 0; i < 500 && !im.server.is_running(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

ForwardProxy::~ForwardProxy() {
    impl_->server.stop();
    if (impl_->thread.joinable()) impl_->thread.join();
}

std::string ForwardProxy::url() const {
    return "http://127.0.0.1:" + std::to_string(impl_->port);
}

std::vector<std::string> ForwardProxy::targets() const {
    std::lock_guard<std::mutex> lock(impl_->mu);
    return impl_->targets;
}

}  // namespace snapdoc::testing
