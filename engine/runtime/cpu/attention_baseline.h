// The first CPU attention (blocks of 32 rows per head, OpenBLAS tiles, scalar exp and masking per
// score), kept callable so `snapdoc-bench attention` measures old and new kernels in the same run.
// Not used by the backend.
#pragma once

#include "engine/runtime/cpu/attention.h"

namespace snapdoc::cpu {

// Same contract as attention(), except that args.lse is not written and args.out is required.
void attention_baseline(const AttentionArgs& args, ThreadPool& pool);

}  // namespace snapdoc::cpu
