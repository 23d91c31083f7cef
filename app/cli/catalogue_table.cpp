// `snapdoc-cli models --catalogue [--doc FILE | --tokens N] [-m MODEL] [--budget B]`: the catalogue
// with each model's fit for that document on this machine (app/hub/fit_estimate.h), the
// recommended pick marked. With -m, the document is tokenized by that model and a prefill probe
// runs with it, so the table also predicts prefill times (scaled by each model's FLOPs); without
// it, --doc is counted at about 4 bytes per token and no times are shown. --ram-mb / --gpu-free-mb
// replace this machine's numbers (to see what another machine would take).
#include "app/cli/catalogue_table.h"

#include <cstdio>

#include "app/cli/model_setup.h"
#include "app/common/document_text.h"
#include "app/hub/fit_estimate.h"
#include "app/hub/model_store.h"
#include "engine/common/error.h"
#include "engine/common/message_text.h"
#include "engine/model/model_summary.h"
#include "engine/session/prefill_estimate.h"
#include "engine/tokenizer/tokenizer.h"

namespace snapdoc::cli {

namespace {

int64_t megabytes_flag(const Args& args, const std::string& key, int64_t fallback) {
    if (!args.has(key)) return fallback;
    const long long mb = args.integer64(key, 0);
    if (mb < 0) throw Error("--" + key + " must be >= 0");
    return static_cast<int64_t>(mb) << 20;
}

}  // namespace

std::vector<FlagSpec> catalogue_flags() {
    return {{{"-m", "--model"}}, {{"-t", "--threads"}}, {{"--device"}},
            {{"--budget"}},      {{"--ram-mb"}},        {{"--gpu-free-mb"}}};
}

int print_catalogue_table(const Args& args) {
    hub::FitOptions o;
    o.snapkv_budget = args.integer("budget", o.snapkv_budget);
    if (o.snapkv_budget < 1) throw Error("--budget must be >= 1");
    std::string counted = "no document: the default";
    if (args.has("doc") && args.has("tokens")) throw Error("give --doc or --tokens, not both");
    if (args.has("tokens")) {
        o.document_tokens = args.integer64("tokens", 0);
        if (o.document_tokens < 1) throw Error("--tokens must be >= 1");
        counted = "--tokens";
    }
    if (args.has("doc")) {
        const std::string text = read_document_text(args.str("doc"));
        if (args.has("model")) {
            LoadedModel lm = load_for_cli(args, /*need_tokenizer=*/true, /*need_backend=*/true);
            const std::vector<int32_t> ids = lm.tokenizer->encode(text);
            o.document_tokens = static_cast<int64_t>(ids.size());
            counted = "tokenized by " + lm.model->path.filename().string();
            const PrefillEstimate e = estimate_prefill(*lm.backend, ids);
            if (e.measured) o.prefill = hub::MeasuredPrefill{e.model, lm.model->config};
        } else {
            o.document_tokens = std::max<int64_t>(1, static_cast<int64_t>(text.size()) / 4);
            counted = "about 4 bytes per token; -m MODEL counts exactly";
        }
    }
    hub::MachineMemory machine = hub::this_machine();
    machine.ram_bytes = megabytes_flag(args, "ram-mb", machine.ram_bytes);
    machine.device_free_bytes = megabytes_flag(args, "gpu-free-mb", machine.device_free_bytes);

    const hub::Catalogue& cat = hub::builtin_catalogue();
    const auto fits = hub::estimate_catalogue(cat, machine, o);
    const int pick = hub::recommend(fits, o);
    std::printf("fit for a document of %s tokens (%s), SnapKV budget %d, on %s RAM%s\n",
                with_commas(o.document_tokens).c_str(), counted.c_str(), o.snapkv_budget,
                format_bytes(machine.ram_bytes).c_str(),
                machine.device_free_bytes > 0
                    ? (" + " + format_bytes(machine.device_free_bytes) + " free GPU memory").c_str()
                    : ", no CUDA GPU");
    std::printf("  %-28s %-7s %10s  %-12s %11s %14s %12s  %-5s %s\n", "MODEL", "QUANT", "DOWNLOAD", "FIT", "NEEDS",
                "PREFILL", "LONGEST DOC", "LOCAL", "REPO");
    const hub::ModelStore store;
    for (std::size_t i = 0; i < fits.size(); ++i) {
        const hub::FitEstimate& f = fits[i];
        const hub::CatalogueEntry& e = *cat.find(f.model_id);
        const std::string need =
            f.within_context ? format_bytes(f.on_device ? f.memory.without_store() : f.memory.total()) +
                                   (f.on_device ? " GPU" : "")
                             : "over ctx";
        const hub::CatalogueFile& file = *e.find_quant(f.quant);
        const bool local = store.find(hub::parse_model_ref(e.repo, file.files.front())).has_value();
        std::printf("%s %-28s %-7s %10s  %-12s %11s %14s %12s  %-5s %s\n", static_cast<int>(i) == pick ? "*" : " ",
                    e.name.c_str(), f.quant.c_str(),
                    ((file.bytes ? "" : "~") + format_bytes(f.memory.weights)).c_str(),
                    hub::badge_text(f.badge).c_str(), need.c_str(),
                    f.prefill_seconds < 0 ? "-" : format_duration(f.prefill_seconds).c_str(),
                    with_commas(f.longest_document_tokens).c_str(), local ? "yes" : "", e.repo.c_str());
    }
    if (pick >= 0) {
        const hub::FitEstimate& f = fits[static_cast<std::size_t>(pick)];
        std::printf("recommended (*): %s %s: %s\n  snapdoc-cli pull %s:%s\n",
                    cat.find(f.model_id)->name.c_str(), f.quant.c_str(), f.reason.c_str(),
                    cat.find(f.model_id)->repo.c_str(), f.quant.c_str());
    } else {
        std::printf("no catalogue model fits this document here (LONGEST DOC: what each one can take)\n");
    }
    return 0;
}

}  // namespace snapdoc::cli
