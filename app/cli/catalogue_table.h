// `snapdoc-cli models --catalogue`: the hook for the catalogue's fit table (the catalogue and the
// fit estimate live with the "Get models" work; until they are merged this prints where they are).
#pragma once

#include <vector>

#include "app/common/args.h"

namespace snapdoc::cli {

std::vector<FlagSpec> catalogue_flags();  // extra flags the table understands
int print_catalogue_table(const Args& args);

}  // namespace snapdoc::cli
