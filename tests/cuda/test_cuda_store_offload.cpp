// The document's full K/V when it does not fit on the GPU (engine/runtime/cuda/cuda_full_kv_store.h,
// offload mode, forced by a small emulated device): each prefill layer is copied to the page-locked
// host store on a second stream (ordered by events, overlapping the next layer), each re-snap layer
// comes up while the previous one computes — and the selections and answers are exactly those of
// the host path. A store that fits nowhere is refused with the numbers, and the backend stays usable.
#include "tests/cuda/cuda_store_fixture.h"

#include <cstdio>

#include "engine/common/error.h"
#include "engine/kv/checksum64.h"
#include "engine/runtime/cuda/cuda_full_kv_store.h"
#include "tests/support/temp_dir.h"

namespace snapdoc {
namespace {

using namespace cudatest;

#ifdef SNAPDOC_CUDA_EMU
// Device bytes the prefill allocates before it attaches the store (the activations for the document).
int64_t prefill_activation_bytes(const ModelConfig& c, int tokens) {
    return (int64_t{tokens} * c.dim * 4 + 255) / 256 * 256;
}
#endif

TEST_F(CudaStoreTest, OffloadedStoreGivesTheHostPathsResultsWithOverlappedCopies) {
#ifndef SNAPDOC_CUDA_EMU
    GTEST_SKIP() << "needs the emulator's adjustable device memory";
#else
    const int D = static_cast<int>(doc.size());
    const cuda::FullKvNeeds needs = cuda::full_kv_needs(cfg(), D);
    ASSERT_LT(needs.offload, needs.resident);
    DocumentSessionOptions host_path;
    host_path.backend_kv_store = false;
    DocumentSession off(*gpu), host(*gpu_host, host_path);
    cuda_emu::reset_copy_stats();
    host.prefill_document(doc);
    const int64_t host_path_d2h = cuda_emu::copy_stats().d2h;
    {
        EmulatedMemory mem;
        // Room for the staging but not the whole store.
        ASSERT_TRUE(mem.leave(prefill_activation_bytes(cfg(), D) + (needs.offload + needs.resident) / 2));
        cuda_emu::reset_copy_stats();
        off.prefill_document(doc);
        const cuda_emu::CopyStats prefill = cuda_emu::copy_stats();
        ASSERT_NE(off.backend_kv_store(), nullptr);
        EXPECT_FALSE(off.backend_kv_store()->resident()) << off.backend_kv_store()->describe();
        EXPECT_LT(off.backend_kv_store()->device_bytes(), store_bytes());
        std::printf("%s\n", off.backend_kv_store()->describe().c_str());
        // Every layer went to the page-locked host store by an async copy on the second stream,
        // after an event wait (compute -> copy), never through read_kv's f32 staging.
        EXPECT_GE(prefill.pinned_async, store_bytes());
        EXPECT_GE(prefill.stream_waits, 2 * cfg().n_layers);
        // f16 once instead of read_kv's f32 (the rest is the captured queries, the same on both).
        EXPECT_EQ(host_path_d2h - prefill.d2h, store_bytes());
        std::printf("offloaded prefill: %lld bytes to pinned host memory asynchronously, %lld event waits\n",
                    static_cast<long long>(prefill.pinned_async), static_cast<long long>(prefill.stream_waits));

        for (const auto& q : questions)
            for (auto policy : {BudgetPolicy::Uniform, BudgetPolicy::Adaptive}) {
                SnapKvConfig cfg_snap;
                cfg_snap.budget = 64;
                cfg_snap.window = 16;
                cfg_snap.policy = policy;
                cuda_emu::reset_copy_stats();
                off.set_question(q, cfg_snap.window);
                const cuda_emu::CopyStats resnap = cuda_emu::copy_stats();
                host.set_question(q, cfg_snap.window);
                // Each layer came up at most once, in f16, on the copy stream (prefetched while
                // the previous layer computed) — except those still in a staging slot.
                EXPECT_GE(resnap.pinned_async, (cfg().n_layers - 2) * layer_store_bytes());
                EXPECT_LE(resnap.pinned_async, store_bytes());
                EXPECT_GT(resnap.pinned_async, 0);
                EXPECT_GE(resnap.stream_waits, cfg().n_layers);
                for (int l = 0; l < cfg().n_layers; ++l)
                    EXPECT_TRUE(same_bits(off.window_scores().layers[l], host.window_scores().layers[l])) << "layer " << l;
                const auto a = off.select(cfg_snap), b = host.select(cfg_snap);
                ASSERT_TRUE(a->compressed);
                expect_identical_selection(*a, *b);
                EXPECT_EQ(off.answer(*a, testing::greedy_request(8)).tokens, host.answer(*b, testing::greedy_request(8)).tokens);
            }
    }
#endif
}

TEST_F(CudaStoreTest, StoreThatFitsNowhereIsRefusedWithNumbers) {
#ifndef SNAPDOC_CUDA_EMU
    GTEST_SKIP() << "needs the emulator's adjustable device memory";
#else
    const int D = static_cast<int>(doc.size());
    const cuda::FullKvNeeds needs = cuda::full_kv_needs(cfg(), D);
    DocumentSession s(*gpu);
    {
        EmulatedMemory mem;
        ASSERT_TRUE(mem.leave(prefill_activation_bytes(cfg(), D) + needs.offload / 2));
        try {
            s.prefill_document(doc);
            FAIL() << "a store larger than the device's staging room was accepted";
        } catch (const Error& e) {
            const std::string m = e.what();
            EXPECT_NE(m.find("out of GPU memory"), std::string::npos) << m;
            EXPECT_NE(m.find(std::to_string(D) + " tokens"), std::string::npos) << m;
            EXPECT_NE(m.find("usable"), std::string::npos) << m;  // need vs usable, both stated
            std::printf("refused: %s\n", m.c_str());
        }
        EXPECT_EQ(s.full_store_bytes(), 0);  // no half-made document
        EXPECT_THROW(s.set_question(questions[0], 8), Error);
    }
    // With the memory back, the same session and backend work.
    s.prefill_document(doc);
    EXPECT_TRUE(s.backend_kv_store() && s.backend_kv_store()->resident());
    s.set_question(questions[0], 8);
    SnapKvConfig c;
    c.budget = 48;
    c.window = 8;
    EXPECT_EQ(s.answer(*s.select(c), testing::greedy_request(4)).tokens.size(), 4u);
    // Neither RAM (cap 0) nor a spill directory: the host store itself is refused, cleanly.
    DocumentSessionOptions nowhere;
    nowhere.kv_ram_cap_bytes = 0;
    nowhere.spill_dir = "/nonexistent/snapdoc-spill";
    DocumentSession t(*gpu, nowhere);
    EXPECT_THROW(t.prefill_document(doc), Error);
#endif
}

// CudaBackendOptions::keep_full_kv_on_device = false stages the store through the host even when
// it would fit (device memory as on a smaller card), with the same answers as the resident store.
TEST_F(CudaStoreTest, BackendOptionKeepsTheStoreOffTheDevice) {
    CudaBackendOptions off_device;
    off_device.keep_full_kv_on_device = false;
    auto staged_backend = make_cuda_backend(*tiny->model, BackendOptions{}, off_device);
    DocumentSession staged(*staged_backend), dev(*gpu);
    staged.prefill_document(doc);
    dev.prefill_document(doc);
    ASSERT_NE(staged.backend_kv_store(), nullptr);
    EXPECT_FALSE(staged.backend_kv_store()->resident()) << staged.backend_kv_store()->describe();
    EXPECT_TRUE(dev.backend_kv_store()->resident());
    SnapKvConfig c;
    c.budget = 48;
    c.window = 8;
    c.gqa = GqaMode::QueryHead;
    staged.set_question(questions[0], c.window);
    dev.set_question(questions[0], c.window);
    const auto a = staged.select(c), b = dev.select(c);
    expect_identical_selection(*a, *b);
    EXPECT_EQ(staged.answer(*a, testing::greedy_request(6)).tokens, dev.answer(*b, testing::greedy_request(6)).tokens);
}

// A cache file restored where the device cannot take the store falls back to the host path and
// still answers as the device-kept session did.
TEST_F(CudaStoreTest, RestoreWithoutDeviceRoomFallsBackToTheHostPath) {
#ifndef SNAPDOC_CUDA_EMU
    GTEST_SKIP() << "needs the emulator's adjustable device memory";
#else
    testing::TempDir dir;
    KvCacheKey key;
    key.model = {1, 3};
    key.tokens_hash = checksum64(doc.data(), doc.size() * 4);
    SnapKvConfig c;
    c.budget = 48;
    c.window = 8;
    DocumentSession dev(*gpu);
    dev.prefill_document(doc);
    dev.save_document_cache(dir / "doc.snapkv", key, doc);
    dev.set_question(questions[1], c.window);
    const auto want = dev.answer(*dev.select(c), testing::greedy_request(6)).tokens;
    DocumentSession restored(*gpu_host);
    {
        EmulatedMemory mem;
        ASSERT_TRUE(mem.leave(cuda::full_kv_needs(cfg(), static_cast<int>(doc.size())).offload / 2));
        restored.restore_document_cache(dir / "doc.snapkv", key, doc);
        EXPECT_EQ(restored.backend_kv_store(), nullptr);
        restored.set_question(questions[1], c.window);
        EXPECT_EQ(restored.answer(*restored.select(c), testing::greedy_request(6)).tokens, want);
    }
#endif
}

}  // namespace
}  // namespace snapdoc
