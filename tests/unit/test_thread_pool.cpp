// The CPU backend's thread pool: both loop kinds cover their range exactly once, for any split,
// and the streaming loop hands a stalled thread's share to the others.
#include "engine/runtime/cpu/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace snapdoc {
namespace {

TEST(CpuThreadPool, CoversRangeExactlyOnce) {
    ThreadPool pool(2);
    for (int64_t n : {1, 7, 1000, 100003}) {
        std::vector<std::atomic<int>> hits(n);
        pool.parallel_for(n, 3, [&](int64_t a, int64_t b, int) {
            for (int64_t i = a; i < b; ++i) hits[i]++;
        });
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1);
    }
}

TEST(CpuThreadPool, StreamingLoopCoversRangeExactlyOnce) {
    for (int threads : {2, 3}) {
        ThreadPool pool(threads);
        for (int64_t n : {1, 2, 7, 1000, 100003}) {
            for (int64_t grain : {1, 16}) {
                std::vector<std::atomic<int>> hits(n);
                pool.parallel_for_stream(n, grain, [&](int64_t a, int64_t b, int) {
                    ASSERT_LT(a, b);
                    for (int64_t i = a; i < b; ++i) hits[i]++;
                });
                for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << threads << " threads, n " << n;
            }
        }
    }
}

TEST(CpuThreadPool, StreamingLoopHandsAStalledThreadsShareToTheOthers) {
    // The worker stalls in its first piece until the caller has done every other index, which it
    // can only do by taking the worker's share from the back. The caller's first piece waits for
    // the worker to start, so the caller cannot finish alone first. Waits are bounded: a broken
    // hand-over fails the test instead of hanging it.
    ThreadPool pool(2);
    const int64_t n = 4096;
    std::atomic<int64_t> done_by_caller{0}, stalled_piece{0};
    std::atomic<bool> handed_over{false};
    const auto wait_until = [](const auto& ready) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (!ready() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
        return ready();
    };
    pool.parallel_for_stream(n, 16, [&](int64_t a, int64_t b, int thread) {
        if (thread == 0) {
            if (a == 0) wait_until([&] { return stalled_piece.load() > 0; });
            done_by_caller += b - a;
            return;
        }
        int64_t none = 0;
        if (!stalled_piece.compare_exchange_strong(none, b - a)) return;
        handed_over = wait_until([&] { return done_by_caller.load() == n - (b - a); });
    });
    const bool stalled = stalled_piece.load() > 0;
    EXPECT_TRUE(stalled);
    EXPECT_TRUE(handed_over.load()) << done_by_caller.load() << " of " << n - stalled_piece.load();
}

}  // namespace
}  // namespace snapdoc
