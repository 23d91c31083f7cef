// CUDA emulation: the block executor (see include/cuda_emu/executor.h). One OS thread runs a whole
// launch: blocks in order (x fastest), and inside a block one fiber per thread. Fibers switch only
// at barriers, so shared memory is consistent at exactly the points where CUDA guarantees it and
// a plain read-modify-write is atomic.
#include "cuda_emu/executor.h"

#include <sys/mman.h>
#include <ucontext.h>

#if defined(__SANITIZE_ADDRESS__)
#define CUDA_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUDA_EMU_ASAN 1
#endif
#endif
#ifdef CUDA_EMU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "runtime_internal.h"

namespace cuda_emu {
namespace detail {
const uint3* g_thread_idx = nullptr;
uint3 g_block_idx{0, 0, 0};
dim3 g_block_dim, g_grid_dim;
unsigned char* g_dynamic_smem = nullptr;
}  // namespace detail

namespace {

using detail::BlockReduce;
using detail::WarpOp;

constexpr std::size_t kStackBytes = std::size_t{64} << 10;
constexpr std::size_t kGuardBytes = 4096;  // PROT_NONE below each stack: an overflow faults at once
constexpr int kMaxThreads = 1024;
constexpr std::size_t kMaxDynamicSmem = 48 << 10;  // the default limit without cudaFuncSetAttribute

enum class State : uint8_t { Ready, BlockWait, WarpWait, Done };

// Switching fibers. On x86-64 a few instructions of our own (callee-saved registers and the stack
// pointer): glibc's swapcontext also saves the signal mask with a system call each time, which
// made the emulated suite ~10x slower. Elsewhere ucontext (also with -DCUDA_EMU_UCONTEXT).
// Under AddressSanitizer every switch is announced (__sanitizer_start/finish_switch_fiber): without
// that ASan takes a fiber's frames for the thread's stack and reports false stack errors.
#if defined(__x86_64__) && !defined(CUDA_EMU_UCONTEXT)
#define CUDA_EMU_ASM_SWITCH 1
#endif

extern "C" void cuda_emu_fiber_entry();

struct Context {
#ifdef CUDA_EMU_ASM_SWITCH
    void* sp = nullptr;
#else
    ucontext_t uc{};
#endif
#ifdef CUDA_EMU_ASAN
    const void* stack_bottom = nullptr;  // the scheduler's: learnt at its first switch away
    std::size_t stack_size = 0;
    void* fake_stack = nullptr;  // ASan's fake frames (use-after-return detection) while switched away
#endif
};

#ifdef CUDA_EMU_ASAN
Context* g_switch_from = nullptr;  // the context being left: the arriving side records its stack
// The first half of a switch; `final` when `from` is never resumed (a returned or failed thread),
// so ASan drops its fake frames.
inline void asan_leave(Context& from, const Context& to, bool final) {
    g_switch_from = &from;
    __sanitizer_start_switch_fiber(final ? nullptr : &from.fake_stack, to.stack_bottom, to.stack_size);
}
// The second half, on the arriving stack (after the switch returns, or first thing in a new fiber).
inline void asan_arrive(void* fake_stack) {
    Context* from = g_switch_from;
    __sanitizer_finish_switch_fiber(fake_stack, &from->stack_bottom, &from->stack_size);
}
#endif

#ifdef CUDA_EMU_ASM_SWITCH
extern "C" void cuda_emu_switch(void** save_sp, void* load_sp);
asm(R"(
    .text
    .globl cuda_emu_switch
    .type cuda_emu_switch, @function
cuda_emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size cuda_emu_switch, .-cuda_emu_switch

    .globl cuda_emu_fiber_trampoline
    .type cuda_emu_fiber_trampoline, @function
cuda_emu_fiber_trampoline:
    call cuda_emu_fiber_entry
    ud2
    .size cuda_emu_fiber_trampoline, .-cuda_emu_fiber_trampoline
)");
extern "C" void cuda_emu_fiber_trampoline();

inline void raw_swap(Context& from, Context& to) { cuda_emu_switch(&from.sp, to.sp); }
inline void raw_prepare(Context& c, unsigned char* stack, std::size_t bytes) {
    // Six zeroed registers for the pops, then the trampoline as the return address; the trampoline
    // starts with rsp 16-byte aligned, as its `call` needs.
    auto top = reinterpret_cast<uintptr_t>(stack + bytes) & ~uintptr_t{15};
    auto* sp = reinterpret_cast<void**>(top - 72);
    for (int i = 0; i < 6; ++i) sp[i] = nullptr;
    sp[6] = reinterpret_cast<void*>(&cuda_emu_fiber_trampoline);
    c.sp = sp;
}
#else
inline void raw_swap(Context& from, Context& to) { swapcontext(&from.uc, &to.uc); }
inline void raw_prepare(Context& c, unsigned char* stack, std::size_t bytes) {
    getcontext(&c.uc);
    c.uc.uc_stack.ss_sp = stack;
    c.uc.uc_stack.ss_size = bytes;
    c.uc.uc_link = nullptr;
    makecontext(&c.uc, &cuda_emu_fiber_entry, 0);
}
#endif

#ifdef CUDA_EMU_ASAN
inline void swap_to(Context& from, Context& to, bool final = false) {
    asan_leave(from, to, final);
    raw_swap(from, to);
    asan_arrive(from.fake_stack);
}
inline void prepare(Context& c, unsigned char* stack, std::size_t bytes) {
    // A stack is reused by the next block and launch: frames that never returned (a thread's last
    // switch away, an abandoned launch) left their redzones poisoned.
    ASAN_UNPOISON_MEMORY_REGION(stack, bytes);
    c.stack_bottom = stack;
    c.stack_size = bytes;
    c.fake_stack = nullptr;
    raw_prepare(c, stack, bytes);
}
#else
inline void swap_to(Context& from, Context& to, bool = false) { raw_swap(from, to); }
inline void prepare(Context& c, unsigned char* stack, std::size_t bytes) { raw_prepare(c, stack, bytes); }
#endif

struct Fiber {
    Context ctx;
    uint3 idx;
    int lane = 0, warp = 0;
    State state = State::Ready;
    // At a block barrier.
    BlockReduce reduce = BlockReduce::Count;
    int pred = 0, block_result = 0;
    // At a warp op.
    WarpOp op = WarpOp::Sync;
    unsigned mask = 0;
    uint64_t value = 0, result = 0;
    int param = 0, width = 32;
    const char* file = "";
    int line = 0;
};

struct WarpState {
    unsigned waiting = 0;     // lanes at a warp op
    unsigned at_block = 0;    // lanes at __syncthreads
    unsigned done = 0;        // lanes that returned
    unsigned exists = 0;      // lanes the block has (the last warp may be partial)
};

const char* op_name(WarpOp op) {
    switch (op) {
        case WarpOp::Sync: return "__syncwarp";
        case WarpOp::Idx: return "__shfl_sync";
        case WarpOp::Xor: return "__shfl_xor_sync";
        case WarpOp::Down: return "__shfl_down_sync";
        case WarpOp::Up: return "__shfl_up_sync";
        case WarpOp::Ballot: return "__ballot_sync";
        case WarpOp::Any: return "__any_sync";
        case WarpOp::All: return "__all_sync";
    }
    return "?";
}

std::string where(const char* file, int line) {
    const char* slash = std::strrchr(file, '/');
    return std::string(slash ? slash + 1 : file) + ":" + std::to_string(line);
}

class Executor {
public:
    cudaError_t run(const KernelLaunch& l);
    void block_arrive(BlockReduce op, int pred, const char* file, int line, bool reduce);
    uint64_t warp_arrive(WarpOp op, unsigned mask, uint64_t value, int param, int width, const char* file, int line);
    [[noreturn]] void fail(const std::string& msg);
    [[noreturn]] static void fiber_main();
    int block_result() const { return cur_->block_result; }
    unsigned lane() const { return cur_ ? static_cast<unsigned>(cur_->lane) : 0u; }

