// A hub model's page address as a browser shows it, pasted where a model reference is wanted:
//   https://huggingface.co/OWNER/NAME                    the repository
//   https://huggingface.co/OWNER/NAME/tree/REV           at a revision
//   https://huggingface.co/OWNER/NAME/blob/REV/FILE      one file (also /resolve/REV/FILE)
// http:// and www. are accepted, and hf.co for huggingface.co; a query or fragment is ignored.
// Other pages of a repository (discussions, settings, …) name no model and are refused with a
// message that shows the address to paste.
#pragma once

#include <string_view>

#include "app/hub/model_ref.h"

namespace snapdoc::hub {

bool is_hub_page_url(std::string_view text);
// Throws Error for an address that names no model (see above) or a malformed repository id.
ModelRef parse_hub_page_url(std::string_view url);

}  // namespace snapdoc::hub
