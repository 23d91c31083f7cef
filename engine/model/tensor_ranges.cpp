#include "engine/model/tensor_ranges.h"

#include <algorithm>

#include "engine/common/message_text.h"

namespace snapdoc {

std::string overlapping_tensors(std::vector<TensorRange> ranges) {
    std::erase_if(ranges, [](const TensorRange& r) { return r.end <= r.begin; });
    std::sort(ranges.begin(), ranges.end(), [](const TensorRange& a, const TensorRange& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    for (std::size_t i = 1; i < ranges.size(); ++i) {
        const TensorRange& a = ranges[i - 1];
        const TensorRange& b = ranges[i];
        if (b.begin < a.end)
            return "tensors '" + printable_excerpt(a.name) + "' (data bytes " + std::to_string(a.begin) +
                   ".." + std::to_string(a.end) + ") and '" + printable_excerpt(b.name) + "' (" +
                   std::to_string(b.begin) + ".." + std::to_string(b.end) +
                   ") overlap; every tensor must have its own bytes";
    }
    return {};
}

}  // namespace snapdoc
