#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/model_setup.h"
#include "engine/model/model_summary.h"

namespace snapdoc::cli {

int cmd_info(int argc, char** argv) {
    const Args args(model_flags(), argc, argv, 2);
    LoadedModel lm = load_for_cli(args, /*need_tokenizer=*/false, /*need_backend=*/false);
    const Model& m = *lm.model;
    const ModelConfig& c = m.config;
    const ModelSummary s = summarize(m);
    std::printf("path:            %s\n", m.path.c_str());
    std::printf("format:          %s\n", m.format == ModelFormat::Gguf ? "GGUF" : "Hugging Face safetensors");
    std::printf("architecture:    %s%s%s\n", c.architecture.c_str(), c.name.empty() ? "" : " / ", c.name.c_str());
    std::printf("layers:          %d\n", c.n_layers);
    std::printf("hidden size:     %d\n", c.dim);
    std::printf("heads:           %d query, %d key/value (group %d), head dim %d\n", c.n_heads, c.n_kv_heads,
                c.group_size(), c.head_dim);
    std::printf("ffn size:        %d\n", c.ffn_dim);
    std::printf("vocab size:      %d\n", c.vocab_size);
    std::printf("context length:  %d\n", c.context_length);
    std::printf("rope:            theta %g, scaling %s, %s\n", c.rope_theta, rope_scaling_summary(c.rope_scaling).c_str(),
                std::string(rope_style_name(c.rope_style)).c_str());
    std::printf("norm eps:        %g\n", c.norm_eps);
    std::printf("embeddings:      %s\n", c.tied_embeddings ? "tied" : "separate output");
    std::printf("dtype:           %s\n", std::string(dtype_name(c.weight_dtype)).c_str());
    std::printf("parameters:      %lld (%.2f M)\n", static_cast<long long>(s.parameters), s.parameters / 1e6);
    std::printf("weights:         %s\n", format_bytes(s.weight_bytes).c_str());
    std::printf("KV per token:    %s (f32, uncompressed)\n", format_bytes(s.kv_bytes_per_token).c_str());
    std::printf("memory @ ctx:    %s for %d tokens (weights + full KV + activations)\n",
                format_bytes(estimate_run_bytes(m, c.context_length)).c_str(), c.context_length);
    if (lm.tokenizer) {
        std::printf("tokenizer:       SentencePiece, %d pieces, bos %d, eos %d, unk %d\n", lm.tokenizer->vocab_size(),
                    lm.tokenizer->bos_id(), lm.tokenizer->eos_id(), lm.tokenizer->unk_id());
    } else {
        std::printf("tokenizer:       none\n");
    }
    std::printf("chat template:   %s\n", m.chat_template.empty() ? "none" : "present");
    return 0;
}

}  // namespace snapdoc::cli
