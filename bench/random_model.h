// Random-weight models of real shapes built in memory (no file written or carried), for the CUDA
// long-context benchmark: the Mistral-7B shape in BF16 and a Llama-3.1-8B shape in Q4_K_M's type mix
// (Q4_K, with Q6_K for the output head and for attn_v / ffn_down of the layers llama.cpp gives more
// bits), plus tiny shapes for the emulated smoke test.
//
// Speed does not depend on the values, so every layer's views point at one set of random tensors
// (the host holds one layer; the backend still uploads and keeps each layer separately: device
// memory is the real model's). Model::weight_bytes() counts shared buffers once, so use
// random_model_weight_bytes() for the model's size.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/model/model.h"

namespace snapdoc::bench {

enum class WeightMix { BF16, Q4_K_M };

struct RandomModelShape {
    std::string name;         // --shape value
    std::string description;  // for the results header
    ModelConfig config;
    WeightMix mix = WeightMix::BF16;
};

const std::vector<RandomModelShape>& random_model_shapes();
const RandomModelShape& find_random_model_shape(const std::string& name);  // Error listing the known names

// Generates the tensors (all cores) and returns the model; `layers` > 0 overrides the layer count.
std::unique_ptr<Model> make_random_model(const RandomModelShape& shape, int layers = 0);

// Bytes of every layer's tensors as the model defines them (shared buffers counted per use).
int64_t random_model_weight_bytes(const Model& model);
// "Q4_K×226 Q6_K×35 F32×65": tensors per type as the model uses them (shared buffers counted per use).
std::string random_model_type_mix(const Model& model);

}  // namespace snapdoc::bench
