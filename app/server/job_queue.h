// The request scheduler: a bounded FIFO in front of the one engine worker thread (batch-1 decode),
// so requests run in arrival order and a request past the bound is refused at once (503) rather
// than left waiting. drain() stops accepting and waits for the queued and running jobs.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "app/server/job.h"

namespace snapdoc::server {

class JobQueue {
public:
    using Runner = std::function<void(Job&)>;
    JobQueue(std::size_t limit, Runner runner);
    ~JobQueue();

    // false when the queue holds `limit` jobs already or is draining (the caller answers 503).
    bool submit(std::shared_ptr<Job> job);
    std::size_t waiting() const;
    bool busy() const;
    // Refuses new jobs, waits for the queued ones to finish, stops the worker.
    void drain();

private:
    void run();

    std::size_t limit_;
    Runner runner_;
    mutable std::mutex mu_;
    std::condition_variable cv_, idle_cv_;
    std::deque<std::shared_ptr<Job>> queue_;
    bool running_job_ = false;
    bool stopping_ = false;
    std::thread worker_;
};

}  // namespace snapdoc::server
