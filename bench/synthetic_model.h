// Random-weight GGUF models of real shapes, so speed and memory can be measured without
// downloading a model. The weights are generated row by row while the file is written.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "engine/model/dtype.h"
#include "engine/model/model_config.h"

namespace snapdoc::bench {

struct SyntheticShape {
    std::string name;
    std::string description;
    ModelConfig config;
    std::string architecture = "llama";  // the GGUF general.architecture (and its key prefix)
    bool qkv_bias = false;               // q/k/v projection biases (Qwen2)
    bool tied_output = false;            // no output.weight: the head reads token_embd (Qwen2.5-1.5B)
};

// A Llama-architecture config of these sizes (head_dim = dim / heads); names and token ids left unset.
ModelConfig llama_shape(int layers, int dim, int heads, int kv_heads, int ffn, int vocab, int ctx, float theta);

const std::vector<SyntheticShape>& synthetic_shapes();
const SyntheticShape& find_shape(const std::string& name);  // throws Error listing the known names
DType parse_dtype(const std::string& name);                 // f32 | f16 | bf16 | q8_0 | q4_0 | q4_k

// Writes the model unless `file` already exists; returns the path. With `sentencepiece_model` (a
// tokenizer.model file whose piece count equals the shape's vocab), the file carries that vocabulary
// as GGUF tokenizer metadata, so other engines (llama.cpp) load and quantize it too. A .gguf file
// instead gives its tokenizer.* keys as they are (a BPE vocabulary such as Llama 3's).
std::filesystem::path write_synthetic_model(const SyntheticShape& shape, DType dtype, const std::filesystem::path& file,
                                            const std::filesystem::path& sentencepiece_model = {});

}  // namespace snapdoc::bench
