// snapdoc-cli: the engine from the command line (generate, tokenize, eval, info).
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "app/cli/commands.h"
#include "app/common/version_text.h"
#include "engine/common/mapped_regions.h"
#include "engine/common/process_exit.h"
#include "engine/common/error.h"

namespace {

void usage(std::FILE* out) {
    std::fputs(
        "usage: snapdoc-cli COMMAND [flags]\n"
        "\n"
        "commands:\n"
        "  generate -m MODEL -p PROMPT [-n N] [--temp T] [--top-k K] [--top-p P] [--min-p P]\n"
        "           [--repeat-penalty R] [--seed S] [--threads N] [--no-bos] [--ignore-eos] [--print-ids]\n"
        "                 generate text; only the generated text goes to stdout, stats to stderr;\n"
        "                 stops on any end-of-generation id of the model (eos/eot/eom) unless --ignore-eos\n"
        "  tokenize -m MODEL -p TEXT [--bos]     print token ids, space-separated\n"
        "  eval -m MODEL --ids \"1 2 3\" --logits-out FILE [--ctx N]\n"
        "                 write every position's logits as little-endian f32 [T, vocab]\n"
        "  info -m MODEL  architecture, shapes, dtype, parameters, memory, tokenizer\n"
        "  ask -m MODEL --doc FILE (-q|--question Q)... [--budget 1024] [--window 32] [--kernel 7]\n"
        "      [--pool max|avg] [--gqa kv-head|query-head] [--policy uniform|pyramid|adaptive] [--full]\n"
        "      [--template NAME] [--system TEXT] [-n 256] [--temp 0] [--top-k 40] [--top-p 0.95] [--seed 0]\n"
        "      [--json OUT] [--conversation] [--history-keep 2048] [--no-citations]\n"
        "      [--cache-dir DIR | --no-cache] [--cache-cap-mb 4096]\n"
        "                 answer each question over one document prefill (re-snapping per question);\n"
        "                 --conversation: the questions are turns of one conversation\n"
        "  inspect -m MODEL (--doc FILE --question Q | --ids \"...\") [compression flags] --json OUT\n"
        "                 prefill and select only; write each head's kept positions and pooled scores\n"
        "  prompt -m MODEL --doc FILE -q Q [--template NAME] [--system TEXT]\n"
        "                 print the prompt's token ids (document part, question part)\n"
        "  eval-niah -m MODEL [--lengths 512,1024] [--depths 0,10,...,100] [--trials 4]\n"
        "      [--budgets full,64,128,256,10%] [--window W --kernel K --pool P --gqa G --policy P]\n"
        "      [--facts-per-1k 10] [-n 24] [--template NAME] [--seed S] [--csv OUT] [--trials-csv OUT]\n"
        "      [--png OUT.png] [--docs-out DIR] [--quiet]\n"
        "                 needle-in-a-haystack accuracy per length x depth, full KV vs SnapKV budgets;\n"
        "                 one heatmap per setting (OUT-full.png, OUT-b128.png, ...)\n"
        "  eval-multi -m MODEL [--length 1024] [--questions 4] [--docs 25] [--budgets 10%]\n"
        "      [--window W --kernel K --pool P --gqa G --policy P] [--facts-per-1k 10] [-n 24]\n"
        "      [--template NAME] [--seed S] [--csv OUT] [--quiet]\n"
        "                 several questions per document: re-snap vs compress-once vs query-agnostic\n"
        "  make-sample -m MODEL --out FILE [--tokens 100000] [--questions 5] [--facts-per-1k 2] [--seed 7]\n"
        "                 write a generated report and FILE's .questions.tsv (the demo's long sample)\n"
        "  pull REPO[:QUANT] | pull REPO FILE [--hf-token T] [--hf-endpoint URL]\n"
        "                 download a GGUF (or shard set) from the Hugging Face hub into the models folder;\n"
        "                 progress on stderr, the local path on stdout; Ctrl-C pauses, a rerun resumes\n"
        "  models [--catalogue [--tokens 100000 | --doc FILE] [--budget 1024]]\n"
        "                 the models folder's GGUF files with their sizes; --catalogue: the catalogue with\n"
        "                 a fit estimate for a document of that length on this machine, the pick marked *\n"
        "\n"
        "MODEL is a .gguf file or a Hugging Face folder (config.json, *.safetensors, tokenizer.model), or\n"
        "hf://REPO[:QUANT] (also --hf-repo REPO[:QUANT] [--hf-file FILE]): the local copy from the models\n"
        "folder ($SNAPDOC_MODELS_DIR, else $XDG_DATA_HOME/snapdoc/models), downloaded first if missing,\n"
        "or demo: the bundled demo model (models/snapdoc-demo.gguf in <prefix>/share/snapdoc, or in\n"
        "$SNAPDOC_RESOURCES_DIR), which answers questions about the bundled samples/demo-report.txt.\n"
        "--version prints the version and where the CUDA backend and the bundled files were found.\n"
        "Hub: HF_ENDPOINT (default https://huggingface.co) or --hf-endpoint; HF_TOKEN or --hf-token for\n"
        "gated repos; proxies from http_proxy/https_proxy/ALL_PROXY/no_proxy.\n"
        "Common flags: --device cpu|cuda|auto (auto = the GPU when one is usable and passed its self-check\n"
        "against the CPU, else the CPU; docs/gpu-self-check.md), --gpu-self-check (run that check again and\n"
        "print its verdict), --threads N (0 = all\n"
        "cores), --log-level trace|debug|info|warn|error|off, --exact-prefill (CPU: prefill quantized\n"
        "weights in exact f32 instead of on 8-bit activations; SNAPDOC_CPU_KERNELS=portable|avx2|avxvnni|avx512vnni\n"
        "forces the CPU kernels' instruction set), --precise-activations (CPU: quantized weights against two\n"
        "8-bit activation planes, ~15 bits: logits far closer to exact for about half the speed; also\n"
        "SNAPDOC_ACT_PLANES=2), --kv-f16 (CPU: keep the attention cache's K and V\n"
        "as f16, llama.cpp's default: half the cache memory and faster long-context decode; off: f32)\n"
        "(default from SNAPDOC_LOG_LEVEL, else warn).\n"
        "Inputs longer than the context (prompt + -n) are refused before any work; --ignore-context\n"
        "(generate, eval, ask, inspect, eval-niah, eval-multi) runs them anyway. -n is at most 16777216,\n"
        "--threads at most 1024 (more than the cores are lowered to the core count).\n"
        "Reference: docs/cli.md.\n",
        out);
}

}  // namespace

