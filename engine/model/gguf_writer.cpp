#include "engine/model/gguf_writer.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "engine/common/atomic_file.h"
#include "engine/common/error.h"

namespace snapdoc {

static_assert(std::endian::native == std::endian::little, "the GGUF writer assumes a little-endian host");

namespace {

// Little helpers over the shared atomic writer (temp file + rename; removed on failure).
class Sink {
public:
    explicit Sink(const std::filesystem::path& dest) : file_(dest) {}

    void write(const void* data, std::size_t n) { file_.write(data, n); }
    template <typename T>
    void put(T v) {
        file_.write(&v, sizeof v);
    }
    void put_string(const std::string& s) {
        put<uint64_t>(s.size());
        file_.write(s.data(), s.size());
    }
    void pad_to(uint64_t alignment) { file_.pad_to(static_cast<std::size_t>(alignment)); }
    void commit() { file_.commit(); }

private:
    AtomicFileWriter file_;
};

void check_value(const std::string& key, const GgufMetaValue& v) {
    if (v.type == GgufType::Array) {
        if (v.elem_type == GgufType::Array) {
            for (const auto& item : v.items) check_value(key, item);
        }
        for (const auto& item : v.items) {
            if (item.type != v.elem_type) {
                throw Error("GGUF writer: metadata key '" + key + "' is an array of " + gguf_type_name(v.elem_type) +
                            " but holds a " + gguf_type_name(item.type));
            }
        }
    } else if (static_cast<uint32_t>(v.type) > static_cast<uint32_t>(GgufType::Float64)) {
        throw Error("GGUF writer: metadata key '" + key + "' has an invalid type");
    }
}

void write_value(Sink& f, const GgufMetaValue& v) {
    switch (v.type) {
        case GgufType::Uint8: f.put(static_cast<uint8_t>(v.u)); return;
        case GgufType::Int8: f.put(static_cast<int8_t>(v.i)); return;
        case GgufType::Uint16: f.put(static_cast<uint16_t>(v.u)); return;
        case GgufType::Int16: f.put(static_cast<int16_t>(v.i)); return;
        case GgufType::Uint32: f.put(static_cast<uint32_t>(v.u)); return;
        case GgufType::Int32: f.put(static_cast<int32_t>(v.i)); return;
        case GgufType::Uint64: f.put(static_cast<uint64_t>(v.u)); return;
        case GgufType::Int64: f.put(static_cast<int64_t>(v.i)); return;
        case GgufType::Float32: f.put(static_cast<float>(v.f)); return;
        case GgufType::Float64: f.put(static_cast<double>(v.f)); return;
        case GgufType::Bool: f.put(static_cast<uint8_t>(v.b ? 1 : 0)); return;
        case GgufType::String: f.put_string(v.s); return;
        case GgufType::Array:
            f.put(static_cast<uint32_t>(v.elem_type));
            f.put(static_cast<uint64_t>(v.items.size()));
            for (const auto& item : v.items) write_value(f, item);
            return;
    }
}

int64_t checked_numel(const std::string& name, const std::vector<int64_t>& shape) {
    if (shape.empty() || shape.size() > 4) throw Error("GGUF writer: tensor '" + name + "' must have 1 to 4 dimensions");
    int64_t n = 1;
    for (int64_t d : shape) {
        if (d <= 0 || __builtin_mul_overflow(n, d, &n)) {
            throw Error("GGUF writer: tensor '" + name + "' has an invalid shape");
        }
    }
    return n;
}

}  // namespace

void GgufWriter::set_alignment(uint32_t alignment) {
    if (alignment == 0 || !std::has_single_bit(alignment)) {
        throw Error("GGUF writer: alignment " + std::to_string(alignment) + " is not a power of two");
    }
    alignment_ = alignment;
}

void GgufWriter::set(const std::string& key, GgufMetaValue value) {
    check_value(key, value);
    if (key == "general.alignment") {
        // The key decides how readers locate tensor data, so the layout must follow it.
        if (!gguf_is_integer(value.type)) throw Error("GGUF writer: general.alignment must be an integer");
        const bool is_signed = value.type == GgufType::Int8 || value.type == GgufType::Int16 ||
                               value.type == GgufType::Int32 || value.type == GgufType::Int64;
        const uint64_t a = is_signed ? static_cast<uint64_t>(value.i) : value.u;
        if (a == 0 || a > (1u << 30) || !std::has_single_bit(a)) {
            throw Error("GGUF writer: general.alignment " + std::to_string(a) + " is not a power of two");
        }
        alignment_ = static_cast<uint32_t>(a);
    }
    for (auto& [k, v] : metadata_) {
        if (k == key) {
            v = std::move(value);
            return;
        }
    }
    metadata_.emplace_back(key, std::move(value));
}

void GgufWriter::set_string_array(const std::string& key, const std::vector<std::string>& v) {
    std::vector<GgufMetaValue> items;
    items.reserve(v.size());
    for (const auto& s : v) items.push_back(GgufMetaValue::string(s));
    set(key, GgufMetaValue::array(GgufType::String, std::move(items)));
}

void GgufWriter::set_f32_array(const std::string& key, const std::vector<float>& v) {
    std::vector<GgufMetaValue> items;
    items.reserve(v.size());
    for (float x : v) items.push_back(GgufMetaValue::f32(x));
    set(key, GgufMetaValue::array(GgufType::Float32, std::move(items)));
}

void GgufWriter::set_i32_array(const std::string& key, const std::vector<int32_t>& v) {
    std::vector<GgufMetaValue> items;
    items.reserve(v.size());
    for (int32_t x : v) items.push_back(GgufMetaValue::i32(x));
    set(key, GgufMetaValue::array(GgufType::Int32, std::move(items)));
}

void GgufWriter::add(Tensor t) {
    for (const auto& other : tensors_) {
        if (other.name == t.name) throw Error("GGUF writer: duplicate tensor '" + t.name + "'");
    }
    tensors_.push_back(std::move(t));
}

void GgufWriter::add_tensor(const std::string& name, const std::vector<int64_t>& shape, DType dtype,
                            std::span<const float> data) {
    const int64_t numel = checked_numel(name, shape);
    const int64_t cols = shape.back();
    if (static_cast<int64_t>(data.size()) != numel) {
        throw Error("GGUF writer: tensor '" + name + "' has " + std::to_string(data.size()) + " values for " +
                    std::to_string(numel) + " elements");
    }
    if (!dtype_row_fits(dtype, cols)) {
        throw Error("GGUF writer: tensor '" + name + "' rows of " + std::to_string(cols) + " do not fit " +
                    std::string(dtype_name(dtype)) + " blocks");
    }
    Tensor t;
    t.name = name;
    t.shape = shape;
    t.ggml_type = ggml_from_dtype(dtype);
    t.dtype = dtype;
    const std::size_t row_bytes = dtype_row_bytes(dtype, cols);
    const int64_t rows = numel / cols;
    t.bytes.resize(row_bytes * static_cast<std::size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) quantize_row(dtype, data.data() + r * cols, t.bytes.data() + r * row_bytes, cols);
    t.nbytes = t.bytes.size();
    add(std::move(t));
}

void GgufWriter::add_tensor_generated(const std::string& name, const std::vector<int64_t>& shape, DType dtype,
                                      RowGenerator rows) {
    const int64_t numel = checked_numel(name, shape);
    const int64_t cols = shape.back();
    if (!dtype_row_fits(dtype, cols)) {
        throw Error("GGUF writer: tensor '" + name + "' rows of " + std::to_string(cols) + " do not fit " +
                    std::string(dtype_name(dtype)) + " blocks");
    }
    if (!rows) throw Error("GGUF writer: tensor '" + name + "' has no row generator");
    Tensor t;
    t.name = name;
    t.shape = shape;
    t.ggml_type = ggml_from_dtype(dtype);
    t.dtype = dtype;
    t.generate = std::move(rows);
    t.nbytes = dtype_row_bytes(dtype, cols) * static_cast<uint64_t>(numel / cols);
    add(std::move(t));
}

void GgufWriter::add_tensor_raw(const std::string& name, const std::vector<int64_t>& shape, uint32_t ggml_type,
                                std::vector<uint8_t> bytes) {
    checked_numel(name, shape);
    Tensor t;
    t.name = name;
    t.shape = shape;
    t.ggml_type = ggml_type;
    t.nbytes = bytes.size();
    t.bytes = std::move(bytes);
    add(std::move(t));
}

void GgufWriter::write(const std::filesystem::path& file) const {
    const bool add_alignment_key = alignment_ != kGgufDefaultAlignment &&
        std::none_of(metadata_.begin(), metadata_.end(), [](const auto& kv) { return kv.first == "general.alignment"; });

    Sink f(file);
    f.write("GGUF", 4);
    f.put<uint32_t>(3);
    f.put<uint64_t>(tensors_.size());
    f.put<uint64_t>(metadata_.size() + (add_alignment_key ? 1 : 0));
    if (add_alignment_key) {
        f.put_string("general.alignment");
        f.put(static_cast<uint32_t>(GgufType::Uint32));
        f.put<uint32_t>(alignment_);
    }
    for (const auto& [key, value] : metadata_) {
        f.put_string(key);
        f.put(static_cast<uint32_t>(value.type));
        write_value(f, value);
    }

    uint64_t offset = 0;
    for (const Tensor& t : tensors_) {
        f.put_string(t.name);
        f.put<uint32_t>(static_cast<uint32_t>(t.shape.size()));
        for (auto it = t.shape.rbegin(); it != t.shape.rend(); ++it) f.put<uint64_t>(static_cast<uint64_t>(*it));
        f.put<uint32_t>(t.ggml_type);
        f.put<uint64_t>(offset);
        offset += t.nbytes;
        offset = (offset + alignment_ - 1) / alignment_ * alignment_;
    }

    f.pad_to(alignment_);
    std::vector<float> row;
    std::vector<uint8_t> row_bytes;
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
        const Tensor& t = tensors_[i];
        if (i > 0) f.pad_to(alignment_);  // nothing after the last tensor: its end is the file's end
        if (t.generate) {
            const int64_t cols = t.shape.back();
            const int64_t rows = checked_numel(t.name, t.shape) / cols;
            row.assign(static_cast<std::size_t>(cols), 0.0f);
            row_bytes.resize(dtype_row_bytes(t.dtype, cols));
            for (int64_t r = 0; r < rows; ++r) {
                t.generate(r, std::span<float>(row));
                quantize_row(t.dtype, row.data(), row_bytes.data(), cols);
                f.write(row_bytes.data(), row_bytes.size());
            }
        } else {
            f.write(t.bytes.data(), t.bytes.size());
        }
    }
    f.commit();
}

}  // namespace snapdoc
