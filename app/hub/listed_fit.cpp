#include "app/hub/listed_fit.h"

namespace snapdoc::hub {

std::vector<FitEstimate> estimate_listed_choices(const std::string& repo, const ModelConfig& shape,
                                                 const std::vector<GgufChoice>& choices, const MachineMemory& machine,
                                                 const FitOptions& options) {
    CatalogueEntry entry;
    entry.id = repo;
    entry.name = repo;
    entry.repo = repo;
    entry.shape = shape;
    std::vector<FitEstimate> out;
    out.reserve(choices.size());
    for (const GgufChoice& choice : choices) {
        CatalogueFile file;
        file.quant = choice.quant;
        for (const RemoteFile& f : choice.files) file.files.push_back(f.path);
        file.bytes = choice.total_bytes();
        out.push_back(estimate_fit(entry, file, machine, options));
    }
    return out;
}

int shape_source_choice(const std::vector<GgufChoice>& choices) {
    int best = -1;
    for (int i = 0; i < static_cast<int>(choices.size()); ++i) {
        const GgufChoice& c = choices[static_cast<std::size_t>(i)];
        if (c.complete && !c.files.empty() &&
            (best < 0 || c.total_bytes() < choices[static_cast<std::size_t>(best)].total_bytes()))
            best = i;
    }
    return best;
}

}  // namespace snapdoc::hub
