#include "app/server/job_queue.h"

#include <spdlog/spdlog.h>

namespace snapdoc::server {

JobQueue::JobQueue(std::size_t limit, std::size_t per_client_limit, Runner runner)
    : limit_(limit),
      per_client_limit_(per_client_limit == 0 ? limit : per_client_limit),
      runner_(std::move(runner)) {
    worker_ = std::thread([this] { run(); });
}

JobQueue::~JobQueue() {
    drain();
}

JobQueue::Refusal JobQueue::submit(std::shared_ptr<Job> job) {
    {
        std::lock_guard lock(mu_);
        if (stopping_) return Refusal::Draining;
        if (waiting_ >= limit_) return Refusal::Full;
        auto& mine = by_client_[job->client];
        if (mine.size() >= per_client_limit_) {
            if (mine.empty()) by_client_.erase(job->client);
            return Refusal::ClientFull;
        }
        mine.push_back(std::move(job));
        ++waiting_;
    }
    cv_.notify_all();
    return Refusal::None;
}

std::size_t JobQueue::waiting() const {
    std::lock_guard lock(mu_);
    return waiting_;
}

std::size_t JobQueue::clients_waiting() const {
    std::lock_guard lock(mu_);
    return by_client_.size();
}

bool JobQueue::busy() const {
    std::lock_guard lock(mu_);
    return running_job_ || waiting_ > 0;
}

void JobQueue::drain() {
    {
        std::unique_lock lock(mu_);
        stopping_ = true;
        cv_.notify_all();
    }
    if (worker_.joinable()) worker_.join();
}

std::shared_ptr<Job> JobQueue::take_next() {
    // Round-robin in key order: the first client after the one served last, wrapping around.
    auto it = by_client_.upper_bound(last_client_);
    if (it == by_client_.end()) it = by_client_.begin();
    std::shared_ptr<Job> job = std::move(it->second.front());
    it->second.pop_front();
    last_client_ = it->first;
    if (it->second.empty()) by_client_.erase(it);
    --waiting_;
    return job;
}

void JobQueue::run() {
    for (;;) {
        std::shared_ptr<Job> job;
        {
            std::unique_lock lock(mu_);
            cv_.wait(lock, [&] { return stopping_ || waiting_ > 0; });
            if (waiting_ == 0) return;  // stopping, and everything queued has run
            job = take_next();
            running_job_ = true;
        }
        if (!job->cancel.load()) {  // a client that left while queued costs nothing
            try {
                runner_(*job);
            } catch (const std::exception& e) {
                spdlog::error("job failed: {}", e.what());
            }
        } else {
            job->events.push(JobEvent::failed_event(499, {}));
        }
        std::lock_guard lock(mu_);
        running_job_ = false;
    }
}

}  // namespace snapdoc::server