    ExecutorStats stats;
    std::string diagnostic;
    Order order = Order::Forward;

private:
    void ensure_stacks(int n);
    unsigned char* stack(int i) const { return stacks_ + static_cast<std::size_t>(i) * (kStackBytes + kGuardBytes) + kGuardBytes; }
    bool run_block();
    // Blocks the current fiber: hands over straight to the next ready fiber of the block (in the
    // schedule's order), or to the scheduler when none is ready (all waiting: deadlock, or done).
    void yield() {
        Fiber* from = cur_;
        Fiber* to = next_ready();
        const bool final = from->state == State::Done;  // a returned thread is never resumed
        if (!to) {
            swap_to(from->ctx, sched_, final);
            return;
        }
        cur_ = to;
        detail::g_thread_idx = &to->idx;
        swap_to(from->ctx, to->ctx, final);
    }
    Fiber* next_ready() {
        const int i = static_cast<int>(cur_ - fibers_.data());
        for (int step = 1; step < n_; ++step) {
            const int j = order == Order::Forward ? (i + step) % n_ : (i - step + n_) % n_;
            if (fibers_[j].state == State::Ready) return &fibers_[j];
        }
        return nullptr;
    }
    void release_block();
    void complete_warp(int warp, unsigned mask);
    std::string describe_waits() const;
    std::string block_name() const {
        return "block (" + std::to_string(detail::g_block_idx.x) + "," + std::to_string(detail::g_block_idx.y) + "," +
               std::to_string(detail::g_block_idx.z) + ")";
    }
    std::string thread_name(const Fiber& f) const {
        return "thread (" + std::to_string(f.idx.x) + "," + std::to_string(f.idx.y) + "," + std::to_string(f.idx.z) +
               ") [warp " + std::to_string(f.warp) + " lane " + std::to_string(f.lane) + "]";
    }

