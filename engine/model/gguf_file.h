// Reader for GGUF files (versions 2 and 3) over a memory mapping. Parsing validates the whole
// header (every length and count against the bytes that remain, dims against overflow, every
// tensor's data range against the file) before anything is allocated, so hostile files end in a
// FormatError. Metadata values are decoded on demand from the mapping.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/common/error.h"
#include "engine/model/gguf_types.h"
#include "engine/model/mapped_file.h"
#include "engine/model/tensor.h"

namespace snapdoc {

// GgufFile::parse_header was given too few of the file's first bytes: `needed` of them would get
// past what it stopped at (more may be needed after that).
class GgufPrefixTooShort : public FormatError {
public:
    GgufPrefixTooShort(const std::string& message, uint64_t needed) : FormatError(message), needed(needed) {}
    uint64_t needed;
};

class GgufFile {
public:
    // One metadata key/value pair, located in the mapping.
    struct Entry {
        std::string key;
        GgufType type = GgufType::Uint32;
        GgufType elem_type = GgufType::Uint32;  // arrays: type of the items
        uint64_t count = 0;                     // arrays: number of items
        std::size_t offset = 0;  // file offset of the value (arrays: of the first item)
    };

    struct TensorInfo {
        std::string name;
        uint32_t ggml_type = 0;
        std::vector<uint64_t> dims;  // as stored: innermost first
        uint64_t offset = 0;         // relative to the data section
        std::optional<uint64_t> nbytes;  // known when the type's layout is known

        std::vector<int64_t> shape() const;  // row-major, outermost first
        int64_t numel() const;
    };

    // Maps and parses a file. Throws FormatError naming the file and what is wrong.
    static GgufFile open(const std::filesystem::path& path);
    static GgufFile parse(std::shared_ptr<const MappedFile> file);
    // The header (metadata and tensor infos) from the first bytes of a file of `file_size` bytes,
    // e.g. fetched by an HTTP range request, validated as parse() does against the whole size.
    // Throws GgufPrefixTooShort when the header goes on past `prefix`, FormatError when it is
    // corrupt. Its tensors have no data: tensor_data and tensor_view throw.
    static GgufFile parse_header(std::shared_ptr<const MappedFile> prefix, uint64_t file_size);

    const std::shared_ptr<const MappedFile>& mapping() const { return file_; }
    // The file's path as text, for messages.
    std::string name() const;
    uint32_t version() const { return version_; }
    uint64_t alignment() const { return alignment_; }
    uint64_t data_offset() const { return data_offset_; }

    // ---- metadata ----
    const std::vector<Entry>& entries() const { return entries_; }
    const Entry* find(std::string_view key) const;
    bool has(std::string_view key) const { return find(key) != nullptr; }

    // Full decode of any value (nested arrays included). Throws if the key is missing.
    GgufMetaValue value(std::string_view key) const;

    // Typed accessors: get_* throws FormatError when the key is missing or has another type;
    // get_*_opt returns nullopt when missing and throws on a wrong type.
    // Integers: any integer type (uint64 above INT64_MAX is refused). Floats: float32/float64 and
    // integers. Arrays: float arrays accept float32/float64 items, int arrays any integer items.
    std::string get_string(std::string_view key) const;
    std::optional<std::string> get_string_opt(std::string_view key) const;
    int64_t get_int(std::string_view key) const;
    std::optional<int64_t> get_int_opt(std::string_view key) const;
    double get_float(std::string_view key) const;
    std::optional<double> get_float_opt(std::string_view key) const;
    bool get_bool(std::string_view key) const;
    std::optional<bool> get_bool_opt(std::string_view key) const;
    std::vector<std::string> get_string_array(std::string_view key) const;
    std::optional<std::vector<std::string>> get_string_array_opt(std::string_view key) const;
    std::vector<float> get_float_array(std::string_view key) const;
    std::optional<std::vector<float>> get_float_array_opt(std::string_view key) const;
    std::vector<int64_t> get_int_array(std::string_view key) const;
    std::optional<std::vector<int64_t>> get_int_array_opt(std::string_view key) const;

    // ---- tensors ----
    const std::vector<TensorInfo>& tensors() const { return tensors_; }
    const TensorInfo* find_tensor(std::string_view name) const;
    // Start of the tensor's bytes in the mapping.
    const uint8_t* tensor_data(const TensorInfo& t) const;
    // A view of a tensor snapdoc can compute with. Throws FormatError naming the tensor and its type
    // when the type is not F32/F16/BF16/Q8_0.
    TensorView tensor_view(const TensorInfo& t) const;

private:
    GgufFile() = default;
    static GgufFile parse_header_of(std::shared_ptr<const MappedFile> file, uint64_t file_size);
    [[noreturn]] void fail(const std::string& what) const;
    const Entry& require(std::string_view key) const;
    [[noreturn]] void wrong_type(const Entry& e, const char* expected) const;

    std::shared_ptr<const MappedFile> file_;
    uint32_t version_ = 0;
    uint64_t alignment_ = kGgufDefaultAlignment;
    uint64_t data_offset_ = 0;
    bool header_only_ = false;  // parse_header of a prefix: no tensor data
    std::vector<Entry> entries_;
    std::unordered_map<std::string, std::size_t> entry_index_;
    std::vector<TensorInfo> tensors_;
    std::unordered_map<std::string, std::size_t> tensor_index_;
};

}  // namespace snapdoc
