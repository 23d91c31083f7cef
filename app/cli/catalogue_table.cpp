#include "app/cli/catalogue_table.h"

#include "engine/common/error.h"

namespace snapdoc::cli {

std::vector<FlagSpec> catalogue_flags() { return {}; }

int print_catalogue_table(const Args&) {
    throw Error("--catalogue: this build has no model catalogue yet (it arrives with the catalogue/fit-estimate change)");
}

}  // namespace snapdoc::cli
