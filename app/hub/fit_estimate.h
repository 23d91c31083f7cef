// Will a catalogue model run a document of N tokens on this machine? Memory from the shape
// (engine/session/document_memory.h: weights + full K/V store + the layer being prefilled +
// compressed K/V at the budget + scratch) against RAM and, with a CUDA device, its free memory;
// a predicted prefill time from a probe measured here with another model (prefill_estimate.h),
// scaled by the two shapes' FLOPs; and the longest document that fits. Qt-free and pure: the
// machine's numbers are an input, so tests fix them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/hub/catalogue.h"
#include "engine/session/document_memory.h"
#include "engine/session/prefill_estimate.h"

namespace snapdoc::hub {

struct MachineMemory {
    int64_t ram_bytes = 0;          // installed RAM; 0 = unknown (nothing is refused)
    int64_t device_free_bytes = 0;  // free memory of the CUDA device; 0 = no usable device
};
// physical_memory_bytes() and, when this build has a usable CUDA device, its free memory.
MachineMemory this_machine();

// A prefill probe measured on this machine (PrefillEstimate::model) with the model of `config`.
struct MeasuredPrefill {
    PrefillCostModel cost;
    ModelConfig config;
};

struct FitOptions {
    int64_t document_tokens = 100000;
    int snapkv_budget = 1024;
    int chunk_rows = 512;
    // Up to this share of RAM (or device memory) a model "fits"; up to all of it, it is "tight"
    // (the system, the app and other programs need the rest).
    double fits_share = 0.85;
    std::optional<MeasuredPrefill> prefill;
    // The recommended pick must prefill the document within this (when a probe is known).
    double max_prefill_seconds = 30 * 60;
};

enum class FitBadge { Fits, Tight, DoesNotFit };
std::string badge_text(FitBadge badge);  // "fits", "tight", "does not fit"

struct FitEstimate {
    std::string model_id;
    std::string quant;
    int64_t parameters = 0;
    FitBadge badge = FitBadge::DoesNotFit;
    bool on_device = false;       // the badge is for the CUDA device (else the CPU backend in RAM)
    bool within_context = true;   // the document is no longer than the model's trained context
    std::string reason;           // "needs 21.4 GiB of 31.3 GiB RAM", "the document is longer than ..."
    DocumentMemory memory;        // for options.document_tokens
    int64_t ram_bytes = 0, device_free_bytes = 0;
    double prefill_seconds = -1;  // < 0: no probe to scale
    int64_t longest_document_tokens = 0;  // the longest that still "fits" (within the context)
};

FitEstimate estimate_fit(const CatalogueEntry& entry, const CatalogueFile& file, const MachineMemory& machine,
                         const FitOptions& options);
// One estimate per (entry, file) in catalogue order.
std::vector<FitEstimate> estimate_catalogue(const Catalogue& catalogue, const MachineMemory& machine,
                                            const FitOptions& options);

// The recommended pick ("the best model that fits this document here"): among the estimates that
// fit (badge Fits, document within the context) and, when a probe is known, prefill within
// options.max_prefill_seconds, the one with the most parameters; between quantizations of one
// model, Q4_K_M (llama.cpp's default, and room for longer documents), else the smallest file.
// When every model that fits is over the time limit, the one with the shortest predicted prefill.
// Returns an index into `estimates`, or -1 when nothing fits.
int recommend(const std::vector<FitEstimate>& estimates, const FitOptions& options);

// The measured probe's cost, scaled to `target` by the ratio of their FLOPs per row and per
// attention pair (flop_cost_model), for a prefill of `tokens`.
double scaled_prefill_seconds(const MeasuredPrefill& measured, const ModelConfig& target, int64_t tokens);

}  // namespace snapdoc::hub
