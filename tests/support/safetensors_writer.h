// Writes safetensors files for tests: F32 / F16 / BF16 tensors from float data, a whole checkpoint
// optionally split into shards with an index, or raw header/data bytes for malformed-file tests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/dtype.h"

namespace snapdoc::testing {

struct StTensor {
    std::string name;
    DType dtype = DType::F32;  // F32, F16 or BF16 (safetensors has no Q8_0)
    std::vector<int64_t> shape;
    std::vector<float> values;  // numel values, converted (round to nearest even) when written
};

// One file: u64 header length, JSON header (padded with spaces to a multiple of 8), data.
void write_safetensors(const std::filesystem::path& file, const std::vector<StTensor>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

// A Hugging Face folder's weights: `model.safetensors` when shards == 1, else
// model-0000i-of-0000n.safetensors files (tensors split in order) plus model.safetensors.index.json.
void write_safetensors_checkpoint(const std::filesystem::path& dir, const std::vector<StTensor>& tensors, int shards = 1);

// Exactly these bytes: u64 length (header.size() unless overridden), header, data.
void write_raw_safetensors(const std::filesystem::path& file, const std::string& header, const std::string& data,
                           std::optional<uint64_t> header_length = std::nullopt);

}  // namespace snapdoc::testing
