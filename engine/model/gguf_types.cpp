#include "engine/model/gguf_types.h"

#include <array>

namespace snapdoc {

std::string gguf_type_name(GgufType t) {
    switch (t) {
        case GgufType::Uint8: return "uint8";
        case GgufType::Int8: return "int8";
        case GgufType::Uint16: return "uint16";
        case GgufType::Int16: return "int16";
        case GgufType::Uint32: return "uint32";
        case GgufType::Int32: return "int32";
        case GgufType::Float32: return "float32";
        case GgufType::Bool: return "bool";
        case GgufType::String: return "string";
        case GgufType::Array: return "array";
        case GgufType::Uint64: return "uint64";
        case GgufType::Int64: return "int64";
        case GgufType::Float64: return "float64";
    }
    return "type " + std::to_string(static_cast<uint32_t>(t));
}

std::size_t gguf_scalar_size(GgufType t) {
    switch (t) {
        case GgufType::Uint8:
        case GgufType::Int8:
        case GgufType::Bool: return 1;
        case GgufType::Uint16:
        case GgufType::Int16: return 2;
        case GgufType::Uint32:
        case GgufType::Int32:
        case GgufType::Float32: return 4;
        case GgufType::Uint64:
        case GgufType::Int64:
        case GgufType::Float64: return 8;
        case GgufType::String:
        case GgufType::Array: return 0;
    }
    return 0;
}

bool gguf_is_integer(GgufType t) {
    switch (t) {
        case GgufType::Uint8:
        case GgufType::Int8:
        case GgufType::Uint16:
        case GgufType::Int16:
        case GgufType::Uint32:
        case GgufType::Int32:
        case GgufType::Uint64:
        case GgufType::Int64: return true;
        default: return false;
    }
}

namespace {

// Names as ggml prints them; empty entries are ids that were retired (4, 5) or never assigned.
constexpr std::array<std::string_view, 40> kGgmlNames = {
    "F32",      "F16",      "Q4_0",     "Q4_1",       "",           "",           "Q5_0",    "Q5_1",
    "Q8_0",     "Q8_1",     "Q2_K",     "Q3_K",       "Q4_K",       "Q5_K",       "Q6_K",    "Q8_K",
    "IQ2_XXS",  "IQ2_XS",   "IQ3_XXS",  "IQ1_S",      "IQ4_NL",     "IQ3_S",      "IQ2_S",   "IQ4_XS",
    "I8",       "I16",      "I32",      "I64",        "F64",        "IQ1_M",      "BF16",    "Q4_0_4_4",
    "Q4_0_4_8", "Q4_0_8_8", "TQ1_0",    "TQ2_0",      "IQ4_NL_4_4", "IQ4_NL_4_8", "IQ4_NL_8_8", "MXFP4",
};

}  // namespace

std::string ggml_type_name(uint32_t type_id) {
    if (type_id < kGgmlNames.size() && !kGgmlNames[type_id].empty()) return std::string(kGgmlNames[type_id]);
    return "type id " + std::to_string(type_id);
}

namespace {

// GGML id of each DType, in DType enum order.
constexpr std::array<uint32_t, std::size(kAllDTypes)> kGgmlOfDType = {
    ggml_type::F32,  ggml_type::F16,  ggml_type::BF16, ggml_type::Q8_0, ggml_type::Q4_0,
    ggml_type::Q4_1, ggml_type::Q5_0, ggml_type::Q5_1, ggml_type::Q2_K, ggml_type::Q3_K,
    ggml_type::Q4_K, ggml_type::Q5_K, ggml_type::Q6_K, ggml_type::IQ4_NL, ggml_type::IQ4_XS,
};

}  // namespace

std::optional<DType> dtype_from_ggml(uint32_t type_id) {
    for (DType t : kAllDTypes)
        if (kGgmlOfDType[static_cast<std::size_t>(t)] == type_id) return t;
    return std::nullopt;
}

uint32_t ggml_from_dtype(DType t) { return kGgmlOfDType[static_cast<std::size_t>(t)]; }

std::string supported_ggml_type_names() {
    std::string s;
    for (DType t : kAllDTypes) s += (s.empty() ? "" : ", ") + std::string(dtype_name(t));
    return s;
}

std::optional<GgmlTypeLayout> ggml_type_layout(uint32_t type_id) {
    // Types snapdoc computes with take their layout from the DType table (one source of truth);
    // a few more whose layout is long settled let the reader check sizes of files it will refuse
    // later by name. For the rest the reader checks the offset alone.
    if (const auto t = dtype_from_ggml(type_id))
        return GgmlTypeLayout{dtype_block_size(*t), dtype_block_bytes(*t)};
    switch (type_id) {
        case 9: return GgmlTypeLayout{32, 36};   // Q8_1
        case 15: return GgmlTypeLayout{256, 292};  // Q8_K
        case 24: return GgmlTypeLayout{1, 1};    // I8
        case 25: return GgmlTypeLayout{1, 2};    // I16
        case 26: return GgmlTypeLayout{1, 4};    // I32
        case 27: return GgmlTypeLayout{1, 8};    // I64
        case 28: return GgmlTypeLayout{1, 8};    // F64
        default: return std::nullopt;
    }
}

}  // namespace snapdoc
