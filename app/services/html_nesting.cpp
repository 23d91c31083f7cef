#include "app/services/html_nesting.h"

#include "app/services/html_tag_end.h"

#include <algorithm>
#include <vector>

namespace snapdoc::services {

namespace {

bool is_name_char(QChar c) {
    return c.isLetterOrNumber() || c == u'-' || c == u':' || c == u'_';
}

bool is_ascii_letter(QChar c) {
    const char16_t u = c.unicode();
    return (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z');
}

bool one_of(const QString& name, std::initializer_list<const char*> names) {
    for (const char* n : names)
        if (name == QLatin1String(n)) return true;
    return false;
}

// Elements without content: they never open a level.
bool is_void(const QString& n) {
    return one_of(n, {"area", "base", "basefont", "br", "col", "embed", "frame", "hr", "img", "input", "keygen",
                      "link", "meta", "param", "source", "track", "wbr"});
}

// Elements whose content is text up to their end tag (no tags are parsed inside).
bool is_raw_text(const QString& n) {
    return one_of(n, {"script", "style", "textarea", "title", "xmp"});
}

// HTML's implied end tags, applied to the innermost open element only (enough for the lists,
// paragraphs, tables and selects people write; deeper cases keep Qt's own handling): does a new
// `opening` element close an open `top`?
bool closes_implicitly(const QString& opening, const QString& top) {
    if (opening == QLatin1String("li")) return top == QLatin1String("li");
    if (opening == QLatin1String("p")) return top == QLatin1String("p");
    if (opening == QLatin1String("dt") || opening == QLatin1String("dd"))
        return top == QLatin1String("dt") || top == QLatin1String("dd");
    if (opening == QLatin1String("option")) return top == QLatin1String("option");
    if (opening == QLatin1String("td") || opening == QLatin1String("th") || opening == QLatin1String("tr"))
        return top == QLatin1String("td") || top == QLatin1String("th") ||
               (opening == QLatin1String("tr") && top == QLatin1String("tr"));
    return false;
}

struct Open {
    QString name;
    bool kept;
    QString start_tag;  // lists: the start tag as written, to reopen the list with
    int items = 0;      // lists: items started since the list (re)opened
};

// Qt also does work proportional to a list's length for every item added to it (20,000 items in
// one <ul>: half a minute), so a long list is closed and reopened every this many items; the
// extracted text is the same (plain text has no list markers).
constexpr int kListItemsPerList = 256;

// How far down the open elements an end tag looks for its start tag; a stray end tag deeper than
// this is treated as unmatched (keeps the pass linear on malformed input).
constexpr int kEndTagSearch = 16;

}  // namespace

CappedHtml cap_html_nesting(QStringView in, int max_depth) {
    CappedHtml out;
    out.html.reserve(in.size() + in.size() / 16);
    std::vector<Open> open;
    const qsizetype n = in.size();
    qsizetype i = 0;
    auto close_top = [&] {
        if (open.back().kept) out.html += QStringLiteral("</") + open.back().name + u'>';
        open.pop_back();
    };
    while (i < n) {
        const qsizetype lt = in.indexOf(u'<', i);
        if (lt < 0) {
            out.html += in.mid(i);
            break;
        }
        out.html += in.mid(i, lt - i);
        i = lt;
        const QChar next = i + 1 < n ? in[i + 1] : QChar();
        if (next == u'!' || next == u'?') {
            // Comment, doctype, CDATA, processing instruction: copied as they are.
            qsizetype end;
            if (in.mid(i, 4) == QLatin1String("<!--")) {
                end = in.indexOf(QLatin1String("-->"), i + 4);
                end = end < 0 ? n : end + 3;
            } else {
                end = in.indexOf(u'>', i + 2);
                end = end < 0 ? n : end + 1;
            }
            out.html += in.mid(i, end - i);
            i = end;
            continue;
        }
        const bool closing = next == u'/';
        const qsizetype name_at = i + (closing ? 2 : 1);
        if (name_at >= n || !is_ascii_letter(in[name_at])) {
            out.html += u'<';  // a "<" that starts no tag is text
            ++i;
            continue;
        }
        qsizetype j = name_at;
        while (j < n && is_name_char(in[j])) ++j;
        const QString name = in.mid(name_at, j - name_at).toString().toLower();
        j = html_tag_end(in, j);  // the first ">" outside a quoted attribute value
        const qsizetype end = j < n ? j + 1 : n;
        const QStringView tag = in.mid(i, end - i);
        i = end;
        if (closing) {
            int found = -1;
            for (int k = static_cast<int>(open.size()) - 1, looked = 0; k >= 0 && looked < kEndTagSearch; --k, ++looked)
                if (open[static_cast<std::size_t>(k)].name == name) {
                    found = k;
                    break;
                }
            if (found < 0) {
                // Unmatched: harmless to Qt at a bounded depth, left out beyond it.
                if (static_cast<int>(open.size()) < max_depth)
                    out.html += tag;
                else
                    ++out.dropped_tags;
                continue;
            }
            const bool kept = open[static_cast<std::size_t>(found)].kept;
            open.resize(static_cast<std::size_t>(found));
            if (kept)
                out.html += tag;
            else
                ++out.dropped_tags;
            continue;
        }
        const bool self_closing = tag.size() >= 2 && tag[tag.size() - 2] == u'/';
        if (is_void(name) || self_closing) {
            out.html += tag;
            continue;
        }
        while (!open.empty() && closes_implicitly(name, open.back().name)) close_top();
        if (name == QLatin1String("li") && !open.empty() && open.back().kept &&
            (open.back().name == QLatin1String("ul") || open.back().name == QLatin1String("ol")) &&
            ++open.back().items > kListItemsPerList) {
            out.html += QStringLiteral("</") + open.back().name + u'>' + open.back().start_tag;
            open.back().items = 1;
        }
        const bool kept = static_cast<int>(open.size()) < max_depth;
        if (kept)
            out.html += tag;
        else
            ++out.dropped_tags;
        open.push_back({name, kept, {}, 0});
        if (name == QLatin1String("ul") || name == QLatin1String("ol")) open.back().start_tag = tag.toString();
        out.max_depth_seen = std::max(out.max_depth_seen, static_cast<int>(open.size()));
        if (is_raw_text(name)) {
            // Its text runs to its end tag; a tag-like "<b>" inside a script is not markup.
            qsizetype close = in.indexOf(QStringLiteral("</") + name, i, Qt::CaseInsensitive);
            if (close < 0) close = n;
            if (kept) out.html += in.mid(i, close - i);  // a left-out script's code is not text either
            i = close;
        }
    }
    return out;
}

}  // namespace snapdoc::services
