// A K/V cache file's contents for tests of the reader and writer (engine/kv/kv_store_file.h):
// a random f16 store, tail queries and token ids of a given shape, and a key naming them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "engine/kv/kv_store_file.h"

namespace snapdoc::testing {

struct KvFileSample {
    KvFileShape shape;
    std::unique_ptr<FullKvStore> store;
    std::vector<std::vector<float>> tail_q;
    std::vector<int32_t> tokens;
    KvCacheKey key;

    // Values normal(0, 2) from `seed`; the store lives in RAM (spill_dir only if it had to spill).
    KvFileSample(const std::filesystem::path& spill_dir, KvFileShape shape = {3, 2, 16, 64, 150, 40},
                 uint32_t seed = 5);
    KvFileContents contents() const { return {shape, store.get(), &tail_q, tokens}; }
    KvFileExpectation expect() const { return {key, shape, tokens}; }
};

}  // namespace snapdoc::testing
