// The CUDA emulation's block executor itself: barriers, static and dynamic shared memory, warp
// shuffles and votes, atomics, and the launch failures it reports instead of hanging (barriers in
// divergent code, warp ops waiting for a returned lane or reading a lane outside their mask).
#include <gtest/gtest.h>

#include <functional>
#include <numeric>
#include <vector>

#include "cuda_emu/control.h"
#include "cuda_emu/device.h"

namespace {

#define LAUNCH CUDA_EMU_LAUNCH

template <typename T>
struct Dev {
    T* p = nullptr;
    std::size_t n;
    explicit Dev(std::size_t count) : n(count) { EXPECT_EQ(cudaMalloc(&p, count * sizeof(T)), cudaSuccess); }
    Dev(const std::vector<T>& v) : Dev(v.size()) { EXPECT_EQ(cudaMemcpy(p, v.data(), n * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess); }
    ~Dev() { cudaFree(p); }
    std::vector<T> get() const {
        std::vector<T> v(n);
        EXPECT_EQ(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
        return v;
    }
};

// Each block reverses its 256 values through shared memory: correct only with the barrier.
__global__ void reverse_block(const int* in, int* out) {
    __shared__ int s[256];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = s[blockDim.x - 1 - threadIdx.x];
}

TEST(CudaEmuExecutor, BlockBarrierAndStaticSharedMemory) {
    std::vector<int> in(4 * 256);
    std::iota(in.begin(), in.end(), 0);
    Dev<int> din(in), dout(in.size());
    LAUNCH(4, 256, 0, nullptr, reverse_block)(din.p, dout.p);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    const auto out = dout.get();
    for (int b = 0; b < 4; ++b)
        for (int t = 0; t < 256; ++t) ASSERT_EQ(out[b * 256 + t], b * 256 + 255 - t);
}

// The same without the barrier reads values not yet written in lane order (the fibers run to the
// end one by one): the reverse schedule shows it too.
__global__ void reverse_block_racy(const int* in, int* out) {
    __shared__ int s[64];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = in[i];
    out[i] = s[blockDim.x - 1 - threadIdx.x];
}

TEST(CudaEmuExecutor, AMissingBarrierChangesTheResult) {
    int base = 1000;
    for (auto order : {cuda_emu::Order::Forward, cuda_emu::Order::Reverse}) {
        std::vector<int> in(64);
        std::iota(in.begin(), in.end(), base);
        Dev<int> din(in), dout(in.size());
        cuda_emu::set_order(order);
        LAUNCH(1, 64, 0, nullptr, reverse_block_racy)(din.p, dout.p);
        const auto out = dout.get();
        int right = 0;
        for (int t = 0; t < 64; ++t) right += out[t] == base + 63 - t;
        EXPECT_EQ(right, 32);  // half the threads read a slot before its writer ran
        base += 1000;
    }
    cuda_emu::set_order(cuda_emu::Order::Forward);
}

__global__ void warp_ops(const float* in, float* sum, float* bcast, float* down16, float* up3, unsigned* ballot, int* any,
                         int* all) {
    const int t = threadIdx.x, lane = t & 31;
    const float v = in[t];
    float s = v;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    sum[t] = s;
    bcast[t] = __shfl_sync(0xffffffffu, v, 5);
    down16[t] = __shfl_down_sync(0xffffffffu, v, 3, 16);
    up3[t] = __shfl_up_sync(0xffffffffu, v, 3);
    ballot[t] = __ballot_sync(0xffffffffu, v > 0.0f);
    any[t] = __any_sync(0xffffffffu, lane == 7 && v > 0.0f);
    all[t] = __all_sync(0xffffffffu, v > -100.0f);
}

TEST(CudaEmuExecutor, WarpShufflesAndVotes) {
    std::vector<float> in(64);
    for (int i = 0; i < 64; ++i) in[i] = static_cast<float>((i * 7) % 11) - 5.0f;
    Dev<float> din(in), sum(64), bcast(64), down(64), up(64);
    Dev<unsigned> ballot(64);
    Dev<int> any(64), all(64);
    LAUNCH(1, 64, 0, nullptr, warp_ops)(din.p, sum.p, bcast.p, down.p, up.p, ballot.p, any.p, all.p);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess) << cuda_emu::last_launch_diagnostic();
    const auto s = sum.get(), b = bcast.get(), d = down.get(), u = up.get();
    const auto bl = ballot.get();
    const auto an = any.get(), al = all.get();
    for (int w = 0; w < 2; ++w) {
        float want = 0;
        unsigned want_ballot = 0;
        for (int l = 0; l < 32; ++l) {
            want += in[w * 32 + l];
            if (in[w * 32 + l] > 0) want_ballot |= 1u << l;
        }
        for (int l = 0; l < 32; ++l) {
            const int t = w * 32 + l;
            EXPECT_FLOAT_EQ(s[t], want);
            EXPECT_EQ(b[t], in[w * 32 + 5]);
            EXPECT_EQ(d[t], (l % 16) + 3 < 16 ? in[t + 3] : in[t]) << "lane " << l;
            EXPECT_EQ(u[t], l >= 3 ? in[t - 3] : in[t]);
            EXPECT_EQ(bl[t], want_ballot);
            EXPECT_EQ(an[t], in[w * 32 + 7] > 0 ? 1 : 0);
            EXPECT_EQ(al[t], 1);
        }
    }
}

// Half-warp groups with their own masks complete independently.
__global__ void half_warp_sum(const int* in, int* out) {
    const int lane = threadIdx.x & 31;
    const unsigned mask = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    int v = in[threadIdx.x];
    for (int o = 8; o > 0; o >>= 1) v += __shfl_xor_sync(mask, v, o);
    out[threadIdx.x] = v;
}

TEST(CudaEmuExecutor, PartialMasks) {
    std::vector<int> in(32);
    std::iota(in.begin(), in.end(), 1);
    Dev<int> din(in), dout(32);
    LAUNCH(1, 32, 0, nullptr, half_warp_sum)(din.p, dout.p);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess) << cuda_emu::last_launch_diagnostic();
    const auto out = dout.get();
    for (int l = 0; l < 32; ++l) EXPECT_EQ(out[l], l < 16 ? 136 : 392);
}

__global__ void count_and_atomics(const int* in, int* counts, int* total, unsigned* maxv) {
    const int c = __syncthreads_count(in[threadIdx.x] > 0);
    const int all_pos = __syncthreads_and(in[threadIdx.x] > -1);
    const int some_big = __syncthreads_or(in[threadIdx.x] > 90);
    if (threadIdx.x == 0) {
        counts[blockIdx.x * 3] = c;
        counts[blockIdx.x * 3 + 1] = all_pos;
        counts[blockIdx.x * 3 + 2] = some_big;
    }
    atomicAdd(total, in[threadIdx.x]);
    atomicMax(maxv, static_cast<unsigned>(in[threadIdx.x] + 100));
}

TEST(CudaEmuExecutor, BarrierReductionsAndAtomics) {
    std::vector<int> in(96);
    for (int i = 0; i < 96; ++i) in[i] = i % 3 == 0 ? 0 : i;
    Dev<int> din(in), counts(6), total(std::vector<int>{0});
    Dev<unsigned> maxv(std::vector<unsigned>{0});
    LAUNCH(2, 96, 0, nullptr, count_and_atomics)(din.p, counts.p, total.p, maxv.p);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess) << cuda_emu::last_launch_diagnostic();
    const auto c = counts.get();
    EXPECT_EQ(c[0], 64);
    EXPECT_EQ(c[1], 1);
    EXPECT_EQ(c[2], 1);
    EXPECT_EQ(c[3], 64);
    EXPECT_EQ(total.get()[0], 2 * std::accumulate(in.begin(), in.end(), 0));
    EXPECT_EQ(maxv.get()[0], 195u);
}

