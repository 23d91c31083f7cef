#include "app/cli/catalogue_table.h"

#include <cstdio>

#include "app/documents/document_reader.h"
#include "app/hub/catalogue.h"
#include "app/hub/fit_estimate.h"
#include "app/hub/model_store.h"
#include "engine/common/error.h"
#include "engine/model/model_summary.h"

namespace snapdoc::cli {

namespace {

// Without a model there is no tokenizer to count with; English text averages about 4 characters
// per token in the catalogue's tokenizers (Llama 3, Qwen2.5/3: 128K-152K BPE vocabularies).
constexpr int64_t kCharsPerTokenEstimate = 4;

std::string tokens_text(int64_t n) {
    if (n >= 1000000) return std::to_string(n / 1000000) + "." + std::to_string(n / 100000 % 10) + "M";
    if (n >= 1000) return std::to_string(n / 1000) + "K";
    return std::to_string(n);
}

}  // namespace

std::vector<FlagSpec> catalogue_flags() {
    return {{{"--budget"}}};
}

int print_catalogue_table(const Args& args) {
    hub::FitOptions opt;
    if (args.has("doc") && args.has("tokens")) throw Error("give --doc or --tokens, not both");
    std::string what;
    if (args.has("doc")) {
        const std::string text = documents::read_document(args.str("doc")).text;
        opt.document_tokens =
            std::max<int64_t>(1, static_cast<int64_t>(text.size()) / kCharsPerTokenEstimate);
        what = args.str("doc") + " (~" + tokens_text(opt.document_tokens) + " tokens, estimated at " +
               std::to_string(kCharsPerTokenEstimate) +
               " characters per token; --tokens N for an exact count)";
    } else {
        const long long n = args.integer64("tokens", opt.document_tokens);
        if (n < 1 || n > 100000000) throw Error("--tokens must be in [1, 100000000]");
        opt.document_tokens = n;
        what = tokens_text(n) + " tokens";
    }
    opt.snapkv_budget = args.integer("budget", opt.snapkv_budget);
    if (opt.snapkv_budget < 1) throw Error("--budget must be >= 1");
    const hub::MachineMemory machine = hub::this_machine();
    const hub::Catalogue& cat = hub::builtin_catalogue();
    const auto estimates = hub::estimate_catalogue(cat, machine, opt);
    const int pick = hub::recommend(estimates, opt);
    const hub::ModelStore store;

    std::printf("fit for a document of %s, SnapKV budget %d, on this machine: %s RAM%s\n", what.c_str(),
                opt.snapkv_budget, format_bytes(machine.ram_bytes).c_str(),
                machine.device_free_bytes > 0
                    ? (", " + format_bytes(machine.device_free_bytes) + " free on the GPU").c_str()
                    : "");
    std::printf("  %-30s %-7s %7s %10s %10s %-13s %9s  %s\n", "MODEL", "QUANT", "PARAMS", "FILE", "NEEDS",
                "FIT", "LONGEST", "PULL WITH");
    std::size_t row = 0;
    for (const auto& e : cat.models) {
        for (const auto& f : e.files) {
            const hub::FitEstimate& fit = estimates.at(row);
            const bool here = store.find(hub::parse_model_ref(e.repo + ":" + f.quant)).has_value();
            std::printf("%s %-30s %-7s %7s %10s %10s %-13s %9s  %s:%s%s%s\n",
                        static_cast<int>(row) == pick ? "*" : " ", e.name.c_str(), f.quant.c_str(),
                        e.parameters_published.c_str(), format_bytes(hub::weight_bytes_of(e, f)).c_str(),
                        format_bytes(fit.memory.total()).c_str(),
                        (hub::badge_text(fit.badge) + (fit.on_device ? " (GPU)" : "")).c_str(),
                        tokens_text(fit.longest_document_tokens).c_str(), e.repo.c_str(), f.quant.c_str(),
                        e.gated ? "  [gated: needs HF_TOKEN]" : "", here ? "  [downloaded]" : "");
            if (fit.badge != hub::FitBadge::Fits || !fit.within_context)
                std::printf("    %s\n", fit.reason.c_str());
            ++row;
        }
    }
    if (pick >= 0)
        std::printf(
            "* recommended: the largest model that fits this document here (snapdoc-cli pull REPO:QUANT)\n");
    else
        std::printf(
            "no catalogue model fits a document of this length here; try a shorter one (--tokens N)\n");
    return 0;
}

}  // namespace snapdoc::cli
