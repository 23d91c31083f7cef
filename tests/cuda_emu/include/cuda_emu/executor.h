// CUDA emulation (tests/cuda_emu): the block executor's interface. A launch runs the blocks of the
// grid one after another; the threads of a block are fibers (ucontext, own small stack each) that
// run until they reach a barrier (__syncthreads, a warp op) or return. A barrier is released when
// every thread it waits for has arrived; warp ops exchange values among the lanes of their mask at
// that moment. Mismatched barriers, warp ops whose mask names an exited lane or a lane that is not
// in the mask, and kernels that never reach the barrier others wait at, fail the launch with a
// diagnostic (cudaErrorLaunchFailure, printed to stderr) instead of hanging.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace cuda_emu {

struct KernelLaunch {
    dim3 grid, block;
    std::size_t dynamic_smem = 0;
    cudaStream_t stream = nullptr;
    const char* name = "";
    void (*body)(void*) = nullptr;  // runs one thread: the kernel with the launch's arguments
    void* ctx = nullptr;
};

// Runs the launch to completion; also sets the runtime's last error (cudaGetLastError).
cudaError_t launch(const KernelLaunch& l);
// Records `run` instead when l.stream is capturing a graph (returns true then).
bool capture_launch(cudaStream_t stream, std::function<cudaError_t()> run);

// What the last failed launch reported ("" after a successful one).
std::string last_launch_diagnostic();

// Counters for tests and for sizing the emulated suite.
struct ExecutorStats {
    int64_t launches = 0, blocks = 0, threads = 0, block_barriers = 0, warp_ops = 0;
};
ExecutorStats executor_stats();

// Order in which the fibers of a block are resumed: lane order, or reversed (a kernel whose result
// depends on it reads shared memory without the barrier it needs). Default from the environment
// variable SNAPDOC_CUDA_EMU_ORDER=forward|reverse.
enum class Order { Forward, Reverse };
void set_order(Order o);

namespace detail {
extern const uint3* g_thread_idx;
extern uint3 g_block_idx;
extern dim3 g_block_dim, g_grid_dim;
extern unsigned char* g_dynamic_smem;

void block_barrier(const char* file, int line);
enum class BlockReduce { Count, And, Or };
int block_barrier_reduce(BlockReduce op, int pred, const char* file, int line);

enum class WarpOp { Sync, Idx, Xor, Down, Up, Ballot, Any, All };
// Deposits `value` for this lane, waits for the lanes of `mask`, returns this lane's result.
uint64_t warp_exchange(WarpOp op, unsigned mask, uint64_t value, int param, int width, const char* file, int line);
unsigned lane_id();
// Fails the running launch with `what` as its diagnostic (device code that a GPU would reject or
// run undefined, e.g. a misaligned WMMA operand).
[[noreturn]] void device_fault(const std::string& what);
}  // namespace detail

template <typename... P>
class Launcher {
public:
    Launcher(dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream, void (*kernel)(P...), const char* name)
        : grid_(grid), block_(block), smem_(smem), stream_(stream), kernel_(kernel), name_(name) {}

    template <typename... A>
    void operator()(A&&... a) const {
        static_assert(sizeof...(A) == sizeof...(P), "kernel launched with the wrong number of arguments");
        auto ctx = std::make_shared<Ctx>(Ctx{kernel_, std::tuple<std::decay_t<P>...>(std::forward<A>(a)...)});
        KernelLaunch l;
        l.grid = grid_;
        l.block = block_;
        l.dynamic_smem = smem_;
        l.stream = stream_;
        l.name = name_;
        l.body = &body;
        l.ctx = ctx.get();
        // A graph being captured keeps the launch (and its argument values) for cudaGraphLaunch.
        if (capture_launch(stream_, [l, ctx] { return launch(l); })) return;
        launch(l);
    }

private:
    struct Ctx {
        void (*kernel)(P...);
        std::tuple<std::decay_t<P>...> args;
    };
    // Each thread calls the kernel with its own copy of the arguments, as on the device.
    static void body(void* p) {
        auto* c = static_cast<Ctx*>(p);
        std::apply(c->kernel, c->args);
    }
    dim3 grid_, block_;
    std::size_t smem_;
    cudaStream_t stream_;
    void (*kernel_)(P...);
    const char* name_;
};

template <typename... P>
Launcher<P...> make_launcher(dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream, void (*kernel)(P...),
                             const char* name) {
    return Launcher<P...>(grid, block, smem, stream, kernel, name);
}

}  // namespace cuda_emu

// kernel<<<grid, block, smem, stream>>>(args) is written SNAPDOC_LAUNCH(grid, block, smem, stream, kernel)(args)
// in kernels/*.cu (see kernels/device_utils.cuh); under the emulation it becomes this.
#define CUDA_EMU_LAUNCH(grid, block, smem, stream, ...) \
    ::cuda_emu::make_launcher((grid), (block), (smem), stream, &__VA_ARGS__, #__VA_ARGS__)