    const KernelLaunch* launch_ = nullptr;
    std::vector<Fiber> fibers_;
    std::vector<WarpState> warps_;
    int n_ = 0, live_ = 0, block_arrived_ = 0;
    const char* block_file_ = "";
    int block_line_ = 0;
    Context sched_{};
    Fiber* cur_ = nullptr;
    bool failed_ = false;
    unsigned char* stacks_ = nullptr;
    int stack_slots_ = 0;
    std::vector<unsigned char> smem_;
};

Executor& ex() {
    static Executor* e = [] {
        auto* x = new Executor;  // never destroyed: fibers may still reference it at exit
        const char* o = std::getenv("SNAPDOC_CUDA_EMU_ORDER");
        if (o && std::strcmp(o, "reverse") == 0) x->order = Order::Reverse;
        return x;
    }();
    return *e;
}

void Executor::ensure_stacks(int n) {
    if (n <= stack_slots_) return;
    const std::size_t slot = kStackBytes + kGuardBytes;
    void* p = mmap(nullptr, slot * kMaxThreads, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("cuda_emu: cannot map fiber stacks");
    stacks_ = static_cast<unsigned char*>(p);
    for (int i = 0; i < kMaxThreads; ++i) mprotect(stacks_ + static_cast<std::size_t>(i) * slot, kGuardBytes, PROT_NONE);
    stack_slots_ = kMaxThreads;
}

void Executor::fail(const std::string& msg) {
    if (!failed_) {
        failed_ = true;
        diagnostic = std::string("kernel ") + launch_->name + ", " + block_name() + ", " +
                     (cur_ ? thread_name(*cur_) : std::string("?")) + ": " + msg;
    }
    // Never resumed: the launch is abandoned (kernels hold only trivially destructible locals).
    swap_to(cur_->ctx, sched_, true);
    std::abort();
}

void Executor::fiber_main() {
#ifdef CUDA_EMU_ASAN
    asan_arrive(nullptr);  // the second half of the switch that started this fiber
#endif
    Executor& e = ex();
    Fiber* f = e.cur_;
    e.launch_->body(e.launch_->ctx);
    f->state = State::Done;
    --e.live_;
    WarpState& w = e.warps_[f->warp];
    w.done |= 1u << f->lane;
    // Lanes already waiting for this one at a warp op can never complete.
    for (int l = 0; l < 32; ++l) {
        if (!(w.waiting >> l & 1)) continue;
        const Fiber& g = e.fibers_[f->warp * 32 + l];
        if (g.mask >> f->lane & 1) {
            e.cur_ = &e.fibers_[f->warp * 32 + l];
            e.fail(std::string(op_name(g.op)) + " at " + where(g.file, g.line) + " (mask 0x" +
                   [&] { char b[16]; std::snprintf(b, sizeof b, "%08x", g.mask); return std::string(b); }() +
                   ") waits for lane " + std::to_string(f->lane) + ", which has returned");
        }
    }
    // Returned threads no longer hold a block barrier up.
    if (e.block_arrived_ > 0 && e.block_arrived_ == e.live_) e.release_block();
    e.yield();  // never resumed: the state is Done
    std::abort();
}

void Executor::release_block() {
    int count = 0;
    for (int i = 0; i < n_; ++i)
        if (fibers_[i].state == State::BlockWait && fibers_[i].pred) ++count;
    for (int i = 0; i < n_; ++i) {
        Fiber& f = fibers_[i];
        if (f.state != State::BlockWait) continue;
        f.block_result = f.reduce == BlockReduce::Count ? count
                         : f.reduce == BlockReduce::And ? (count == block_arrived_ ? 1 : 0)
                                                        : (count > 0 ? 1 : 0);
        f.state = State::Ready;
    }
    for (auto& w : warps_) w.at_block = 0;
    block_arrived_ = 0;
    ++stats.block_barriers;
}

void Executor::block_arrive(BlockReduce op, int pred, const char* file, int line, bool reduce) {
    Fiber* f = cur_;
    WarpState& w = warps_[f->warp];
    if (w.waiting) {
        // A lane of this warp waits at a warp op this thread will never reach.
        for (int l = 0; l < 32; ++l)
            if (w.waiting >> l & 1) {
                const Fiber& g = fibers_[f->warp * 32 + l];
                if (g.mask >> f->lane & 1)
                    fail("reaches __syncthreads at " + where(file, line) + " while lane " + std::to_string(l) + " waits for it at " +
                         op_name(g.op) + " " + where(g.file, g.line));
            }
    }
    if (block_arrived_ == 0) {
        block_file_ = file;
        block_line_ = line;
    } else if (block_line_ != line || (block_file_ != file && std::strcmp(block_file_, file) != 0)) {
        fail("reaches __syncthreads at " + where(file, line) + " while other threads wait at " + where(block_file_, block_line_) +
             " (a barrier in divergent code)");
    }
    f->state = State::BlockWait;
    f->reduce = reduce ? op : BlockReduce::Count;
    f->pred = pred;
    w.at_block |= 1u << f->lane;
    ++block_arrived_;
    if (block_arrived_ == live_) release_block();
    else yield();
}

uint64_t Executor::warp_arrive(WarpOp op, unsigned mask, uint64_t value, int param, int width, const char* file, int line) {
    Fiber* f = cur_;
    ++stats.warp_ops;
    WarpState& w = warps_[f->warp];
    const bool bad_width = width < 1 || width > 32 || (width & (width - 1)) != 0;
    if (!(mask >> f->lane & 1) || (mask & ~w.exists) || bad_width || (mask & (w.done | w.at_block))) {
        // The message is built only here: warp ops are the emulator's hottest path.
        char mbuf[16];
        std::snprintf(mbuf, sizeof mbuf, "0x%08x", mask);
        const std::string what = std::string(op_name(op)) + " at " + where(file, line) + " (mask " + mbuf + ")";
        if (!(mask >> f->lane & 1)) fail(what + " is called by a lane its mask does not include");
        if (mask & ~w.exists) fail(what + " names lanes the block does not have");
        if (bad_width) fail(what + " with width " + std::to_string(width));
        if (mask & w.done) fail(what + " waits for a lane that has returned");
        fail(what + " waits for a lane that is at __syncthreads " + where(block_file_, block_line_));
    }
    f->op = op;
    f->mask = mask;
    f->value = value;
    f->param = param;
    f->width = width;
    f->file = file;
    f->line = line;
    f->state = State::WarpWait;
    w.waiting |= 1u << f->lane;
    if ((w.waiting & mask) == mask) complete_warp(f->warp, mask);
    else yield();
    return f->result;
}

void Executor::complete_warp(int warp, unsigned mask) {
    Fiber* base = &fibers_[warp * 32];
    const Fiber& me = *cur_;
    for (int l = 0; l < 32; ++l) {
        if (!(mask >> l & 1)) continue;
        const Fiber& g = base[l];
        if (g.mask != mask || g.op != me.op || g.line != me.line || (g.file != me.file && std::strcmp(g.file, me.file) != 0)) {
            char b[16];
            std::snprintf(b, sizeof b, "0x%08x", g.mask);
            fail(std::string(op_name(me.op)) + " at " + where(me.file, me.line) + ": lane " + std::to_string(l) + " is at " +
                 op_name(g.op) + " " + where(g.file, g.line) + " with mask " + b + " (lanes of a mask must meet at the same warp op)");
        }
    }
    unsigned ballot = 0;
    int votes = 0, members = 0;
    for (int l = 0; l < 32; ++l)
        if (mask >> l & 1) {
            ++members;
            if (base[l].value) {
                ballot |= 1u << l;
                ++votes;
            }
        }
    for (int l = 0; l < 32; ++l) {
        if (!(mask >> l & 1)) continue;
        Fiber& g = base[l];
        const int w = g.width, seg = l & ~(w - 1);
        int src = l;
        switch (g.op) {
            case WarpOp::Sync: g.result = 0; break;
            case WarpOp::Ballot: g.result = ballot; break;
            case WarpOp::Any: g.result = votes > 0; break;
            case WarpOp::All: g.result = votes == members; break;
            case WarpOp::Idx: src = seg + (g.param & (w - 1)); break;
            case WarpOp::Xor: src = l ^ g.param; if (src >= seg + w || src < 0 || src > 31) src = l; break;
            case WarpOp::Down: src = (l & (w - 1)) + g.param >= w ? l : l + g.param; break;
            case WarpOp::Up: src = (l & (w - 1)) < g.param ? l : l - g.param; break;
        }
        if (g.op == WarpOp::Idx || g.op == WarpOp::Xor || g.op == WarpOp::Down || g.op == WarpOp::Up) {
            if (!(mask >> src & 1)) {
                cur_ = &g;
                fail(std::string(op_name(g.op)) + " at " + where(g.file, g.line) + " reads lane " + std::to_string(src) +
                     ", which is not in the mask (undefined on the device)");
            }
            g.result = base[src].value;
        }
    }
    for (int l = 0; l < 32; ++l)
        if (mask >> l & 1) base[l].state = State::Ready;
    warps_[warp].waiting &= ~mask;
}

std::string Executor::describe_waits() const {
    std::string s;
    int at_block = 0;
    for (int i = 0; i < n_; ++i) at_block += fibers_[i].state == State::BlockWait;
    if (at_block) s += std::to_string(at_block) + " threads at __syncthreads " + where(block_file_, block_line_) + "; ";
    for (int i = 0; i < n_; ++i) {
        const Fiber& f = fibers_[i];
        if (f.state == State::WarpWait) s += thread_name(f) + " at " + op_name(f.op) + " " + where(f.file, f.line) + "; ";
    }
    s += std::to_string(n_ - live_) + " of " + std::to_string(n_) + " threads returned";
    return s;
}

bool Executor::run_block() {
    const dim3 b = launch_->block;
    n_ = static_cast<int>(b.x * b.y * b.z);
    fibers_.resize(static_cast<std::size_t>(n_));
    warps_.assign(static_cast<std::size_t>((n_ + 31) / 32), WarpState{});
    for (int i = 0; i < n_; ++i) {
        Fiber& f = fibers_[i];
        f.idx = {static_cast<unsigned>(i) % b.x, static_cast<unsigned>(i) / b.x % b.y, static_cast<unsigned>(i) / (b.x * b.y)};
        f.lane = i % 32;
        f.warp = i / 32;
        f.state = State::Ready;
        warps_[f.warp].exists |= 1u << f.lane;
        prepare(f.ctx, stack(i), kStackBytes);
    }
    live_ = n_;
    block_arrived_ = 0;
    stats.threads += n_;
    ++stats.blocks;
    while (live_ > 0) {
        bool ran = false;
        for (int k = 0; k < n_; ++k) {
            const int i = order == Order::Forward ? k : n_ - 1 - k;
            Fiber& f = fibers_[i];
            if (f.state != State::Ready) continue;
            ran = true;
            cur_ = &f;
            detail::g_thread_idx = &f.idx;
            swap_to(sched_, f.ctx);
            if (failed_) return false;
        }
        if (!ran) {
            cur_ = nullptr;
            failed_ = true;
            diagnostic = std::string("kernel ") + launch_->name + ", " + block_name() + ": deadlock: " + describe_waits();
            return false;
        }
    }
    return true;
}

cudaError_t Executor::run(const KernelLaunch& l) {
    const dim3 g = l.grid, b = l.block;
    const uint64_t threads = uint64_t{b.x} * b.y * b.z;
    auto reject = [&](cudaError_t e, const std::string& why) {
        diagnostic = std::string("kernel ") + l.name + ": " + why;
        std::fprintf(stderr, "cuda_emu: %s\n", diagnostic.c_str());
        runtime::set_last_error(e);
        return e;
    };
    if (!runtime::stream_valid(l.stream)) return reject(cudaErrorInvalidResourceHandle, "launched on a destroyed stream");
    if (g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.y == 0 || b.z == 0 || threads > kMaxThreads || b.z > 64 ||
        g.x > 0x7fffffffu || g.y > 65535 || g.z > 65535)
        return reject(cudaErrorInvalidConfiguration,
                      "invalid launch configuration grid (" + std::to_string(g.x) + "," + std::to_string(g.y) + "," +
                          std::to_string(g.z) + ") block (" + std::to_string(b.x) + "," + std::to_string(b.y) + "," +
                          std::to_string(b.z) + ")");
    if (l.dynamic_smem > kMaxDynamicSmem)
        return reject(cudaErrorInvalidValue, std::to_string(l.dynamic_smem) + " bytes of dynamic shared memory (limit 48 KiB)");
    ensure_stacks(static_cast<int>(threads));
    smem_.assign(l.dynamic_smem + 16, 0xCD);  // a recognisable pattern: shared memory starts undefined
    launch_ = &l;
    failed_ = false;
    diagnostic.clear();
    ++stats.launches;
    detail::g_grid_dim = g;
    detail::g_block_dim = b;
    detail::g_dynamic_smem = smem_.data();
    bool ok = true;
    for (unsigned z = 0; z < g.z && ok; ++z)
        for (unsigned y = 0; y < g.y && ok; ++y)
            for (unsigned x = 0; x < g.x && ok; ++x) {
                detail::g_block_idx = {x, y, z};
                ok = run_block();
            }
    detail::g_thread_idx = nullptr;
    launch_ = nullptr;
    cur_ = nullptr;
    if (!ok) {
        std::fprintf(stderr, "cuda_emu: %s\n", diagnostic.c_str());
        runtime::set_last_error(cudaErrorLaunchFailure);
        return cudaErrorLaunchFailure;
    }
    return cudaSuccess;
}

}  // namespace

bool capture_launch(cudaStream_t stream, std::function<cudaError_t()> run) { return runtime::record(stream, std::move(run)); }

cudaError_t launch(const KernelLaunch& l) {
    // One launch at a time: the built-in variables and the schedule are process-wide.
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    return ex().run(l);
}
std::string last_launch_diagnostic() { return ex().diagnostic; }
ExecutorStats executor_stats() { return ex().stats; }
void set_order(Order o) { ex().order = o; }

namespace detail {
void block_barrier(const char* file, int line) { ex().block_arrive(BlockReduce::Count, 0, file, line, false); }
int block_barrier_reduce(BlockReduce op, int pred, const char* file, int line) {
    ex().block_arrive(op, pred != 0, file, line, true);
    return ex().block_result();
}
uint64_t warp_exchange(WarpOp op, unsigned mask, uint64_t value, int param, int width, const char* file, int line) {
    return ex().warp_arrive(op, mask, value, param, width, file, line);
}
unsigned lane_id() { return ex().lane(); }
void device_fault(const std::string& what) { ex().fail(what); }
}  // namespace detail

}  // namespace cuda_emu

extern "C" void cuda_emu_fiber_entry() { cuda_emu::Executor::fiber_main(); }
