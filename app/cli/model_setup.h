// What every model-using subcommand shares: the -m/--threads/--log-level flags, loading the model,
// its tokenizer and a backend, and the SIGINT handler that turns Ctrl-C into a clean cancel.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "app/common/args.h"
#include "engine/model/model.h"
#include "engine/runtime/backend.h"
#include "engine/tokenizer/tokenizer.h"

namespace snapdoc::cli {

// Flags understood by model_setup (add them to a subcommand's FlagSpec list).
std::vector<FlagSpec> model_flags();

struct LoadedModel {
    std::unique_ptr<Model> model;
    std::optional<Tokenizer> tokenizer;  // empty when the model has none and none was required
    std::unique_ptr<Backend> backend;
};

// Loads the model named by -m, its tokenizer (required or optional) and a backend (if wanted).
LoadedModel load_for_cli(const Args& args, bool need_tokenizer, bool need_backend);
// The same for a CLI command that runs the model: Ctrl-C is taken (install_interrupt_flag) from the
// start of the load, and one that lands during it throws Cancelled once the load is done (main()
// then says "interrupted", exit 130), not the default kill without a word. Not for snapdoc-server,
// whose own SIGTERM / SIGINT handlers drain the requests in flight.
LoadedModel load_for_cli_interruptible(const Args& args, bool need_tokenizer, bool need_backend);
// The backend for `model` (--threads, --device) at `context_length` (0: the model's own), for a
// command that picks the context itself after tokenizing (ask: document_run_context).
std::unique_ptr<Backend> make_cli_backend(const Args& args, const Model& model, int context_length);

// --threads, bounded: above kMaxThreads is an error (100000 threads aborted after 6 GB of stacks);
// above the machine's cores it is lowered to the core count with a message (5000 threads crawled).
inline constexpr int kMaxThreads = 1024;
int threads_flag(const Args& args);

// Refuses a run whose estimated resident memory (weights + uncompressed KV for `tokens` +
// activations) exceeds the machine's RAM, before anything is allocated: a sparse GGUF declaring
// terabytes of weights used to start generating without a word.
void check_memory_for_run(const Model& model, int64_t tokens);

// -n / --n-predict, bounded by kMaxNewTokens (so no sum with it overflows an int).
int n_predict_flag(const Args& args, int fallback);

// A flag set by SIGINT/SIGTERM; the first signal requests a clean stop, the second kills.
const std::atomic<bool>& install_interrupt_flag();

}  // namespace snapdoc::cli
