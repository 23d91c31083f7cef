// Models from the Hugging Face hub on the command line, in llama.cpp's idiom: -m hf://REPO[:QUANT],
// --hf-repo REPO[:QUANT] [--hf-file FILE], --hf-token, --hf-endpoint (else HF_ENDPOINT / HF_TOKEN).
// A model already in the models folder is used without touching the network; otherwise it is
// downloaded first, with progress on stderr, and Ctrl-C pauses the download (a rerun resumes).
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "app/common/args.h"
#include "app/hub/download.h"
#include "app/hub/model_ref.h"

namespace snapdoc::cli {

std::vector<FlagSpec> hub_flags();

// The hub reference the flags name (-m hf://..., or --hf-repo/--hf-file), if any.
std::optional<hub::ModelRef> hub_ref_from_args(const Args& args);

// The model file to open: -m PATH as given, or the local copy of the hub model (downloading it if
// missing). Throws Error when neither -m nor --hf-repo is given, when a download fails (in
// words), and Cancelled when Ctrl-C paused it.
std::filesystem::path model_path_from_args(const Args& args);

// Downloads (or finds) `ref` with progress on stderr; returns the local files (first = to load).
// `checks` (optional): how each downloaded file was checked; left empty for a local copy.
std::vector<std::filesystem::path> pull_model(const Args& args, const hub::ModelRef& ref,
                                              std::vector<hub::FileCheck>* checks = nullptr);

// One progress line on stderr: rewritten in place on a terminal, a line every few seconds otherwise.
class ProgressPrinter {
public:
    ProgressPrinter();
    void operator()(const hub::DownloadProgress& p);
    void finish();  // ends the in-place line

private:
    bool tty_;
    bool open_line_ = false;
    double last_print_ = -1e9;
    std::string last_message_;
};

}  // namespace snapdoc::cli
