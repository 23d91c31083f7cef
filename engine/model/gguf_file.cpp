// GGUF layout (all little-endian):
//   u32 magic "GGUF", u32 version, u64 n_tensors, u64 n_kv,
//   n_kv x { string key, u32 value_type, value },
//   n_tensors x { string name, u32 n_dims, u64 dims[n_dims], u32 ggml_type, u64 offset },
//   padding to `general.alignment`, tensor data (offsets relative to here, each aligned).
// A string is { u64 length, bytes }; an array is { u32 item_type, u64 count, items }.
#include "engine/model/gguf_file.h"

#include <bit>
#include <cstring>
#include <limits>

#include "engine/common/error.h"
#include "engine/common/message_text.h"
#include "engine/model/tensor_ranges.h"

namespace snapdoc {

static_assert(std::endian::native == std::endian::little, "the GGUF reader assumes a little-endian host");

namespace {

constexpr int kMaxArrayDepth = 8;  // nested arrays deeper than this are refused (bounds recursion)
constexpr uint32_t kMaxDims = 4;   // GGML_MAX_DIMS

// Bounds-checked sequential reads over the mapping; every failure names what was being read.
class Cursor {
public:
    Cursor(const uint8_t* data, std::size_t size, std::string prefix)
        : data_(data), size_(size), logical_size_(size), prefix_(std::move(prefix)) {}
    // Over the first `size` bytes of a file of `file_size` bytes (a header fetched alone): a read
    // past the bytes held but within the file throws GgufPrefixTooShort, so the caller can fetch
    // more; counts are bounded by the whole file.
    Cursor(const uint8_t* data, std::size_t size, uint64_t file_size, std::string prefix)
        : data_(data), size_(size), logical_size_(file_size), prefix_(std::move(prefix)) {}

    std::size_t pos() const { return pos_; }
    std::size_t remaining() const { return size_ - pos_; }
    void seek(std::size_t p) { pos_ = p; }

    [[noreturn]] void fail(const std::string& what) const { throw FormatError(prefix_ + what); }

    void need(uint64_t n, const std::string& what) const {
        if (n > remaining() && n <= logical_size_ - pos_) {
            throw GgufPrefixTooShort(prefix_ + "the first " + std::to_string(size_) + " bytes end inside " + what,
                                     pos_ + n);
        }
        if (n > remaining()) {
            fail("truncated file: " + what + " needs " + std::to_string(n) + " bytes at offset " +
                 std::to_string(pos_) + " but only " + std::to_string(remaining()) + " remain");
        }
    }

    template <typename T>
    T read(const std::string& what) {
        need(sizeof(T), what);
        T v;
        std::memcpy(&v, data_ + pos_, sizeof(T));
        pos_ += sizeof(T);
        return v;
    }

    void skip(uint64_t n, const std::string& what) {
        need(n, what);
        pos_ += static_cast<std::size_t>(n);
    }

    // Reads a GGUF string; its length is checked against the remaining bytes before allocating.
    std::string read_string(const std::string& what) {
        const uint64_t len = read<uint64_t>(what + " (length)");
        need(len, what + " (" + std::to_string(len) + " bytes)");
        std::string s(reinterpret_cast<const char*>(data_ + pos_), static_cast<std::size_t>(len));
        pos_ += static_cast<std::size_t>(len);
        return s;
    }

