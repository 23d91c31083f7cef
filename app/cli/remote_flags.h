// The flags that say which remote engine to use and how to reach it, shared by `ask --remote` and
// `models --remote`: --remote URL, --api-key KEY (else $SNAPDOC_API_KEY), --ca-cert FILE,
// --insecure, --connect-timeout S, --stall-timeout S.
#pragma once

#include <vector>

#include "app/common/args.h"
#include "app/remote/remote_endpoint.h"

namespace snapdoc::cli {

std::vector<FlagSpec> remote_flags();
remote::RemoteEndpoint remote_endpoint_from(const Args& args);

}  // namespace snapdoc::cli
