// `snapdoc-cli models --catalogue [--tokens N | --doc FILE] [--budget B]`: the catalogue's models
// with the fit estimate for a document of that length on this machine (app/hub/fit_estimate.h),
// the recommended pick marked, and which of them are already in the models folder.
#pragma once

#include <vector>

#include "app/common/args.h"

namespace snapdoc::cli {

std::vector<FlagSpec> catalogue_flags();  // --budget (the others are cmd_models' own)
int print_catalogue_table(const Args& args);

}  // namespace snapdoc::cli