    // Checks that `count` items of at least `min_item_bytes` each can fit in what remains, so a
    // hostile count is refused before any loop or allocation depends on it.
    void check_count(uint64_t count, uint64_t min_item_bytes, const std::string& what) const {
        const uint64_t left = logical_size_ - pos_;
        if (min_item_bytes > 0 && count > left / min_item_bytes) {
            fail("truncated or corrupt file: " + what + " count " + std::to_string(count) + " needs at least " +
                 std::to_string(min_item_bytes) + " bytes each but only " + std::to_string(left) + " remain");
        }
    }

private:
    const uint8_t* data_;
    std::size_t size_;
    uint64_t logical_size_;
    std::size_t pos_ = 0;
    std::string prefix_;
};

bool valid_value_type(uint32_t t) { return t <= static_cast<uint32_t>(GgufType::Float64); }

// Smallest encoding of one value of type t (used to bound counts).
uint64_t min_value_bytes(GgufType t) {
    if (t == GgufType::String) return 8;
    if (t == GgufType::Array) return 12;
    return gguf_scalar_size(t);
}

// Walks over one value, validating every length inside it.
void skip_value(Cursor& c, GgufType type, int depth, const std::string& what) {
    switch (type) {
        case GgufType::String: {
            const uint64_t len = c.read<uint64_t>(what + " (string length)");
            c.skip(len, what + " (string of " + std::to_string(len) + " bytes)");
            return;
        }
        case GgufType::Array: {
            if (depth >= kMaxArrayDepth) {
                c.fail(what + ": arrays nested more than " + std::to_string(kMaxArrayDepth) + " deep");
            }
            const uint32_t elem = c.read<uint32_t>(what + " (array item type)");
            if (!valid_value_type(elem)) c.fail(what + ": unknown array item type " + std::to_string(elem));
            const uint64_t count = c.read<uint64_t>(what + " (array length)");
            const auto elem_type = static_cast<GgufType>(elem);
            c.check_count(count, min_value_bytes(elem_type), what + ": array");
            if (const std::size_t sz = gguf_scalar_size(elem_type); sz > 0) {
                c.skip(count * sz, what + " (array of " + std::to_string(count) + " " + gguf_type_name(elem_type) + ")");
                return;
            }
            for (uint64_t i = 0; i < count; ++i) skip_value(c, elem_type, depth + 1, what);
            return;
        }
        default: c.skip(gguf_scalar_size(type), what + " (" + gguf_type_name(type) + ")");
    }
}

template <typename T>
T load(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}

// Decodes one value at `c` (already validated by parse()).
GgufMetaValue decode_value(Cursor& c, GgufType type) {
    switch (type) {
        case GgufType::Uint8: return GgufMetaValue::u8(c.read<uint8_t>("uint8"));
        case GgufType::Int8: return GgufMetaValue::i8(c.read<int8_t>("int8"));
        case GgufType::Uint16: return GgufMetaValue::u16(c.read<uint16_t>("uint16"));
        case GgufType::Int16: return GgufMetaValue::i16(c.read<int16_t>("int16"));
        case GgufType::Uint32: return GgufMetaValue::u32(c.read<uint32_t>("uint32"));
        case GgufType::Int32: return GgufMetaValue::i32(c.read<int32_t>("int32"));
        case GgufType::Uint64: return GgufMetaValue::u64(c.read<uint64_t>("uint64"));
        case GgufType::Int64: return GgufMetaValue::i64(c.read<int64_t>("int64"));
        case GgufType::Float32: return GgufMetaValue::f32(c.read<float>("float32"));
        case GgufType::Float64: return GgufMetaValue::f64(c.read<double>("float64"));
        case GgufType::Bool: return GgufMetaValue::boolean(c.read<uint8_t>("bool") != 0);
        case GgufType::String: return GgufMetaValue::string(c.read_string("string"));
        case GgufType::Array: {
            const auto elem = static_cast<GgufType>(c.read<uint32_t>("array item type"));
            const uint64_t count = c.read<uint64_t>("array length");
            std::vector<GgufMetaValue> items;
            items.reserve(static_cast<std::size_t>(count));  // validated against the file by parse()
            for (uint64_t i = 0; i < count; ++i) items.push_back(decode_value(c, elem));
            return GgufMetaValue::array(elem, std::move(items));
        }
    }
    c.fail("unknown value type");
}

// Reads one integer item of type t at p as int64; false if it does not fit.
bool read_integer(GgufType t, const uint8_t* p, int64_t& out) {
    switch (t) {
        case GgufType::Uint8: out = load<uint8_t>(p); return true;
        case GgufType::Int8: out = load<int8_t>(p); return true;
        case GgufType::Uint16: out = load<uint16_t>(p); return true;
        case GgufType::Int16: out = load<int16_t>(p); return true;
        case GgufType::Uint32: out = load<uint32_t>(p); return true;
        case GgufType::Int32: out = load<int32_t>(p); return true;
        case GgufType::Int64: out = load<int64_t>(p); return true;
        case GgufType::Uint64: {
            const uint64_t u = load<uint64_t>(p);
            if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
            out = static_cast<int64_t>(u);
            return true;
        }
        default: return false;
    }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// TensorInfo

std::vector<int64_t> GgufFile::TensorInfo::shape() const {
    std::vector<int64_t> s(dims.rbegin(), dims.rend());  // dims were checked to fit int64
    return s;
}

int64_t GgufFile::TensorInfo::numel() const {
    int64_t n = 1;
    for (uint64_t d : dims) n *= static_cast<int64_t>(d);  // checked against overflow by parse()
    return n;
}

// ---------------------------------------------------------------------------------------------
// Parsing

GgufFile GgufFile::open(const std::filesystem::path& path) { return parse(MappedFile::open(path)); }

GgufFile GgufFile::parse(std::shared_ptr<const MappedFile> file) {
    const uint64_t size = file->size();
    return parse_header_of(std::move(file), size);
}

GgufFile GgufFile::parse_header(std::shared_ptr<const MappedFile> prefix, uint64_t file_size) {
    if (prefix->size() > file_size) {
        throw FormatError("GGUF file '" + prefix->path().string() + "': " + std::to_string(prefix->size()) +
                          " bytes read of a file said to be " + std::to_string(file_size) + " bytes");
    }
    return parse_header_of(std::move(prefix), file_size);
}

GgufFile GgufFile::parse_header_of(std::shared_ptr<const MappedFile> file, uint64_t file_size) {
    GgufFile g;
    g.file_ = std::move(file);
    g.header_only_ = g.file_->size() < file_size;
    Cursor c(g.file_->data(), g.file_->size(), file_size, "GGUF file '" + g.name() + "': ");

    c.need(4, "the magic number");
    if (std::memcmp(g.file_->data(), "GGUF", 4) != 0) c.fail("not a GGUF file (the magic number is not 'GGUF')");
    c.skip(4, "magic");
    g.version_ = c.read<uint32_t>("the version");
    if (g.version_ == 1) c.fail("GGUF version 1 is not supported (re-convert the model; versions 2 and 3 are)");
    if (g.version_ != 2 && g.version_ != 3) {
        c.fail("unsupported GGUF version " + std::to_string(g.version_) + " (supported: 2, 3)" +
               ((g.version_ & 0xffffu) == 0 ? "; a big-endian file?" : ""));
    }
    const uint64_t n_tensors = c.read<uint64_t>("the tensor count");
    const uint64_t n_kv = c.read<uint64_t>("the metadata count");
    // A key/value pair takes at least 8 (key length) + 1 (key) + 4 (type) + 1 (value) bytes; a tensor
    // info at least 8 + 1 + 4 + 8 + 4 + 8.
    c.check_count(n_kv, 14, "metadata key");
    c.check_count(n_tensors, 33, "tensor");

    g.entries_.reserve(static_cast<std::size_t>(n_kv));
    for (uint64_t i = 0; i < n_kv; ++i) {
        const std::string what = "metadata entry #" + std::to_string(i);
        Entry e;
        e.key = c.read_string(what + " key");
        if (e.key.empty()) c.fail(what + " has an empty key");
        const std::string kwhat = "metadata key '" + printable_excerpt(e.key) + "'";
        const uint32_t type = c.read<uint32_t>(kwhat + " (value type)");
        if (!valid_value_type(type)) c.fail(kwhat + " has unknown value type " + std::to_string(type));
        e.type = static_cast<GgufType>(type);
        if (e.type == GgufType::Array) {
            // Record where the items start, then validate the whole array.
            const std::size_t start = c.pos();
            const uint32_t elem = c.read<uint32_t>(kwhat + " (array item type)");
            e.count = c.read<uint64_t>(kwhat + " (array length)");
            e.elem_type = static_cast<GgufType>(elem);
            e.offset = c.pos();
            c.seek(start);
            skip_value(c, GgufType::Array, 0, kwhat);
        } else {
            e.offset = c.pos();
            skip_value(c, e.type, 0, kwhat);
        }
        if (!g.entry_index_.emplace(e.key, g.entries_.size()).second) c.fail("duplicate metadata key '" + printable_excerpt(e.key) + "'");
        g.entries_.push_back(std::move(e));
    }

    if (const Entry* a = g.find("general.alignment")) {
        int64_t v = 0;
        if (!gguf_is_integer(a->type) || !read_integer(a->type, g.file_->data() + a->offset, v)) {
            c.fail("key 'general.alignment' must be an unsigned integer, not " + gguf_type_name(a->type));
        }
        if (v <= 0 || !std::has_single_bit(static_cast<uint64_t>(v))) {
            c.fail("general.alignment " + std::to_string(v) + " is not a power of two");
        }
        g.alignment_ = static_cast<uint64_t>(v);
    }

    g.tensors_.reserve(static_cast<std::size_t>(n_tensors));
    for (uint64_t i = 0; i < n_tensors; ++i) {
        TensorInfo t;
        t.name = c.read_string("tensor info #" + std::to_string(i) + " name");
        const std::string what = "tensor '" + printable_excerpt(t.name) + "'";
        const uint32_t n_dims = c.read<uint32_t>(what + " (dimension count)");
        if (n_dims == 0 || n_dims > kMaxDims) {
            c.fail(what + " has " + std::to_string(n_dims) + " dimensions (must be 1 to " + std::to_string(kMaxDims) + ")");
        }
        t.dims.resize(n_dims);
        int64_t numel = 1;
        for (uint32_t d = 0; d < n_dims; ++d) {
            t.dims[d] = c.read<uint64_t>(what + " (dimensions)");
            if (t.dims[d] == 0 || t.dims[d] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
                c.fail(what + " has an invalid dimension " + std::to_string(t.dims[d]));
            }
            if (__builtin_mul_overflow(numel, static_cast<int64_t>(t.dims[d]), &numel)) {
                c.fail(what + " has too many elements (the product of its dimensions overflows)");
            }
        }
        t.ggml_type = c.read<uint32_t>(what + " (type)");
        t.offset = c.read<uint64_t>(what + " (data offset)");
        if (t.offset % g.alignment_ != 0) {
            c.fail(what + " data offset " + std::to_string(t.offset) + " is not a multiple of the alignment " +
                   std::to_string(g.alignment_));
        }
        if (const auto layout = ggml_type_layout(t.ggml_type)) {
            if (static_cast<int64_t>(t.dims[0]) % layout->block_size != 0) {
                c.fail(what + " of type " + ggml_type_name(t.ggml_type) + " has row length " + std::to_string(t.dims[0]) +
                       ", not a multiple of its block size " + std::to_string(layout->block_size));
            }
            int64_t bytes = 0;
            if (__builtin_mul_overflow(numel / layout->block_size, layout->block_bytes, &bytes)) {
                c.fail(what + " is too large (its byte size overflows)");
            }
            t.nbytes = static_cast<uint64_t>(bytes);
        }
        if (!g.tensor_index_.emplace(t.name, g.tensors_.size()).second) c.fail("duplicate tensor name '" + printable_excerpt(t.name) + "'");
        g.tensors_.push_back(std::move(t));
    }

    // The data section starts at the next multiple of the alignment.
    const uint64_t end_of_header = c.pos();
    const uint64_t pad = (g.alignment_ - end_of_header % g.alignment_) % g.alignment_;
    g.data_offset_ = end_of_header + pad;  // cannot overflow: both terms are below 2^63 + file size
    const uint64_t size = file_size;
    if (!g.tensors_.empty() && g.data_offset_ > size) {
        c.fail("truncated file: the tensor data section would start at offset " + std::to_string(g.data_offset_) +
               " but the file is " + std::to_string(size) + " bytes");
    }
    const uint64_t data_size = g.data_offset_ <= size ? size - g.data_offset_ : 0;
    for (const TensorInfo& t : g.tensors_) {
        const std::string what = "tensor '" + printable_excerpt(t.name) + "'";
        if (t.offset > data_size) {
            c.fail(what + " data offset " + std::to_string(t.offset) + " is past the end of the file (data section is " +
                   std::to_string(data_size) + " bytes)");
        }
        if (t.nbytes && *t.nbytes > data_size - t.offset) {
            c.fail("truncated file: " + what + " needs " + std::to_string(*t.nbytes) + " bytes at data offset " +
                   std::to_string(t.offset) + " but the data section is " + std::to_string(data_size) + " bytes");
        }
    }
    std::vector<TensorRange> ranges;
    for (const TensorInfo& t : g.tensors_)
        if (t.nbytes) ranges.push_back({t.name, t.offset, t.offset + *t.nbytes});
    if (std::string why = overlapping_tensors(std::move(ranges)); !why.empty()) c.fail(why);
    return g;
}

// ---------------------------------------------------------------------------------------------
// Metadata access

std::string GgufFile::name() const { return file_ ? file_->path().string() : std::string(); }

void GgufFile::fail(const std::string& what) const { throw FormatError("GGUF file '" + name() + "': " + what); }

const GgufFile::Entry* GgufFile::find(std::string_view key) const {
    auto it = entry_index_.find(std::string(key));
    return it == entry_index_.end() ? nullptr : &entries_[it->second];
}

const GgufFile::Entry& GgufFile::require(std::string_view key) const {
    const Entry* e = find(key);
    if (e == nullptr) fail("missing metadata key '" + std::string(key) + "'");
    return *e;
}

void GgufFile::wrong_type(const Entry& e, const char* expected) const {
    std::string actual = gguf_type_name(e.type);
    if (e.type == GgufType::Array) actual += " of " + gguf_type_name(e.elem_type);
    fail("metadata key '" + printable_excerpt(e.key) + "' has type " + actual + ", expected " + expected);
}

GgufMetaValue GgufFile::value(std::string_view key) const {
    const Entry& e = require(key);
    Cursor c(file_->data(), file_->size(), "GGUF file '" + name() + "': ");
    if (e.type == GgufType::Array) {
        c.seek(e.offset - 12);  // back to the item type + count
    } else {
        c.seek(e.offset);
    }
    return decode_value(c, e.type);
}

std::optional<std::string> GgufFile::get_string_opt(std::string_view key) const {
    const Entry* e = find(key);
    if (e == nullptr) return std::nullopt;
    if (e->type != GgufType::String) wrong_type(*e, "string");
    Cursor c(file_->data(), file_->size(), "GGUF file '" + name() + "': ");
    c.seek(e->offset);
    return c.read_string("metadata key '" + printable_excerpt(e->key) + "'");
}

std::string GgufFile::get_string(std::string_view key) const {
    require(key);
    return *get_string_opt(key);
}

std::optional<int64_t> GgufFile::get_int_opt(std::string_view key) const {
    const Entry* e = find(key);
    if (e == nullptr) return std::nullopt;
    if (!gguf_is_integer(e->type)) wrong_type(*e, "an integer");
    int64_t v = 0;
    if (!read_integer(e->type, file_->data() + e->offset, v)) fail("metadata key '" + printable_excerpt(e->key) + "' is out of range");
    return v;
}

int64_t GgufFile::get_int(std::string_view key) const {
    require(key);
    return *get_int_opt(key);
}

std::optional<double> GgufFile::get_float_opt(std::string_view key) const {
    const Entry* e = find(key);
    if (e == nullptr) return std::nullopt;
    const uint8_t* p = file_->data() + e->offset;
    if (e->type == GgufType::Float32) return load<float>(p);
    if (e->type == GgufType::Float64) return load<double>(p);
    if (e->type == GgufType::Uint64) return static_cast<double>(load<uint64_t>(p));
    int64_t v = 0;
    if (gguf_is_integer(e->type) && read_integer(e->type, p, v)) return static_cast<double>(v);
    wrong_type(*e, "a number");
}

double GgufFile::get_float(std::string_view key) const {
    require(key);
    return *get_float_opt(key);
}

std::optional<bool> GgufFile::get_bool_opt(std::string_view key) const {
    const Entry* e = find(key);
    if (e == nullptr) return std::nullopt;
    if (e->type != GgufType::Bool) wrong_type(*e, "bool");
    return file_->data()[e->offset] != 0;
}

bool GgufFile::get_bool(std::string_view key) const {
    require(key);
    return *get_bool_opt(key);
}

std::optional<std::vector<std::string>> GgufFile::get_string_array_opt(std::string_view key) const {
    const Entry* e = find(key);
    if (e == nullptr) return std::nullopt;
    if (e->type != GgufType::Array || e->elem_type != GgufType::String) wrong_type(*e, "array of string");
    Cursor c(file_->data(), file_->size(), "GGUF file '" + name() + "': ");
    c.seek(e->offset);
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(e->count));  // validated against the file by parse()
    for (uint64_t i = 0; i < e->count; ++i) out.push_back(c.read_string("metadata key '" + printable_excerpt(e->key) + "'"));
    return out;
}

std::vector<std::string> GgufFile::get_string_array(std::string_view key) const {
    require(key);
    return *get_string_array_opt(key);
}

std::optional<std::vector<float>> GgufFile::get_float_array_opt(std::string_view key) const {
    const Entry* e = find(key);
    if (e == nullptr) return std::nullopt;
    if (e->type != GgufType::Array || (e->elem_type != GgufType::Float32 && e->elem_type != GgufType::Float64)) {
        wrong_type(*e, "array of float32");
    }
    const std::size_t n = static_cast<std::size_t>(e->count);
    std::vector<float> out(n);
    const uint8_t* p = file_->data() + e->offset;
    for (std::size_t i = 0; i < n; ++i) {
        out[i] = e->elem_type == GgufType::Float32 ? load<float>(p + 4 * i) : static_cast<float>(load<double>(p + 8 * i));
    }
    return out;
}

std::vector<float> GgufFile::get_float_array(std::string_view key) const {
    require(key);
    return *get_float_array_opt(key);
}

std::optional<std::vector<int64_t>> GgufFile::get_int_array_opt(std::string_view key) const {
    const Entry* e = find(key);
    if (e == nullptr) return std::nullopt;
    if (e->type != GgufType::Array || !gguf_is_integer(e->elem_type)) wrong_type(*e, "array of integers");
    const std::size_t n = static_cast<std::size_t>(e->count);
    const std::size_t sz = gguf_scalar_size(e->elem_type);
    std::vector<int64_t> out(n);
    const uint8_t* p = file_->data() + e->offset;
    for (std::size_t i = 0; i < n; ++i) {
        if (!read_integer(e->elem_type, p + sz * i, out[i])) {
            fail("metadata key '" + printable_excerpt(e->key) + "' item " + std::to_string(i) + " is out of range");
        }
    }
    return out;
}

std::vector<int64_t> GgufFile::get_int_array(std::string_view key) const {
    require(key);
    return *get_int_array_opt(key);
}

// ---------------------------------------------------------------------------------------------
// Tensors

const GgufFile::TensorInfo* GgufFile::find_tensor(std::string_view name) const {
    auto it = tensor_index_.find(std::string(name));
    return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

const uint8_t* GgufFile::tensor_data(const TensorInfo& t) const {
    if (header_only_) fail("tensor '" + printable_excerpt(t.name) + "': only the file's header was read");
    return file_->data() + data_offset_ + t.offset;
}

TensorView GgufFile::tensor_view(const TensorInfo& t) const {
    const auto dtype = dtype_from_ggml(t.ggml_type);
    if (!dtype) {
        const std::string type = ggml_type_name(t.ggml_type);
        const bool known = type.rfind("type id ", 0) != 0;
        fail("tensor '" + printable_excerpt(t.name) + "' has " + (known ? "type " : "unknown ") + type +
             ", which snapdoc does not support (supported: " + supported_ggml_type_names() + ")");
    }
    TensorView v;
    v.name = t.name;
    v.dtype = *dtype;
    v.shape = t.shape();
    v.data = tensor_data(t);
    v.nbytes = static_cast<std::size_t>(*t.nbytes);  // supported types always have a known layout
    return v;
}

}  // namespace snapdoc
