// The fit of any repository's listed GGUF files (Get models' "Any Hugging Face repository"), as
// the catalogue's rows have it: the shape comes from one file's header (remote_gguf_shape.h; every
// quantization of a repository shares it), the weights from each choice's size.
#pragma once

#include <string>
#include <vector>

#include "app/hub/fit_estimate.h"
#include "app/hub/hub_tree.h"

namespace snapdoc::hub {

// One estimate per choice, in order (quant as listed; "" when the file name has none).
std::vector<FitEstimate> estimate_listed_choices(const std::string& repo, const ModelConfig& shape,
                                                 const std::vector<GgufChoice>& choices, const MachineMemory& machine,
                                                 const FitOptions& options);

// The choice whose header is read for the shape: the smallest complete one (its header is as
// large as any other's; a small file also answers a range request soonest). -1 when none is complete.
int shape_source_choice(const std::vector<GgufChoice>& choices);

}  // namespace snapdoc::hub
