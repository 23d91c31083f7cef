// A small fixed thread pool for data-parallel loops. The calling thread takes part in every loop,
// and idle workers sleep on an atomic (futex) after a short spin, so per-call overhead stays in the
// microseconds that batch-1 decoding (dozens of parallel loops per token) can afford.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace snapdoc {

class ThreadPool {
public:
    explicit ThreadPool(int n_threads);  // total threads including the caller; <= 0 = hardware
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return n_threads_; }

    // Calls fn(begin, end, thread_index) on disjoint sub-ranges covering [0, n). Ranges are split
    // into chunks of at least `grain` items. Not re-entrant.
    void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t, int)>& fn);

private:
    void worker_loop(int index);
    void run_share(int index);

    int n_threads_;
    std::vector<std::thread> workers_;
    std::atomic<uint64_t> generation_{0};
    std::atomic<int> pending_{0};
    std::atomic<bool> stop_{false};
    const std::function<void(int64_t, int64_t, int)>* job_ = nullptr;
    int64_t job_n_ = 0;
    int64_t job_chunk_ = 0;
    std::atomic<int64_t> next_chunk_{0};
};

}  // namespace snapdoc
