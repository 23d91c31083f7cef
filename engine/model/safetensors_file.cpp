#include "engine/model/safetensors_file.h"

#include <bit>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/common/json_input.h"
#include "engine/common/message_text.h"
#include "engine/model/tensor_ranges.h"

namespace snapdoc {

static_assert(std::endian::native == std::endian::little, "the safetensors reader assumes a little-endian host");

namespace {

using nlohmann::json;

std::optional<DType> supported_dtype(std::string_view name) {
    if (name == "F32") return DType::F32;
    if (name == "F16") return DType::F16;
    if (name == "BF16") return DType::BF16;
    return std::nullopt;
}

// A non-negative JSON integer, or nullopt.
std::optional<uint64_t> json_count(const json& v) {
    if (v.is_number_unsigned()) return v.get<uint64_t>();
    if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
    return std::nullopt;
}

}  // namespace

std::size_t safetensors_dtype_size(std::string_view dtype) {
    if (dtype == "BOOL" || dtype == "U8" || dtype == "I8" || dtype == "F8_E5M2" || dtype == "F8_E4M3") return 1;
    if (dtype == "I16" || dtype == "U16" || dtype == "F16" || dtype == "BF16") return 2;
    if (dtype == "I32" || dtype == "U32" || dtype == "F32") return 4;
    if (dtype == "I64" || dtype == "U64" || dtype == "F64") return 8;
    return 0;
}

SafetensorsFile SafetensorsFile::open(const std::filesystem::path& path) { return parse(MappedFile::open(path)); }

std::string SafetensorsFile::name() const { return file_ ? file_->path().string() : std::string(); }

SafetensorsFile SafetensorsFile::parse(std::shared_ptr<const MappedFile> file) {
    SafetensorsFile st;
    st.file_ = std::move(file);
    const std::string prefix = "safetensors file '" + st.name() + "': ";
    auto fail = [&](const std::string& what) -> void { throw FormatError(prefix + what); };

    const uint64_t size = st.file_->size();
    if (size < 8) fail("truncated file: " + std::to_string(size) + " bytes, too short for the header length");
    uint64_t header_len = 0;
    std::memcpy(&header_len, st.file_->data(), 8);
    if (header_len > kSafetensorsMaxHeaderBytes) {
        fail("header length " + std::to_string(header_len) + " exceeds the " +
             std::to_string(kSafetensorsMaxHeaderBytes >> 20) + " MB limit");
    }
    if (header_len > size - 8) {
        fail("truncated file: the header needs " + std::to_string(header_len) + " bytes but only " +
             std::to_string(size - 8) + " follow the length");
    }
    st.data_offset_ = 8 + header_len;
    const uint64_t data_size = size - st.data_offset_;

    const auto* begin = reinterpret_cast<const char*>(st.file_->data() + 8);
    // ~10 values per tensor: 1M allows 100K tensors in one file, a few hundred MB of nlohmann values at most.
    const json header = parse_json_input(std::string_view(begin, header_len), prefix + "the JSON header is invalid: ",
                                         {.max_values = uint64_t{1} << 20});
    if (!header.is_object()) fail("the JSON header is not an object");

    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") continue;  // free-form strings; nothing snapdoc needs
        const std::string what = "tensor '" + printable_excerpt(name) + "'";
        if (!entry.is_object()) fail(what + ": entry is not an object");
        TensorInfo t;
        t.name = name;

        const auto dt = entry.find("dtype");
        if (dt == entry.end() || !dt->is_string()) fail(what + ": missing or non-string 'dtype'");
        t.dtype_name = dt->get<std::string>();
        t.dtype = supported_dtype(t.dtype_name);

        const auto sh = entry.find("shape");
        if (sh == entry.end() || !sh->is_array()) fail(what + ": missing or non-array 'shape'");
        uint64_t numel = 1;
        for (const json& d : *sh) {
            const auto v = json_count(d);
            if (!v || *v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
                fail(what + ": 'shape' holds an invalid dimension " + printable_excerpt(d.dump()));
            }
            if (__builtin_mul_overflow(numel, *v, &numel) || numel > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
                fail(what + ": too many elements (the product of its shape overflows)");
            }
            t.shape.push_back(static_cast<int64_t>(*v));
        }

        const auto off = entry.find("data_offsets");
        if (off == entry.end() || !off->is_array() || off->size() != 2) {
            fail(what + ": 'data_offsets' must be an array of two integers");
        }
        const auto b = json_count((*off)[0]);
        const auto e = json_count((*off)[1]);
        if (!b || !e) fail(what + ": 'data_offsets' must hold non-negative integers");
        if (*b > *e) fail(what + ": data_offsets [" + std::to_string(*b) + ", " + std::to_string(*e) + "] are reversed");
        if (*e > data_size) {
            fail("truncated file: " + what + " data ends at " + std::to_string(*e) + " but the data section is " +
                 std::to_string(data_size) + " bytes");
        }
        t.begin = *b;
        t.end = *e;
        if (const std::size_t esize = safetensors_dtype_size(t.dtype_name); esize > 0) {
            uint64_t expect = 0;
            if (__builtin_mul_overflow(numel, static_cast<uint64_t>(esize), &expect) || expect != t.end - t.begin) {
                fail(what + ": data_offsets span " + std::to_string(t.end - t.begin) + " bytes but " + std::to_string(numel) +
                     " elements of " + t.dtype_name + " need " + std::to_string(numel) + " x " + std::to_string(esize));
            }
        }
        st.index_.emplace(t.name, st.tensors_.size());
        st.tensors_.push_back(std::move(t));
    }
    std::vector<TensorRange> ranges;
    for (const TensorInfo& t : st.tensors_) ranges.push_back({t.name, t.begin, t.end});
    if (std::string why = overlapping_tensors(std::move(ranges)); !why.empty()) fail(why);
    return st;
}

const SafetensorsFile::TensorInfo* SafetensorsFile::find(std::string_view name) const {
    auto it = index_.find(std::string(name));
    return it == index_.end() ? nullptr : &tensors_[it->second];
}

TensorView SafetensorsFile::view(const TensorInfo& t) const {
    if (!t.dtype) {
        throw FormatError("safetensors file '" + name() + "': tensor '" + printable_excerpt(t.name) + "' has dtype " + printable_excerpt(t.dtype_name) +
                          ", which snapdoc does not support (supported: F32, F16, BF16)");
    }
    TensorView v;
    v.name = t.name;
    v.dtype = *t.dtype;
    v.shape = t.shape;
    v.data = file_->data() + data_offset_ + t.begin;
    v.nbytes = static_cast<std::size_t>(t.end - t.begin);
    return v;
}

}  // namespace snapdoc
