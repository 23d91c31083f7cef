// snapdoc-cli: the engine from the command line (generate, tokenize, eval, info).
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "app/cli/command_table.h"
#include "app/common/version_text.h"
#include "engine/common/mapped_regions.h"
#include "engine/common/process_exit.h"
#include "engine/common/error.h"

namespace {

// The whole help: every subcommand's usage (command_table.cpp), then what they share.
void usage(std::FILE* out) {
    std::fputs(
        "usage: snapdoc-cli COMMAND [flags]   (snapdoc-cli COMMAND --help: that command's usage)\n"
        "\n"
        "commands:\n",
        out);
    for (const snapdoc::cli::Command& c : snapdoc::cli::commands()) std::fwrite(c.usage.data(), 1, c.usage.size(), out);
    std::fputs(
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
        "SNAPDOC_ACT_PLANES=2), --kv-f32 (CPU: keep the attention cache's K and V in exact f32; the\n"
        "default is f16, as llama.cpp's: half the cache memory and faster long-context decode)\n"
        "(default from SNAPDOC_LOG_LEVEL, else warn).\n"
        "Inputs longer than the context (prompt + -n) are refused before any work; --ignore-context\n"
        "(generate, eval, ask, inspect, eval-niah, eval-multi) runs them anyway. -n is at most 16777216,\n"
        "--threads at most 1024 (more than the cores are lowered to the core count).\n"
        "Reference: docs/cli.md.\n",
        out);
}

// One command's usage (`snapdoc-cli ask --help`), on stdout as the whole help is.
void command_usage(const snapdoc::cli::Command& c) {
    std::printf("usage: snapdoc-cli %.*s [flags]\n\n", static_cast<int>(c.name.size()), c.name.data());
    std::fwrite(c.usage.data(), 1, c.usage.size(), stdout);
    std::fputs(
        "\nMODEL (a .gguf file, a Hugging Face folder, hf://REPO[:QUANT] or demo), the common flags\n"
        "(--device, --threads, --log-level, ...) and the environment: snapdoc-cli --help.\n"
        "Reference: docs/cli.md.\n",
        stdout);
}

// --help or -h anywhere after the command asks for its usage, as users type it after other flags
// (so a prompt or question that is exactly "-h" or "--help" cannot be given).
bool asks_for_help(int argc, char** argv) {
    for (int i = 2; i < argc; ++i)
        if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) return true;
    return false;
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
        if (const snapdoc::cli::Command* c = snapdoc::cli::find_command(cmd)) {
            if (asks_for_help(argc, argv)) {
                command_usage(*c);
                return 0;
            }
            return c->run(argc, argv);
        }
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
