#include "app/server/request_workers.h"

namespace snapdoc::server {

RequestWorkers::RequestWorkers(std::size_t threads, std::size_t per_address, Serve serve, Serve drop)
    : threads_(threads), per_address_(per_address), serve_(std::move(serve)), drop_(std::move(drop)) {}

RequestWorkers::~RequestWorkers() {
    stop();
}

void RequestWorkers::start() {
    for (std::size_t i = 0; i < threads_; ++i) pool_.emplace_back([this] { run(); });
}

void RequestWorkers::submit(std::unique_ptr<Connection> connection) {
    {
        std::lock_guard lock(mu_);
        if (!stop_) {
            waiting_.push_back(std::move(connection));
            connection = nullptr;
        }
    }
    if (connection) return drop_(std::move(connection));
    cv_.notify_all();
}

void RequestWorkers::stop() {
    {
        std::lock_guard lock(mu_);
        if (stop_ && pool_.empty()) return;
        stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : pool_) t.join();
    pool_.clear();
    std::deque<std::unique_ptr<Connection>> left;
    {
        std::lock_guard lock(mu_);
        left.swap(waiting_);
    }
    for (auto& c : left) drop_(std::move(c));
}

std::deque<std::unique_ptr<Connection>>::iterator RequestWorkers::next_eligible() {
    for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
        const auto a = active_.find((*it)->peer_host);
        if (a == active_.end() || a->second < per_address_) return it;
    }
    return waiting_.end();
}

void RequestWorkers::run() {
    std::unique_lock lock(mu_);
    for (;;) {
        auto it = waiting_.end();
        cv_.wait(lock, [&] { return stop_ || (it = next_eligible()) != waiting_.end(); });
        if (stop_) return;
        std::unique_ptr<Connection> c = std::move(*it);
        waiting_.erase(it);
        const std::string host = c->peer_host;
        ++active_[host];
        lock.unlock();
        serve_(std::move(c));
        lock.lock();
        if (--active_[host] == 0) active_.erase(host);
        cv_.notify_all();  // this address may be under its share again
    }
}

}  // namespace snapdoc::server
