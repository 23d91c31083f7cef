// A small fixed thread pool for data-parallel loops. The calling thread takes part in every loop,
// and idle workers sleep on an atomic (futex) after a short spin, so per-call overhead stays in the
// microseconds that batch-1 decoding (dozens of parallel loops per token) can afford.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
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

    using Job = std::function<void(int64_t, int64_t, int)>;  // fn(begin, end, thread_index)

    // Calls fn(begin, end, thread_index) on disjoint sub-ranges covering [0, n). Ranges are split
    // into chunks of at least `grain` items. Not re-entrant.
    void parallel_for(int64_t n, int64_t grain, const Job& fn);

    // The same for loops that stream memory in index order (decode's weight rows): thread t owns
    // the t-th contiguous share of [0, n) and takes it front to back in pieces of at least `grain`
    // (about 64 per thread), so its reads stay one sequential stream for the hardware prefetcher
    // (parallel_for's shared chunk counter hands a thread chunks far apart); a thread done with its
    // share takes pieces from the back of one still running. The tail where a thread waits for
    // another is then one piece, not one of parallel_for's quarter-share chunks. n < 2^32.
    void parallel_for_stream(int64_t n, int64_t grain, const Job& fn);

private:
    void worker_loop(int index);
    // Thread `index`'s part of the current loop: run_share (shared chunk counter) or
    // run_stream_share (owned shares), as the loop was started.
    void run_part(int index);
    void run_share(int index);
    void run_stream_share(int index);
    void run(int64_t n, int64_t chunk, bool stream, const Job& fn);
    // A loop too small to share (n <= grain) or a pool of one runs on the caller: true when it did
    // (or when there was nothing to run).
    bool ran_alone(int64_t n, int64_t grain, const Job& fn);

    // A thread's share in parallel_for_stream: [front, back) packed in one word (front in the high
    // half), taken from the front by its owner and from the back by the others, one CAS each.
    struct alignas(64) Share {
        std::atomic<uint64_t> span{0};
    };

    int n_threads_;
    std::vector<std::thread> workers_;
    std::atomic<uint64_t> generation_{0};
    std::atomic<int> pending_{0};
    std::atomic<bool> stop_{false};
    const Job* job_ = nullptr;
    int64_t job_n_ = 0;
    int64_t job_chunk_ = 0;
    bool job_stream_ = false;
    std::atomic<int64_t> next_chunk_{0};
    std::unique_ptr<Share[]> shares_;
};

}  // namespace snapdoc
