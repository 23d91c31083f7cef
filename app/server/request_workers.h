// GuardedHttpServer's request threads: they serve connections whose request head is complete.
// Fair between client addresses: one address has at most `per_address` requests being served;
// its further requests wait while other addresses' are taken first, so one client cannot hold
// every thread (with slow bodies, say) and starve /health or another client.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "app/server/connection.h"

namespace snapdoc::server {

class RequestWorkers {
public:
    using Serve = std::function<void(std::unique_ptr<Connection>)>;

    // `drop` receives the connections still waiting when the workers stop.
    RequestWorkers(std::size_t threads, std::size_t per_address, Serve serve, Serve drop);
    ~RequestWorkers();
    RequestWorkers(const RequestWorkers&) = delete;
    RequestWorkers& operator=(const RequestWorkers&) = delete;

    void start();
    void submit(std::unique_ptr<Connection> connection);
    // Lets the requests being served finish, then joins the threads.
    void stop();

private:
    void run();
    // The first waiting connection whose address is under its share, or end().
    std::deque<std::unique_ptr<Connection>>::iterator next_eligible();

    std::size_t threads_, per_address_;
    Serve serve_, drop_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<std::unique_ptr<Connection>> waiting_;
    std::unordered_map<std::string, std::size_t> active_;
    bool stop_ = false;
    std::vector<std::thread> pool_;
};

}  // namespace snapdoc::server