int run_cli(int argc, char** argv) {
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!std::strcmp(argv[1], "--version")) {
        std::fputs(snapdoc::version_text("snapdoc-cli").c_str(), stdout);
        return 0;
    }
    const std::string cmd = argv[1];
    try {
        if (cmd == "generate") return snapdoc::cli::cmd_generate(argc, argv);
        if (cmd == "tokenize") return snapdoc::cli::cmd_tokenize(argc, argv);
        if (cmd == "eval") return snapdoc::cli::cmd_eval(argc, argv);
        if (cmd == "info") return snapdoc::cli::cmd_info(argc, argv);
        if (cmd == "ask") return snapdoc::cli::cmd_ask(argc, argv);
        if (cmd == "inspect") return snapdoc::cli::cmd_inspect(argc, argv);
        if (cmd == "prompt") return snapdoc::cli::cmd_prompt(argc, argv);
        if (cmd == "eval-niah") return snapdoc::cli::cmd_eval_niah(argc, argv);
        if (cmd == "eval-multi") return snapdoc::cli::cmd_eval_multi(argc, argv);
        if (cmd == "make-sample") return snapdoc::cli::cmd_make_sample(argc, argv);
        if (cmd == "pull") return snapdoc::cli::cmd_pull(argc, argv);
        if (cmd == "models") return snapdoc::cli::cmd_models(argc, argv);
        std::fprintf(stderr, "snapdoc-cli: unknown command '%s' (try --help)\n", cmd.c_str());
        return 2;
    } catch (const snapdoc::Cancelled&) {
        // Ctrl-C in a command without partial results to report (eval, inspect, eval-niah, eval-multi).
        std::fprintf(stderr, "snapdoc-cli %s: interrupted\n", cmd.c_str());
        return 130;
    } catch (const snapdoc::Error& e) {
        std::fprintf(stderr, "snapdoc-cli %s: error: %s\n", cmd.c_str(), e.what());
        return 1;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "snapdoc-cli %s: error: out of memory\n", cmd.c_str());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "snapdoc-cli %s: error: %s\n", cmd.c_str(), e.what());
        return 1;
    }
}

int main(int argc, char** argv) {
    snapdoc::ignore_file_size_signal();
    // A mapped model or K/V cache file truncated while in use: a message naming it, not "Bus error".
    snapdoc::install_sigbus_report("snapdoc-cli");
    // The command's objects are gone by now; leave without OpenBLAS's exit-time thread join, which
    // hangs under a low address-space limit (engine/common/process_exit.h).
    snapdoc::exit_after_flush(run_cli(argc, argv));
}
