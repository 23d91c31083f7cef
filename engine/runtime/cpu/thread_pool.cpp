#include "engine/runtime/cpu/thread_pool.h"

#include <algorithm>
#include <cassert>

namespace snapdoc {

ThreadPool::ThreadPool(int n_threads) {
    if (n_threads <= 0) n_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    n_threads_ = n_threads;
    shares_ = std::make_unique<Share[]>(static_cast<std::size_t>(n_threads_));
    for (int i = 1; i < n_threads_; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
    stop_.store(true);
    generation_.fetch_add(1);
    generation_.notify_all();
    for (auto& t : workers_) t.join();
}

void ThreadPool::run_share(int index) {
    // Chunks are claimed dynamically so uneven work (e.g. causal attention rows) balances itself.
    for (;;) {
        int64_t c = next_chunk_.fetch_add(1);
        int64_t begin = c * job_chunk_;
        if (begin >= job_n_) break;
        (*job_)(begin, std::min(job_n_, begin + job_chunk_), index);
    }
}

namespace {

struct Piece {
    int64_t begin = 0, end = 0;
};

constexpr uint64_t pack(uint64_t front, uint64_t back) {
    return front << 32 | back;
}

// The next `size` indices from the front (owner) or the back (another thread) of a share; empty
// when the share is used up.
Piece take(std::atomic<uint64_t>& span, int64_t size, bool from_front) {
    uint64_t v = span.load(std::memory_order_relaxed);
    for (;;) {
        const auto front = static_cast<int64_t>(v >> 32), back = static_cast<int64_t>(v & 0xFFFFFFFFu);
        if (front >= back) return {};
        const Piece p =
            from_front ? Piece{front, std::min(back, front + size)} : Piece{std::max(front, back - size), back};
        const uint64_t next = from_front ? pack(static_cast<uint64_t>(p.end), static_cast<uint64_t>(back))
                                         : pack(static_cast<uint64_t>(front), static_cast<uint64_t>(p.begin));
        if (span.compare_exchange_weak(v, next, std::memory_order_acq_rel, std::memory_order_relaxed)) return p;
    }
}

}  // namespace

void ThreadPool::run_stream_share(int index) {
    for (Piece p; (p = take(shares_[index].span, job_chunk_, true)).begin < p.end;) (*job_)(p.begin, p.end, index);
    for (int k = 1; k < n_threads_; ++k) {
        auto& other = shares_[(index + k) % n_threads_].span;
        for (Piece p; (p = take(other, job_chunk_, false)).begin < p.end;) (*job_)(p.begin, p.end, index);
    }
}

void ThreadPool::run_part(int index) {
    if (job_stream_)
        run_stream_share(index);
    else
        run_share(index);
}

void ThreadPool::worker_loop(int index) {
    uint64_t seen = 0;
    for (;;) {
        // Spin briefly (a decode step issues the next loop within microseconds), then sleep.
        uint64_t g = generation_.load(std::memory_order_acquire);
        for (int spin = 0; g == seen && spin < 4000; ++spin) {
#if defined(__x86_64__)
            __builtin_ia32_pause();
#endif
            g = generation_.load(std::memory_order_acquire);
        }
        while (g == seen) {
            generation_.wait(seen, std::memory_order_acquire);
            g = generation_.load(std::memory_order_acquire);
        }
        seen = g;
        if (stop_.load()) return;
        run_part(index);
        pending_.fetch_sub(1, std::memory_order_acq_rel);
    }
}

bool ThreadPool::ran_alone(int64_t n, int64_t grain, const Job& fn) {
    const bool alone = n <= 0 || n_threads_ == 1 || n <= grain;
    if (alone && n > 0) fn(0, n, 0);
    return alone;
}

void ThreadPool::parallel_for(int64_t n, int64_t grain, const Job& fn) {
    grain = std::max<int64_t>(1, grain);
    if (ran_alone(n, grain, fn)) return;
    // About 4 chunks per thread: enough to balance, few enough to keep claiming cheap.
    run(n, std::max(grain, (n + n_threads_ * 4 - 1) / (n_threads_ * 4)), false, fn);
}

void ThreadPool::parallel_for_stream(int64_t n, int64_t grain, const Job& fn) {
    grain = std::max<int64_t>(1, grain);
    if (ran_alone(n, grain, fn)) return;
    assert(n < (int64_t{1} << 32));  // a share's bounds are 32-bit halves of one word
    for (int t = 0; t < n_threads_; ++t) {
        const auto front = static_cast<uint64_t>(n * t / n_threads_);
        const auto back = static_cast<uint64_t>(n * (t + 1) / n_threads_);
        shares_[t].span.store(pack(front, back), std::memory_order_relaxed);
    }
    run(n, std::max(grain, n / (n_threads_ * 64)), true, fn);
}

void ThreadPool::run(int64_t n, int64_t chunk, bool stream, const Job& fn) {
    job_ = &fn;
    job_n_ = n;
    job_chunk_ = chunk;
    job_stream_ = stream;
    next_chunk_.store(0);
    pending_.store(n_threads_ - 1, std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_acq_rel);
    generation_.notify_all();
    run_part(0);
    // Wait for every worker to check in. Spin briefly (the usual case: they are running), then
    // yield, so that on a loaded machine a descheduled worker gets the core instead of us burning
    // a whole time slice spinning for it.
    for (int spin = 0; pending_.load(std::memory_order_acquire) != 0; ++spin) {
        if (spin < 2000) {
#if defined(__x86_64__)
            __builtin_ia32_pause();
#endif
        } else {
            std::this_thread::yield();
        }
    }
    job_ = nullptr;
}

}  // namespace snapdoc