__global__ void dynamic_smem_sum(const float* in, float* out, int n) {
    CUDA_EMU_DYNAMIC_SHARED(float, buf);
    buf[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0;
        for (int i = 0; i < n; ++i) s += buf[i];
        out[0] = s;
    }
}

TEST(CudaEmuExecutor, DynamicSharedMemory) {
    std::vector<float> in(200, 0.5f);
    Dev<float> din(in), dout(1);
    LAUNCH(1, 200, 200 * sizeof(float), nullptr, dynamic_smem_sum)(din.p, dout.p, 200);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_EQ(dout.get()[0], 100.0f);
    LAUNCH(1, 200, 64 << 10, nullptr, dynamic_smem_sum)(din.p, dout.p, 200);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);  // over the 48 KiB default
}

__global__ void divergent_barrier(int* out) {
    if (threadIdx.x < 16) {
        __syncthreads();
    } else {
        __syncthreads();
    }
    out[threadIdx.x] = 1;
}

__global__ void shuffle_with_returned_lane(int* out) {
    if ((threadIdx.x & 31) >= 16) return;
    out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, static_cast<int>(threadIdx.x), 1);
}

__global__ void shuffle_outside_mask(int* out) {
    if ((threadIdx.x & 31) >= 16) return;
    out[threadIdx.x] = __shfl_sync(0x0000ffffu, static_cast<int>(threadIdx.x), 20, 32);
}

