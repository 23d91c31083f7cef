// One immutable snapshot of the catalogue's fit for a document on this machine (computed off the
// GUI thread by compute_catalogue_fit, shown by CatalogueTableModel): the estimates of every
// (model, quantization) row, the recommended row, and what they were computed for.
#pragma once

#include <QString>
#include <memory>
#include <optional>

#include "app/hub/catalogue.h"
#include "app/hub/fit_estimate.h"

namespace snapdoc::ui {

struct CatalogueRow {
    const hub::CatalogueEntry* entry = nullptr;  // into `catalogue` (kept alive by the snapshot)
    const hub::CatalogueFile* file = nullptr;
    hub::FitEstimate fit;
};

struct CatalogueFit {
    std::shared_ptr<const hub::Catalogue> catalogue;
    hub::MachineMemory machine;
    hub::FitOptions options;
    std::vector<CatalogueRow> rows;
    int recommended = -1;  // index into rows, -1: nothing fits
};

// Pure: `machine` is what this_machine() measured, or a test's numbers.
std::shared_ptr<const CatalogueFit> compute_catalogue_fit(std::shared_ptr<const hub::Catalogue> catalogue,
                                                          const hub::MachineMemory& machine,
                                                          const hub::FitOptions& options);

// "7 min 20 s", "2 h 5 min" (format_duration without "about").
QString short_duration(double seconds);
// "100,000 tokens" / "100K tokens" for headers.
QString token_count(int64_t tokens);

}  // namespace snapdoc::ui
