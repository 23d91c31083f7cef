// Shared set-up of the device K/V store tests (test_cuda_store_*.cpp): a tiny GQA model on both
// backends, a document and two questions, and comparisons of two sessions' selections and answers.
#pragma once

#include <gtest/gtest.h>

#include <cstring>

#include "engine/session/document_session.h"
#include "tests/cuda/cuda_model_fixture.h"
#include "tests/cuda/cuda_test_support.h"
#include "tests/support/token_ids.h"

#ifdef SNAPDOC_CUDA_EMU
#include "cuda_emu/control.h"
#endif

namespace snapdoc::cudatest {

class CudaStoreTest : public ::testing::Test {
protected:
    void SetUp() override {
        SNAPDOC_REQUIRE_CUDA();
        testing::TinyModelSpec spec = gqa4_tiny_spec(23);
        spec.context_length = 2048;
        tiny = load_tiny(spec, DType::F32);
        cpu = make_cpu_backend(*tiny->model);
        gpu = make_cuda_backend(*tiny->model);
        gpu_host = make_cuda_backend(*tiny->model);  // for the comparison sessions (own decode graphs)
        doc = testing::random_ids(320, spec.vocab_size, 4);
        questions = {testing::random_ids(12, spec.vocab_size, 5), testing::random_ids(9, spec.vocab_size, 6)};
    }
    const ModelConfig& cfg() const { return gpu->config(); }
    // The document's K/V in the f16 store, and in f32 (what the host path moves per question).
    int64_t store_bytes() const { return int64_t{2} * cfg().n_layers * cfg().kv_dim() * static_cast<int64_t>(doc.size()) * 2; }
    int64_t layer_store_bytes() const { return store_bytes() / cfg().n_layers; }

    std::unique_ptr<LoadedTiny> tiny;
    std::unique_ptr<Backend> cpu, gpu, gpu_host;
    std::vector<int32_t> doc;
    std::vector<std::vector<int32_t>> questions;
};

inline bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Identical kept positions and pooled scores (two sessions on the same backend, same K/V).
inline void expect_identical_selection(const Selection& got, const Selection& want) {
    ASSERT_EQ(got.layers.size(), want.layers.size());
    ASSERT_EQ(got.cache_heads, want.cache_heads);
    for (std::size_t l = 0; l < want.layers.size(); ++l)
        for (int h = 0; h < want.cache_heads; ++h) {
            EXPECT_EQ(got.layers[l][h].kept, want.layers[l][h].kept) << "layer " << l << " head " << h;
            EXPECT_TRUE(same_bits(got.layers[l][h].pooled, want.layers[l][h].pooled)) << "layer " << l << " head " << h;
        }
}

#ifdef SNAPDOC_CUDA_EMU
// Restores the emulated device's memory size when a test shrank it.
struct EmulatedMemory {
    cuda_emu::DeviceConfig saved = cuda_emu::device_config();
    ~EmulatedMemory() { cuda_emu::set_device_config(saved); }
    // Leaves `usable` bytes beyond what is allocated now and the runtime's 256 MiB reserve.
    bool leave(int64_t usable) {
        cuda_emu::DeviceConfig c = saved;
        c.memory_bytes = cuda_emu::memory_stats().allocated + (int64_t{256} << 20) + usable;
        return cuda_emu::set_device_config(c);
    }
};
#endif

}  // namespace snapdoc::cudatest
