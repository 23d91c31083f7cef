#include <chrono>
#include <cstdio>
#include <random>

#include "app/cli/commands.h"
#include "app/cli/model_setup.h"
#include "engine/common/error.h"
#include "engine/common/memory_stats.h"
#include "engine/model/model_summary.h"
#include "engine/session/context_check.h"
#include "engine/session/generate.h"

namespace snapdoc::cli {

int cmd_generate(int argc, char** argv) {
    auto flags = model_flags();
    flags.insert(flags.end(), {{{"-p", "--prompt"}},
                               {{"-n", "--n-predict"}},
                               {{"--temp"}},
                               {{"--top-k"}},
                               {{"--top-p"}},
                               {{"--min-p"}},
                               {{"--repeat-penalty"}},
                               {{"--seed"}},
                               {{"--no-bos"}, false},
                               {{"--ignore-eos"}, false},
                               {{"--print-ids"}, false},
                               {{"--ignore-context"}, false}});
    const Args args(flags, argc, argv, 2);
    LoadedModel lm = load_for_cli_interruptible(args, /*need_tokenizer=*/true, /*need_backend=*/true);
    const Tokenizer& tok = *lm.tokenizer;

    GenerationRequest req;
    // BOS as the model's tokenizer adds it (add_bos_token: Llama yes, Qwen and Phi-3.5 no), as llama.cpp
    // does.
    if (!args.has("no-bos") && tok.add_bos() && tok.bos_id() >= 0) req.prompt.push_back(tok.bos_id());
    const auto text_ids = tok.encode(args.str("prompt"));
    req.prompt.insert(req.prompt.end(), text_ids.begin(), text_ids.end());
    if (req.prompt.empty()) throw Error("the prompt is empty and there is no BOS to start from");
    req.max_new_tokens = n_predict_flag(args, 256);
    check_context_room(static_cast<int64_t>(req.prompt.size()), req.max_new_tokens, lm.backend->config().context_length,
                       "the prompt + the tokens to generate", args.has("ignore-context"));
    check_memory_for_run(*lm.model, static_cast<int64_t>(req.prompt.size()) + req.max_new_tokens);
    req.sampling.temperature = args.real("temp", 0.8f);
    req.sampling.top_k = args.integer("top-k", 40);
    req.sampling.top_p = args.real("top-p", 0.95f);
    req.sampling.min_p = args.real("min-p", 0.05f);
    req.sampling.repetition_penalty = args.real("repeat-penalty", 1.0f);
    req.sampling.seed =
        args.has("seed") ? static_cast<uint64_t>(args.integer64("seed", 0)) : std::random_device{}();
    req.sampling.validate();
    req.stop_at_eos = !args.has("ignore-eos");
    req.cancel = &install_interrupt_flag();

    StreamDecoder stream(tok);
    req.on_token = [&](int32_t id) {
        const std::string piece = stream.push(id);
        std::fwrite(piece.data(), 1, piece.size(), stdout);
        std::fflush(stdout);
    };
    const GenerationResult r = generate(*lm.backend, req);
    const std::string rest = stream.flush();
    std::fwrite(rest.data(), 1, rest.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);

    std::fprintf(
        stderr,
        "prompt: %d tokens, prefill %.3f s (%.1f tok/s) | generated: %zu tokens, %.3f s (%.1f tok/s) | "
        "stop: %s | seed %llu | KV %s | peak RSS %s | backend %s\n",
        r.prompt_tokens, r.prefill_seconds, r.prompt_tokens / std::max(1e-9, r.prefill_seconds),
        r.tokens.size(), r.decode_seconds,
        r.tokens.size() > 1 ? (r.tokens.size() - 1) / std::max(1e-9, r.decode_seconds) : 0.0,
        stop_reason_name(r.stop), static_cast<unsigned long long>(req.sampling.seed),
        format_bytes(static_cast<int64_t>(r.kv_bytes)).c_str(), format_bytes(peak_rss_bytes()).c_str(),
        lm.backend->name().c_str());
    if (args.has("print-ids")) {
        std::string ids;
        for (int32_t id : r.tokens) ids += (ids.empty() ? "" : " ") + std::to_string(id);
        std::fprintf(stderr, "generated ids: %s\n", ids.c_str());
    }
    return r.stop == StopReason::Cancelled ? 130 : 0;
}

}  // namespace snapdoc::cli
