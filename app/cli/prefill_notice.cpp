#include "app/cli/prefill_notice.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <string>

#include "engine/common/message_text.h"

namespace snapdoc::cli {

PrefillEstimate announce_prefill(Backend& backend, std::span<const int32_t> tokens) {
    const PrefillEstimate e = estimate_prefill(backend, tokens);
    if (e.measured)
        spdlog::info(
            "prefill estimate: {:.3f} s for {} tokens (per row {:.3e} s, per pair {:.3e} s, probe {:.3f} s, "
            "{} rows, {} pairs)",
            e.seconds, e.tokens, e.model.per_row, e.model.per_pair, e.probe_seconds, e.probe_rows,
            e.probe_pairs);
    if (e.measured)
        std::fprintf(stderr, "prefilling %s tokens: %s on this machine (probe %.2f s)\n",
                     with_commas(e.tokens).c_str(), format_duration(e.seconds).c_str(), e.probe_seconds);
    return e;
}

}  // namespace snapdoc::cli
