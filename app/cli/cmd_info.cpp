#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/model_setup.h"
#include "engine/model/model_summary.h"
#include "engine/runtime/cpu/kernel_level.h"
#include "engine/tokenizer/chat_template.h"

namespace snapdoc::cli {

int cmd_info(int argc, char** argv) {
    const Args args(model_flags(), argc, argv, 2);
    LoadedModel lm = load_for_cli(args, /*need_tokenizer=*/false, /*need_backend=*/false);
    const Model& m = *lm.model;
    const ModelConfig& c = m.config;
    const ModelSummary s = summarize(m);
    std::printf("path:            %s\n", m.path.c_str());
    std::printf("format:          %s\n", m.format == ModelFormat::Gguf ? "GGUF" : "Hugging Face safetensors");
    std::printf("architecture:    %s%s%s\n", c.architecture.c_str(), c.name.empty() ? "" : " / ",
                c.name.c_str());
    std::printf("layers:          %d\n", c.n_layers);
    std::printf("hidden size:     %d\n", c.dim);
    std::printf("heads:           %d query, %d key/value (group %d), head dim %d\n", c.n_heads, c.n_kv_heads,
                c.group_size(), c.head_dim);
    std::printf("ffn size:        %d\n", c.ffn_dim);
    std::printf("vocab size:      %d\n", c.vocab_size);
    std::printf("context length:  %d\n", c.context_length);
    std::printf("rope:            theta %g, scaling %s, %s\n", c.rope_theta,
                rope_scaling_summary(c.rope_scaling).c_str(),
                std::string(rope_style_name(c.rope_style)).c_str());
    std::printf("norm eps:        %g\n", c.norm_eps);
    std::printf("embeddings:      %s\n", c.tied_embeddings ? "tied" : "separate output");
    std::printf("dtype:           %s (bulk of the weights)\n",
                std::string(dtype_name(c.weight_dtype)).c_str());
    std::printf("tensor types:    %s\n", format_type_mix(s.type_mix).c_str());
    std::printf("parameters:      %lld (%.2f M)\n", static_cast<long long>(s.parameters), s.parameters / 1e6);
    const MemoryPlan mem = plan_memory(m);
    std::printf("weights:         %s as stored (memory-mapped)\n", format_bytes(mem.weights).c_str());
    std::printf(
        "KV cache:        %s per 1K tokens uncompressed (f16; the document's full KV, kept for re-snap)\n",
        format_bytes(mem.kv_full_per_1k).c_str());
    std::printf(
        "                 %s at SnapKV budget %d, whatever the document length (query-head mode %s)\n",
        format_bytes(mem.kv_at_budget).c_str(), mem.snapkv_budget,
        format_bytes(mem.kv_at_budget_query_heads).c_str());
    std::printf("compute scratch: %s (prefill chunk of %d rows + one row of logits)\n",
                format_bytes(mem.scratch).c_str(), mem.prefill_chunk_rows);
    std::printf("memory @ ctx:    %s for %d tokens (weights + full KV + activations)\n",
                format_bytes(estimate_run_bytes(m, c.context_length)).c_str(), c.context_length);
    if (lm.tokenizer) {
        const Tokenizer& tok = *lm.tokenizer;
        std::printf("tokenizer:       %s, %d pieces, bos %d%s, eos %d, unk %d\n",
                    tok.kind() == TokenizerKind::ByteLevelBpe ? "byte-level BPE" : "SentencePiece",
                    tok.vocab_size(), tok.bos_id(), tok.add_bos() ? " (added)" : " (not added)", tok.eos_id(),
                    tok.unk_id());
    } else {
        std::printf("tokenizer:       none (%s)\n", m.tokenizer_error.c_str());
    }
    std::string eog;
    for (int32_t id : c.end_of_generation_ids) eog += (eog.empty() ? "" : " ") + std::to_string(id);
    std::printf("end of answer:   %s (generation stops on any)\n", eog.empty() ? "none" : eog.c_str());
    const DetectedTemplate t = detect_chat_template(m.chat_template);
    std::printf("chat template:   %s (%s)\n", std::string(chat_template_name(t.kind)).c_str(),
                t.reason.c_str());
    // Which instruction set the CPU backend runs here (chosen at run time, SNAPDOC_CPU_KERNELS forces one).
    std::printf("cpu kernels:     %s\n", cpu::describe_cpu_kernels().c_str());
    return 0;
}

}  // namespace snapdoc::cli
