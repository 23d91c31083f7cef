#include "app/hub/fit_estimate.h"

#include <algorithm>
#include <cstdio>

#include "engine/common/memory_stats.h"
#include "engine/model/model_summary.h"
#include "engine/runtime/backend_factory.h"

namespace snapdoc::hub {

namespace {

FitBadge badge_for(int64_t need, int64_t have, double fits_share) {
    if (have <= 0) return FitBadge::Fits;  // unknown: refuse nothing
    if (static_cast<double>(need) <= fits_share * static_cast<double>(have)) return FitBadge::Fits;
    return need <= have ? FitBadge::Tight : FitBadge::DoesNotFit;
}

// Where the document runs best here, for one length: the CUDA device (everything but the full
// K/V store, which the backend keeps on the host when the device has no room; the store in RAM)
// or the CPU backend (everything in RAM). A store that does not fit in RAM spills to a mapped
// file (DocumentSession's spill), so with the rest in RAM that is "tight", not impossible.
struct Placement {
    FitBadge badge = FitBadge::DoesNotFit;
    bool on_device = false;
};

Placement place(const DocumentMemory& m, const MachineMemory& machine, double share) {
    Placement cpu{badge_for(m.total(), machine.ram_bytes, share), false};
    if (cpu.badge != FitBadge::Fits && badge_for(m.without_store(), machine.ram_bytes, share) == FitBadge::Fits)
        cpu.badge = FitBadge::Tight;
    if (machine.device_free_bytes <= 0) return cpu;
    const FitBadge dev = badge_for(m.without_store(), machine.device_free_bytes, share);
    const FitBadge host = badge_for(m.full_kv_store, machine.ram_bytes, share);
    const Placement gpu{std::max(dev, host == FitBadge::DoesNotFit ? FitBadge::Tight : host), true};
    if (dev == FitBadge::DoesNotFit) return cpu;
    return gpu.badge <= cpu.badge ? gpu : cpu;
}

std::string with_commas(int64_t n) {
    std::string s = std::to_string(n);
    for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
    return s;
}

std::string describe(const FitEstimate& e, const FitOptions& o, int context_length) {
    if (!e.within_context)
        return "the document (" + with_commas(o.document_tokens) + " tokens) is longer than the model's context (" +
               with_commas(context_length) + " tokens)";
    std::string s = "needs " + format_bytes(e.on_device ? e.memory.without_store() : e.memory.total());
    if (e.on_device) {
        s += " of " + format_bytes(e.device_free_bytes) + " free GPU memory, + " + format_bytes(e.memory.full_kv_store) +
             " K/V store in " + format_bytes(e.ram_bytes) + " RAM";
    } else if (e.ram_bytes > 0) {
        s += " of " + format_bytes(e.ram_bytes) + " RAM";
        if (e.badge == FitBadge::Tight && e.memory.total() > e.ram_bytes) s += " (the K/V store would page from disk)";
    }
    return s;
}

}  // namespace

std::string badge_text(FitBadge badge) {
    switch (badge) {
        case FitBadge::Fits: return "fits";
        case FitBadge::Tight: return "tight";
        case FitBadge::DoesNotFit: return "does not fit";
    }
    return "";
}

MachineMemory this_machine() {
    MachineMemory m;
    m.ram_bytes = physical_memory_bytes();
    if (cuda_backend_usable()) {
        const DeviceMemoryUse d = cuda_memory_use();
        m.device_free_bytes = std::max<int64_t>(0, d.total - d.used);
    }
    return m;
}

double scaled_prefill_seconds(const MeasuredPrefill& measured, const ModelConfig& target, int64_t tokens) {
    const PrefillCostModel from = flop_cost_model(measured.config), to = flop_cost_model(target);
    PrefillCostModel scaled;
    scaled.per_row = from.per_row > 0 ? measured.cost.per_row * to.per_row / from.per_row : 0;
    scaled.per_pair = from.per_pair > 0 ? measured.cost.per_pair * to.per_pair / from.per_pair : 0;
    return scaled.prefill_seconds(tokens, target.n_layers);
}

FitEstimate estimate_fit(const CatalogueEntry& entry, const CatalogueFile& file, const MachineMemory& machine,
                         const FitOptions& o) {
    FitEstimate e;
    e.model_id = entry.id;
    e.quant = file.quant;
    e.parameters = entry.parameters;
    e.ram_bytes = machine.ram_bytes;
    e.device_free_bytes = machine.device_free_bytes;
    const int64_t weights = weight_bytes_of(entry, file);
    const auto plan = [&](int64_t tokens) {
        return plan_document_memory(entry.shape, weights, tokens, o.snapkv_budget, o.chunk_rows);
    };
    e.memory = plan(o.document_tokens);
    e.within_context = o.document_tokens <= entry.shape.context_length;
    const Placement p = place(e.memory, machine, o.fits_share);
    e.on_device = p.on_device;
    e.badge = e.within_context ? p.badge : FitBadge::DoesNotFit;
    if (o.prefill) e.prefill_seconds = scaled_prefill_seconds(*o.prefill, entry.shape, o.document_tokens);

    // Memory grows with the length, so the longest document that fits is a bisection on the same plan.
    const auto fits = [&](int64_t tokens) { return place(plan(tokens), machine, o.fits_share).badge == FitBadge::Fits; };
    int64_t lo = 0, hi = entry.shape.context_length;
    if (fits(hi)) {
        lo = hi;
    } else {
        while (hi - lo > 1) {
            const int64_t mid = lo + (hi - lo) / 2;
            (fits(mid) ? lo : hi) = mid;
        }
        if (!fits(lo)) lo = 0;
    }
    e.longest_document_tokens = lo;
    e.reason = describe(e, o, entry.shape.context_length);
    return e;
}

std::vector<FitEstimate> estimate_catalogue(const Catalogue& catalogue, const MachineMemory& machine,
                                            const FitOptions& options) {
    std::vector<FitEstimate> out;
    for (const CatalogueEntry& entry : catalogue.models)
        for (const CatalogueFile& file : entry.files) out.push_back(estimate_fit(entry, file, machine, options));
    return out;
}

int recommend(const std::vector<FitEstimate>& estimates, const FitOptions& options) {
    const auto preferred = [&](const FitEstimate& a, const FitEstimate& b) {  // a better than b?
        if (a.parameters != b.parameters) return a.parameters > b.parameters;
        const bool a_default = a.quant == "Q4_K_M", b_default = b.quant == "Q4_K_M";
        if (a_default != b_default) return a_default;
        return a.memory.weights < b.memory.weights;
    };
    int best = -1, fastest = -1;
    for (int i = 0; i < static_cast<int>(estimates.size()); ++i) {
        const FitEstimate& e = estimates[static_cast<std::size_t>(i)];
        if (e.badge != FitBadge::Fits || !e.within_context) continue;
        if (fastest < 0 || e.prefill_seconds < estimates[static_cast<std::size_t>(fastest)].prefill_seconds)
            fastest = i;
        if (e.prefill_seconds >= 0 && e.prefill_seconds > options.max_prefill_seconds) continue;
        if (best < 0 || preferred(e, estimates[static_cast<std::size_t>(best)])) best = i;
    }
    // Nothing prefills within the limit here (a long document on a small CPU): the quickest that fits.
    return best >= 0 ? best : fastest;
}

}  // namespace snapdoc::hub
