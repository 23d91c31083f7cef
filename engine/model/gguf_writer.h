// Writes GGUF v3 files: metadata of every type and tensors in F32/F16/BF16/Q8_0 (converted from
// f32 data, generated row by row, or given as raw bytes of any GGML type). The file appears
// atomically: it is written to a temporary file in the same directory and renamed into place, and
// a write error (a full disk...) throws Error and leaves no file behind.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/model/dtype.h"
#include "engine/model/gguf_types.h"

namespace snapdoc {

class GgufWriter {
public:
    // Fills `out` (cols floats) with row `row` of a tensor whose data is generated while writing.
    using RowGenerator = std::function<void(int64_t row, std::span<float> out)>;

    GgufWriter() = default;

    // Alignment of tensor data (a power of two). When it differs from 32, `general.alignment` is
    // written too, as the format requires.
    void set_alignment(uint32_t alignment);

    // Metadata, written in insertion order; setting a key again replaces its value. Setting
    // `general.alignment` (a power of two) is the same as set_alignment.
    void set(const std::string& key, GgufMetaValue value);
    void set_u8(const std::string& key, uint8_t v) { set(key, GgufMetaValue::u8(v)); }
    void set_i8(const std::string& key, int8_t v) { set(key, GgufMetaValue::i8(v)); }
    void set_u16(const std::string& key, uint16_t v) { set(key, GgufMetaValue::u16(v)); }
    void set_i16(const std::string& key, int16_t v) { set(key, GgufMetaValue::i16(v)); }
    void set_u32(const std::string& key, uint32_t v) { set(key, GgufMetaValue::u32(v)); }
    void set_i32(const std::string& key, int32_t v) { set(key, GgufMetaValue::i32(v)); }
    void set_u64(const std::string& key, uint64_t v) { set(key, GgufMetaValue::u64(v)); }
    void set_i64(const std::string& key, int64_t v) { set(key, GgufMetaValue::i64(v)); }
    void set_f32(const std::string& key, float v) { set(key, GgufMetaValue::f32(v)); }
    void set_f64(const std::string& key, double v) { set(key, GgufMetaValue::f64(v)); }
    void set_bool(const std::string& key, bool v) { set(key, GgufMetaValue::boolean(v)); }
    void set_string(const std::string& key, std::string v) { set(key, GgufMetaValue::string(std::move(v))); }
    void set_string_array(const std::string& key, const std::vector<std::string>& v);
    void set_f32_array(const std::string& key, const std::vector<float>& v);
    void set_i32_array(const std::string& key, const std::vector<int32_t>& v);

    // Tensors, written in insertion order. `shape` is row-major, outermost first (as TensorView);
    // rows are the last dimension. Q8_0 needs a last dimension that is a multiple of 32.
    // Converts `data` (numel floats) to `dtype` now.
    void add_tensor(const std::string& name, const std::vector<int64_t>& shape, DType dtype, std::span<const float> data);
    // Generates and converts rows during write(), so huge synthetic models never sit in memory.
    void add_tensor_generated(const std::string& name, const std::vector<int64_t>& shape, DType dtype, RowGenerator rows);
    // Bytes stored as they are, labelled with any GGML type id (tests use this for unsupported types).
    void add_tensor_raw(const std::string& name, const std::vector<int64_t>& shape, uint32_t ggml_type,
                        std::vector<uint8_t> bytes);

    // Writes the file (atomically, see above). Throws Error on any failure.
    void write(const std::filesystem::path& file) const;

private:
    struct Tensor {
        std::string name;
        std::vector<int64_t> shape;
        uint32_t ggml_type = 0;
        DType dtype = DType::F32;        // for generated tensors
        std::vector<uint8_t> bytes;      // converted or raw data, unless generated
        RowGenerator generate;           // set for generated tensors
        uint64_t nbytes = 0;
    };
    void add(Tensor t);

    uint32_t alignment_ = kGgufDefaultAlignment;
    std::vector<std::pair<std::string, GgufMetaValue>> metadata_;
    std::vector<Tensor> tensors_;
};

}  // namespace snapdoc
