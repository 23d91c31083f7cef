// Reader for safetensors files: an 8-byte little-endian header length, a JSON header mapping tensor
// names to {dtype, shape, data_offsets}, then the raw data. Every tensor's range is checked against
// the data section and its shape before any view is handed out.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/model/mapped_file.h"
#include "engine/model/tensor.h"

namespace snapdoc {

inline constexpr uint64_t kSafetensorsMaxHeaderBytes = 100ull << 20;

class SafetensorsFile {
public:
    struct TensorInfo {
        std::string name;
        std::string dtype_name;       // as written in the header ("F32", "I64", ...)
        std::optional<DType> dtype;   // set for F32 / F16 / BF16, the types snapdoc computes with
        std::vector<int64_t> shape;
        uint64_t begin = 0;  // relative to the data section
        uint64_t end = 0;
    };

    static SafetensorsFile open(const std::filesystem::path& path);
    // Throws FormatError naming the file for a malformed header or an out-of-range tensor.
    static SafetensorsFile parse(std::shared_ptr<const MappedFile> file);

    const std::shared_ptr<const MappedFile>& mapping() const { return file_; }
    std::string name() const;
    uint64_t data_offset() const { return data_offset_; }

    const std::vector<TensorInfo>& tensors() const { return tensors_; }
    const TensorInfo* find(std::string_view name) const;
    // Throws FormatError naming the tensor and its dtype when it is not F32/F16/BF16.
    TensorView view(const TensorInfo& t) const;

private:
    SafetensorsFile() = default;

    std::shared_ptr<const MappedFile> file_;
    uint64_t data_offset_ = 0;
    std::vector<TensorInfo> tensors_;
    std::unordered_map<std::string, std::size_t> index_;
};

// Bytes per element of a safetensors dtype name, 0 when unknown.
std::size_t safetensors_dtype_size(std::string_view dtype);

}  // namespace snapdoc
