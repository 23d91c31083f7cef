// The tests' SHA-256 (the modelzoo fixtures' sha256 of dequantized tensors, downloaded bytes) is the
// production one the download engine verifies with (app/hub/sha256.h, OpenSSL): one implementation.
#pragma once

#include "app/hub/sha256.h"

namespace snapdoc::testing {

using Sha256 = hub::Sha256;

}  // namespace snapdoc::testing
