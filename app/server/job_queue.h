// The request scheduler in front of the one engine worker thread (batch-1 decode): a bounded queue
// that is fair across clients. Each client (Job::client: the request's "user" field, else its
// Authorization header, else its address) has its own FIFO, and the worker takes the next job
// from the clients in turn (round-robin), so one client's twenty queued requests delay another
// client's one by at most one job, not twenty. A request past the bound (all clients together, or
// one client's share) is refused at once (503) rather than left waiting. drain() stops accepting
// and waits for the queued and running jobs.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "app/server/job.h"

namespace snapdoc::server {

class JobQueue {
public:
    using Runner = std::function<void(Job&)>;
    // `limit`: jobs waiting in all; `per_client_limit`: jobs one client may have waiting (0: limit).
    JobQueue(std::size_t limit, std::size_t per_client_limit, Runner runner);
    ~JobQueue();

    enum class Refusal { None, Full, ClientFull, Draining };
    // Refusal::None when queued; else why not (the caller answers 503).
    Refusal submit(std::shared_ptr<Job> job);
    std::size_t waiting() const;
    std::size_t clients_waiting() const;  // clients with at least one job waiting
    bool busy() const;
    // Refuses new jobs, waits for the queued ones to finish, stops the worker.
    void drain();

private:
    void run();
    std::shared_ptr<Job> take_next();  // under mu_, with something waiting

    std::size_t limit_, per_client_limit_;
    Runner runner_;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::map<std::string, std::deque<std::shared_ptr<Job>>> by_client_;  // only clients with jobs waiting
    std::string last_client_;  // the client the worker served last (its turn comes after the others')
    std::size_t waiting_ = 0;
    bool running_job_ = false;
    bool stopping_ = false;
    std::thread worker_;
};

}  // namespace snapdoc::server
