// Vocabulary shared by the GGUF reader and writer: metadata value types, a generic metadata value,
// and the GGML tensor type ids (those snapdoc computes with map to a DType).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model/dtype.h"

namespace snapdoc {

inline constexpr uint32_t kGgufMagic = 0x46554747;  // "GGUF" read as a little-endian u32
inline constexpr uint32_t kGgufDefaultAlignment = 32;

// Metadata value types, numbered as in the GGUF specification.
enum class GgufType : uint32_t {
    Uint8 = 0,
    Int8 = 1,
    Uint16 = 2,
    Int16 = 3,
    Uint32 = 4,
    Int32 = 5,
    Float32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    Uint64 = 10,
    Int64 = 11,
    Float64 = 12,
};

// "uint32", "string", ... or "type 42" for ids outside the specification.
std::string gguf_type_name(GgufType t);
// Encoded size of a fixed-size scalar type, 0 for string/array/unknown.
std::size_t gguf_scalar_size(GgufType t);
bool gguf_is_integer(GgufType t);

// One metadata value, fully decoded. Integers keep their exact type and value (u for unsigned,
// i for signed), floats are widened to double, arrays hold their items (possibly arrays).
struct GgufMetaValue {
    GgufType type = GgufType::Uint32;
    uint64_t u = 0;
    int64_t i = 0;
    double f = 0.0;
    bool b = false;
    std::string s;
    GgufType elem_type = GgufType::Uint32;  // arrays only
    std::vector<GgufMetaValue> items;       // arrays only

    static GgufMetaValue u8(uint8_t v) { return unsigned_(GgufType::Uint8, v); }
    static GgufMetaValue u16(uint16_t v) { return unsigned_(GgufType::Uint16, v); }
    static GgufMetaValue u32(uint32_t v) { return unsigned_(GgufType::Uint32, v); }
    static GgufMetaValue u64(uint64_t v) { return unsigned_(GgufType::Uint64, v); }
    static GgufMetaValue i8(int8_t v) { return signed_(GgufType::Int8, v); }
    static GgufMetaValue i16(int16_t v) { return signed_(GgufType::Int16, v); }
    static GgufMetaValue i32(int32_t v) { return signed_(GgufType::Int32, v); }
    static GgufMetaValue i64(int64_t v) { return signed_(GgufType::Int64, v); }
    static GgufMetaValue f32(float v) { return floating(GgufType::Float32, v); }
    static GgufMetaValue f64(double v) { return floating(GgufType::Float64, v); }
    static GgufMetaValue boolean(bool v) {
        GgufMetaValue m;
        m.type = GgufType::Bool;
        m.b = v;
        return m;
    }
    static GgufMetaValue string(std::string v) {
        GgufMetaValue m;
        m.type = GgufType::String;
        m.s = std::move(v);
        return m;
    }
    // Every item must have type `elem` (checked when written).
    static GgufMetaValue array(GgufType elem, std::vector<GgufMetaValue> items) {
        GgufMetaValue m;
        m.type = GgufType::Array;
        m.elem_type = elem;
        m.items = std::move(items);
        return m;
    }

private:
    static GgufMetaValue unsigned_(GgufType t, uint64_t v) {
        GgufMetaValue m;
        m.type = t;
        m.u = v;
        return m;
    }
    static GgufMetaValue signed_(GgufType t, int64_t v) {
        GgufMetaValue m;
        m.type = t;
        m.i = v;
        return m;
    }
    static GgufMetaValue floating(GgufType t, double v) {
        GgufMetaValue m;
        m.type = t;
        m.f = v;
        return m;
    }
};

// GGML tensor type ids used in GGUF tensor infos (enum ggml_type in ggml.h).
namespace ggml_type {
inline constexpr uint32_t F32 = 0;
inline constexpr uint32_t F16 = 1;
inline constexpr uint32_t Q4_0 = 2;
inline constexpr uint32_t Q4_1 = 3;
inline constexpr uint32_t Q5_0 = 6;
inline constexpr uint32_t Q5_1 = 7;
inline constexpr uint32_t Q8_0 = 8;
inline constexpr uint32_t Q2_K = 10;
inline constexpr uint32_t Q3_K = 11;
inline constexpr uint32_t Q4_K = 12;
inline constexpr uint32_t Q5_K = 13;
inline constexpr uint32_t Q6_K = 14;
inline constexpr uint32_t IQ4_NL = 20;
inline constexpr uint32_t IQ4_XS = 23;
inline constexpr uint32_t BF16 = 30;
}  // namespace ggml_type

// "Q4_K", "BF16", ... or "type id 99" when unknown.
std::string ggml_type_name(uint32_t type_id);
// The snapdoc dtype for a GGML type id, or nullopt when snapdoc cannot compute with it.
std::optional<DType> dtype_from_ggml(uint32_t type_id);
uint32_t ggml_from_dtype(DType t);
// "F32, F16, BF16, Q8_0, ..." for error messages.
std::string supported_ggml_type_names();

// Storage layout of a GGML type when known: bytes per block of `block_size` elements.
struct GgmlTypeLayout {
    int64_t block_size;
    int64_t block_bytes;
};
std::optional<GgmlTypeLayout> ggml_type_layout(uint32_t type_id);

}  // namespace snapdoc