TEST(CudaEmuExecutor, UndefinedSynchronisationFailsTheLaunchWithADiagnostic) {
    Dev<int> d(64);
    struct Case {
        const char* what;
        std::function<void()> launch;
    };
    const std::vector<Case> cases = {
        {"divergent code", [&] { LAUNCH(1, 64, 0, nullptr, divergent_barrier)(d.p); }},
        {"has returned", [&] { LAUNCH(1, 32, 0, nullptr, shuffle_with_returned_lane)(d.p); }},
        {"not in the mask", [&] { LAUNCH(1, 32, 0, nullptr, shuffle_outside_mask)(d.p); }},
    };
    for (const auto& c : cases) {
        c.launch();
        EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure) << c.what;
        EXPECT_NE(cuda_emu::last_launch_diagnostic().find(c.what), std::string::npos) << cuda_emu::last_launch_diagnostic();
    }
    // The executor is usable again afterwards.
    std::vector<int> in(256, 3);
    Dev<int> din(in), dout(256);
    LAUNCH(1, 256, 0, nullptr, reverse_block)(din.p, dout.p);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_EQ(dout.get(), in);
}

TEST(CudaEmuExecutor, InvalidLaunchConfiguration) {
    Dev<int> d(1);
    LAUNCH(1, 2048, 0, nullptr, reverse_block)(d.p, d.p);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
    LAUNCH(dim3(1, 70000), 32, 0, nullptr, reverse_block)(d.p, d.p);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
}

}  // namespace

namespace {

__global__ void add_one(int* v, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] += 1;
}

// Stream capture records launches and async copies; the graph replays them with the values the
// launch had at capture and reads host memory when it runs. A synchronising call invalidates it.
TEST(CudaEmuGraphs, CaptureRecordsAndLaunchReplays) {
    std::vector<int> in(300, 5), out(300, 0);
    Dev<int> d(in);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    LAUNCH(2, 256, 0, s, add_one)(d.p, 300);
    ASSERT_EQ(cudaMemcpyAsync(out.data(), d.p, 300 * sizeof(int), cudaMemcpyDeviceToHost, s), cudaSuccess);
    cudaStreamCaptureStatus status;
    ASSERT_EQ(cudaStreamIsCapturing(s, &status), cudaSuccess);
    EXPECT_EQ(status, cudaStreamCaptureStatusActive);
    cudaGraph_t g = nullptr;
    ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
    EXPECT_EQ(out[0], 0);  // recorded, not run
    EXPECT_EQ(d.get()[0], 5);
    cudaGraphExec_t ge;
    ASSERT_EQ(cudaGraphInstantiate(&ge, g, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(ge, s), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(ge, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(out, std::vector<int>(300, 7));
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);

    ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    LAUNCH(2, 256, 0, s, add_one)(d.p, 300);
    EXPECT_EQ(cudaMemcpy(out.data(), d.p, 4, cudaMemcpyDeviceToHost), cudaErrorStreamCaptureUnsupported);
    EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
    EXPECT_EQ(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    EXPECT_EQ(g, nullptr);
    EXPECT_EQ(d.get()[0], 7);
    cudaGetLastError();
    cudaStreamDestroy(s);
}

}  // namespace
