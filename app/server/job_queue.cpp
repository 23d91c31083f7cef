#include "app/server/job_queue.h"

#include <spdlog/spdlog.h>

namespace snapdoc::server {

JobQueue::JobQueue(std::size_t limit, Runner runner) : limit_(limit), runner_(std::move(runner)) {
    worker_ = std::thread([this] { run(); });
}

JobQueue::~JobQueue() {
    drain();
}

bool JobQueue::submit(std::shared_ptr<Job> job) {
    {
        std::lock_guard lock(mu_);
        if (stopping_ || queue_.size() >= limit_) return false;
        queue_.push_back(std::move(job));
    }
    cv_.notify_all();
    return true;
}

std::size_t JobQueue::waiting() const {
    std::lock_guard lock(mu_);
    return queue_.size();
}

bool JobQueue::busy() const {
    std::lock_guard lock(mu_);
    return running_job_ || !queue_.empty();
}

void JobQueue::drain() {
    {
        std::unique_lock lock(mu_);
        stopping_ = true;
        cv_.notify_all();
    }
    if (worker_.joinable()) worker_.join();
}

void JobQueue::run() {
    for (;;) {
        std::shared_ptr<Job> job;
        {
            std::unique_lock lock(mu_);
            cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return;  // stopping, and everything queued has run
            job = std::move(queue_.front());
            queue_.pop_front();
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
