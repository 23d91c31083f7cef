#include "ui/chat/citation_format.h"

#include <QObject>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "app/common/document_pages.h"
#include "engine/session/citations.h"

namespace snapdoc::ui {

QString excerpt_of(const QString& text, int max_chars) {
    QString s = text.simplified();
    if (s.size() <= max_chars) return s;
    int cut = s.lastIndexOf(QLatin1Char(' '), max_chars - 1);
    if (cut < max_chars / 2) cut = max_chars - 1;
    return s.left(cut) + QStringLiteral("…");
}

namespace {

bool in_word(QChar c) {
    return c.isLetterOrNumber() || c == QLatin1Char('_');
}

// Widens [begin, end) to whole words: a token span may start or end inside one ("igation" of
// "Navigation"), and the excerpt and the highlight should not.
void snap_to_words(const QString& text, int& begin, int& end) {
    while (begin > 0 && begin < text.size() && in_word(text[begin - 1]) && in_word(text[begin])) --begin;
    while (end > 0 && end < text.size() && in_word(text[end - 1]) && in_word(text[end])) ++end;
}

}  // namespace

std::pair<int, int> locate_excerpt(const QString& document, const QString& excerpt) {
    // Both sides with each whitespace run as one space (the server's excerpt is one line), keeping
    // where each kept character of the document was.
    QString flat;
    std::vector<int> where;
    flat.reserve(document.size());
    where.reserve(static_cast<std::size_t>(document.size()));
    for (int i = 0; i < document.size(); ++i) {
        if (document[i].isSpace()) {
            if (flat.isEmpty() || flat.back() == QLatin1Char(' ')) continue;
            flat += QLatin1Char(' ');
        } else {
            flat += document[i];
        }
        where.push_back(i);
    }
    QString needle = excerpt.simplified();
    if (needle.endsWith(QStringLiteral("…"))) needle.chop(1);  // a shortened excerpt: its start is enough
    needle = needle.trimmed();
    if (needle.isEmpty()) return {-1, -1};
    const int at = static_cast<int>(flat.indexOf(needle));
    if (at < 0) return {-1, -1};
    const int last = at + static_cast<int>(needle.size()) - 1;
    return {where[static_cast<std::size_t>(at)], where[static_cast<std::size_t>(last)] + 1};
}

std::vector<CitationView> resolve_citations(const std::vector<CitationInfo>& citations,
                                            const TokenTextMap* map, const QString& document,
                                            const std::vector<int>& page_offsets, int max_count) {
    const bool paged = usable_page_starts(page_offsets, document.size());
    std::vector<CitationInfo> sorted = citations;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const CitationInfo& a, const CitationInfo& b) { return a.weight > b.weight; });
    if (static_cast<int>(sorted.size()) > max_count) sorted.resize(static_cast<std::size_t>(max_count));
    std::vector<CitationView> out;
    for (const CitationInfo& c : sorted) {
        CitationView v;
        v.first_token = c.first_token;
        v.last_token = c.last_token;
        v.weight = c.weight;
        v.weak = c.weak;
        if (map || !c.text.isEmpty()) {
            // The engine's span is inclusive; text_range takes [p0, p1). A remote snapdoc-server's
            // positions are its tokenizer's: its excerpt is looked for in the text instead.
            auto [b, e] = map ? map->text_range(c.first_token, c.last_token + 1) : locate_excerpt(document, c.text);
            if (b >= 0 && e > b && e <= document.size()) {
                snap_to_words(document, b, e);
                v.begin = b;
                v.end = e;
                v.excerpt = excerpt_of(document.mid(b, e - b));
                // The page of the passage's first character that is not blank: a span may begin in
                // the blank lines that end the page before.
                int first = b;
                while (first + 1 < e && document[first].isSpace()) ++first;
                if (paged) v.page = page_at(page_offsets, first);
            }
        }
        if (v.excerpt.isEmpty() && !c.text.isEmpty()) v.excerpt = excerpt_of(c.text);
        if (v.page == 0 && c.page > 0) v.page = c.page;
        out.push_back(std::move(v));
    }
    return out;
}

void name_missing_pages(std::vector<CitationView>& citations, const std::vector<int>& page_offsets) {
    if (page_offsets.empty()) return;
    for (CitationView& c : citations)
        if (c.page == 0 && c.begin >= 0) c.page = page_at(page_offsets, c.begin);
}

QString citation_tooltip(const CitationView& c) {
    QString tip = QObject::tr("Click to show this passage in the document.");
    if (c.weak)
        tip = QObject::tr(
                  "Weak citation: no passage of the document stood out in the answer's attention "
                  "(none peaked at %1× the document's average), so this is only the strongest "
                  "one: the answer may not rest on the document.\n")
                  .arg(CitationOptions{}.min_lift, 0, 'f', 0) +
              tip;
    return tip;
}

std::string citations_json(const std::vector<CitationView>& citations) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& c : citations) {
        j.push_back({{"first_token", c.first_token},
                     {"last_token", c.last_token},
                     {"weight", c.weight},
                     {"begin", c.begin},
                     {"end", c.end},
                     {"excerpt", c.excerpt.toStdString()}});
        if (c.weak) j.back()["weak"] = true;  // only when set: rows stored before it read the same
        if (c.page > 0) j.back()["page"] = c.page;  // a PDF's only: "no page" is no field, not 0
    }
    return j.dump();
}

std::vector<CitationView> parse_citations_json(const std::string& json) {
    const auto j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
    std::vector<CitationView> out;
    if (!j.is_array()) return out;
    for (const auto& e : j) {
        if (!e.is_object()) continue;
        auto num = [&](const char* key, auto fallback) {
            return e.contains(key) && e[key].is_number() ? e[key].get<decltype(fallback)>() : fallback;
        };
        CitationView c;
        c.first_token = num("first_token", 0);
        c.last_token = num("last_token", 0);
        c.weight = num("weight", 0.0);
        c.begin = num("begin", -1);
        c.end = num("end", -1);
        c.page = std::max(0, num("page", 0));
        c.weak = e.contains("weak") && e["weak"].is_boolean() && e["weak"].get<bool>();
        if (e.contains("excerpt") && e["excerpt"].is_string())
            c.excerpt = QString::fromStdString(e["excerpt"].get<std::string>());
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace snapdoc::ui
