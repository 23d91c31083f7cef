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

// A flag set by SIGINT/SIGTERM; the first signal requests a clean stop, the second kills.
const std::atomic<bool>& install_interrupt_flag();

}  // namespace snapdoc::cli
