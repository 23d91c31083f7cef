// How an answer's statistics read in the chat (one line under the answer, the speed readout) and
// how they are stored with the message (JSON).
#pragma once

#include <QString>
#include <string>

#include "ui/worker/worker_types.h"

namespace snapdoc::ui {

// "128 tokens · question prefill 850 tok/s · generation 42.1 tok/s · KV 1.2 MiB of 9.6 MiB · stopped"
QString answer_meta_line(const AnswerStats& stats);
// The speed readout: prefill and generation tokens/s, separately.
QString speed_line(const AnswerStats& stats);
std::string answer_stats_json(const AnswerStats& stats, double kept_fraction);
// Rebuilds the meta line from stored stats JSON (history loaded from the database).
QString meta_line_from_json(const std::string& stats_json);

}  // namespace snapdoc::ui
