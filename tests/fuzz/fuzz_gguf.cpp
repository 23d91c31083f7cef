// libFuzzer target: arbitrary bytes as a GGUF file. Parsing, every metadata accessor, every tensor
// view and a full model load must either succeed or throw snapdoc::Error; rows of every loaded
// tensor are read so ASan sees any view that points outside the file.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/common/error.h"
#include "engine/model/gguf_file.h"
#include "engine/model/gguf_model.h"
#include "engine/model/mapped_file.h"
#include "engine/model/model.h"

namespace {

using namespace snapdoc;

void touch(const TensorView& v, std::vector<float>& row) {
    if (!v.valid() || v.numel() == 0) return;
    const int64_t cols = v.cols();
    const int64_t rows = v.numel() / cols;
    row.resize(static_cast<std::size_t>(cols));
    dequantize_row(v.dtype, v.row_ptr(0), row.data(), cols);
    dequantize_row(v.dtype, v.row_ptr(rows - 1), row.data(), cols);
}

void exercise_file(const GgufFile& g) {
    for (const auto& e : g.entries()) {
        try {
            g.value(e.key);
            g.get_string_opt(e.key);
        } catch (const Error&) {
        }
        try {
            g.get_int_opt(e.key);
        } catch (const Error&) {
        }
        try {
            g.get_float_opt(e.key);
        } catch (const Error&) {
        }
        try {
            g.get_bool_opt(e.key);
        } catch (const Error&) {
        }
        try {
            g.get_string_array_opt(e.key);
        } catch (const Error&) {
        }
        try {
            g.get_float_array_opt(e.key);
        } catch (const Error&) {
        }
        try {
            g.get_int_array_opt(e.key);
        } catch (const Error&) {
        }
    }
    std::vector<float> row;
    for (const auto& t : g.tensors()) {
        try {
            touch(g.tensor_view(t), row);
        } catch (const Error&) {
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto file = MappedFile::from_bytes("fuzz.gguf", std::string_view(reinterpret_cast<const char*>(data), size));
    try {
        exercise_file(GgufFile::parse(file));
    } catch (const Error&) {
    }
    try {
        const Model m = load_gguf_model(file);
        std::vector<float> row;
        touch(m.weights.tok_embeddings, row);
        for (const LayerWeights& l : m.weights.layers) {
            for (const TensorView* v : l.views()) {
                touch(*v, row);
            }
        }
        touch(m.weights.out_norm, row);
        touch(m.weights.output, row);
        (void)m.parameter_count();
    } catch (const Error&) {
    }
    return 0;
}
