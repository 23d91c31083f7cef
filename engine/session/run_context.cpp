#include "engine/session/run_context.h"

namespace snapdoc {

int document_run_context(const RopeScaling& s, int64_t needed_tokens) {
    if (s.kind != RopeScalingKind::LongRope || s.long_freq_factors.empty() || s.original_context <= 0)
        return 0;
    return needed_tokens <= s.original_context ? s.original_context : 0;
}

}  // namespace snapdoc
