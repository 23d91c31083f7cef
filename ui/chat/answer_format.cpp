#include "ui/chat/answer_format.h"

#include <QLocale>
#include <nlohmann/json.hpp>

#include "engine/model/model_summary.h"

namespace snapdoc::ui {

namespace {
QString bytes(int64_t b) {
    return QString::fromStdString(format_bytes(b));
}
QString stop_words(const QString& reason) {
    if (reason == "cancelled") return QObject::tr(" · stopped");
    if (reason == "limit") return QObject::tr(" · hit the length limit");
    return {};
}
}  // namespace

QString answer_meta_line(const AnswerStats& s) {
    QString line = QObject::tr("%1 tokens · question prefill %2 tok/s · generation %3 tok/s · KV %4 of %5%6")
                       .arg(s.generated_tokens)
                       .arg(s.prefill_tokens_per_s(), 0, 'f', 0)
                       .arg(s.decode_tokens_per_s(), 0, 'f', 1)
                       .arg(bytes(s.kv_bytes_compressed), bytes(s.kv_bytes_full), stop_words(s.stop_reason));
    if (s.history_turns == 1) line += QObject::tr(" · with 1 earlier turn");
    if (s.history_turns > 1) line += QObject::tr(" · with %1 earlier turns").arg(s.history_turns);
    if (s.system_prompt_seconds > 0)
        line += QObject::tr(" · document read again for the system prompt (%1 s)")
                    .arg(s.system_prompt_seconds, 0, 'f', 1);
    return line;
}

QString speed_line(const AnswerStats& s) {
    const QLocale en(QLocale::English);
    return QObject::tr(
               "Prefill: %1 question tokens in %2 s (%3 tok/s) · Generation: %4 tokens in %5 s (%6 tok/s)")
        .arg(s.question_tokens)
        .arg(s.question_seconds, 0, 'f', 2)
        .arg(en.toString(s.prefill_tokens_per_s(), 'f', 0))
        .arg(s.generated_tokens)
        .arg(s.decode_seconds, 0, 'f', 2)
        .arg(en.toString(s.decode_tokens_per_s(), 'f', 1));
}

std::string answer_stats_json(const AnswerStats& s, double kept_fraction) {
    return nlohmann::json{{"prompt_tokens", s.prompt_tokens},
                          {"question_tokens", s.question_tokens},
                          {"generated_tokens", s.generated_tokens},
                          {"question_seconds", s.question_seconds},
                          {"select_seconds", s.select_seconds},
                          {"decode_seconds", s.decode_seconds},
                          {"prefill_tokens_per_s", s.prefill_tokens_per_s()},
                          {"decode_tokens_per_s", s.decode_tokens_per_s()},
                          {"kv_bytes_full", s.kv_bytes_full},
                          {"kv_bytes_compressed", s.kv_bytes_compressed},
                          {"kept_fraction", kept_fraction},
                          {"history_turns", s.history_turns},
                          {"system_prompt_seconds", s.system_prompt_seconds},
                          {"stop", s.stop_reason.toStdString()}}
        .dump();
}

QString meta_line_from_json(const std::string& stats_json) {
    const auto j = nlohmann::json::parse(stats_json, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("generated_tokens")) return {};
    AnswerStats s;
    auto get = [&](const char* key, auto& out) {
        if (j.contains(key) && j[key].is_number()) out = j[key].get<std::decay_t<decltype(out)>>();
    };
    get("generated_tokens", s.generated_tokens);
    get("question_tokens", s.question_tokens);
    get("question_seconds", s.question_seconds);
    get("decode_seconds", s.decode_seconds);
    get("kv_bytes_full", s.kv_bytes_full);
    get("kv_bytes_compressed", s.kv_bytes_compressed);
    get("history_turns", s.history_turns);
    get("system_prompt_seconds", s.system_prompt_seconds);
    if (j.contains("stop") && j["stop"].is_string())
        s.stop_reason = QString::fromStdString(j["stop"].get<std::string>());
    return answer_meta_line(s);
}

}  // namespace snapdoc::ui
