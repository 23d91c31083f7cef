// Tensor data ranges in a weights file must not overlap: two tensors sharing bytes (aliased, or an
// offset pointing into another tensor) is what a crafted or corrupt file does, never what a
// converter writes (GGUF writers and the safetensors format give every tensor its own bytes), and
// the loaders would silently compute with one tensor's bytes read as another's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace snapdoc {

struct TensorRange {
    std::string name;
    uint64_t begin = 0, end = 0;  // [begin, end) in the data section
};

// "" when no two non-empty ranges overlap, else a message naming the first overlapping pair.
std::string overlapping_tensors(std::vector<TensorRange> ranges);

}  // namespace snapdoc
