#include "app/services/html_boilerplate.h"

#include "app/services/html_tag_end.h"

#include <QRegularExpression>

namespace snapdoc::services {

namespace {

struct Tag {
    bool end = false;
    bool self_closing = false;
    QString name;  // lower case
    QString attrs;
    qsizetype begin = 0, finish = 0;  // [begin, finish) in the input, '<' to after '>'
};

// The tag starting at html[i] == '<', or an empty name when it is not one (text, comment, doctype).
Tag parse_tag(QStringView html, qsizetype i) {
    Tag t;
    t.begin = i;
    qsizetype j = i + 1;
    if (j < html.size() && html[j] == u'/') {
        t.end = true;
        ++j;
    }
    const qsizetype name_start = j;
    while (j < html.size() && (html[j].isLetterOrNumber() || html[j] == u'-')) ++j;
    if (j == name_start || !html[name_start].isLetter()) return Tag{};
    t.name = html.mid(name_start, j - name_start).toString().toLower();
    const qsizetype attrs_start = j;
    j = html_tag_end(html, j);
    if (j >= html.size()) return Tag{};
    t.attrs = html.mid(attrs_start, j - attrs_start).toString();
    t.self_closing = t.attrs.endsWith(u'/');
    t.finish = j + 1;
    return t;
}

QString attribute(const QString& attrs, const char* name) {
    const QRegularExpression re(QStringLiteral("(?:^|\\s)%1\\s*=\\s*(?:\"([^\"]*)\"|'([^']*)'|([^\\s\"'>]+))")
                                    .arg(QLatin1String(name)),
                                QRegularExpression::CaseInsensitiveOption);
    const auto m = re.match(attrs);
    if (!m.hasMatch()) return {};
    for (int k = 1; k <= 3; ++k)
        if (m.capturedLength(k) > 0) return m.captured(k);
    return {};
}

bool has_class(const QString& attrs, const char* cls) {
    const QStringList classes = attribute(attrs, "class").split(u' ', Qt::SkipEmptyParts);
    return classes.contains(QLatin1String(cls), Qt::CaseInsensitive);
}

bool is_boilerplate(const Tag& t, int content_depth) {
    if (t.name == QLatin1String("nav") || t.name == QLatin1String("footer")) return true;
    if (t.name == QLatin1String("header") && content_depth == 0) return true;
    const QString role = attribute(t.attrs, "role").toLower();
    if (role == QLatin1String("navigation") || role == QLatin1String("banner") ||
        role == QLatin1String("contentinfo") || role == QLatin1String("search"))
        return true;
    return has_class(t.attrs, "headerlink");
}

// Where the text after the raw-text element opened by `t` resumes (after its end tag).
qsizetype skip_raw_text(QStringView html, const Tag& t) {
    const qsizetype end = html.indexOf(QString(QStringLiteral("</") + t.name), t.finish, Qt::CaseInsensitive);
    if (end < 0) return html.size();
    const qsizetype close = html.indexOf(u'>', end);
    return close < 0 ? html.size() : close + 1;
}

bool is_raw_text(const QString& name) {
    return name == QLatin1String("script") || name == QLatin1String("style") ||
           name == QLatin1String("textarea");
}

// After the end tag matching the element `open` starts, or -1 when it has none.
qsizetype end_of_element(QStringView html, const Tag& open) {
    int depth = 1;
    for (qsizetype i = open.finish; i < html.size();) {
        const qsizetype lt = html.indexOf(u'<', i);
        if (lt < 0) return -1;
        if (html.mid(lt, 4) == QLatin1String("<!--")) {
            const qsizetype e = html.indexOf(QLatin1String("-->"), lt + 4);
            if (e < 0) return -1;
            i = e + 3;
            continue;
        }
        const Tag t = parse_tag(html, lt);
        if (t.name.isEmpty()) {
            i = lt + 1;
            continue;
        }
        if (!t.end && is_raw_text(t.name)) {
            i = skip_raw_text(html, t);
            continue;
        }
        if (t.name == open.name) {
            if (t.end && --depth == 0) return t.finish;
            if (!t.end && !t.self_closing) ++depth;
        }
        i = t.finish;
    }
    return -1;
}

}  // namespace

StrippedHtml strip_html_boilerplate(QStringView html) {
    StrippedHtml out;
    out.html.reserve(html.size());
    int content_depth = 0;  // open <article>/<main> elements: a <header> inside one is the content's
    qsizetype i = 0;
    while (i < html.size()) {
        const qsizetype lt = html.indexOf(u'<', i);
        if (lt < 0) {
            out.html += html.mid(i);
            break;
        }
        out.html += html.mid(i, lt - i);
        if (html.mid(lt, 4) == QLatin1String("<!--")) {
            const qsizetype e = html.indexOf(QLatin1String("-->"), lt + 4);
            const qsizetype next = e < 0 ? html.size() : e + 3;
            out.html += html.mid(lt, next - lt);
            i = next;
            continue;
        }
        const Tag t = parse_tag(html, lt);
        if (t.name.isEmpty()) {
            out.html += u'<';
            i = lt + 1;
            continue;
        }
        if (!t.end && is_raw_text(t.name)) {
            const qsizetype next = skip_raw_text(html, t);
            out.html += html.mid(lt, next - lt);
            i = next;
            continue;
        }
        if (!t.end && is_boilerplate(t, content_depth)) {
            const qsizetype after = t.self_closing ? t.finish : end_of_element(html, t);
            ++out.dropped_elements;
            i = after < 0 ? t.finish : after;  // no end tag: only the tag itself goes
            continue;
        }
        if (t.name == QLatin1String("article") || t.name == QLatin1String("main"))
            content_depth = std::max(0, content_depth + (t.end ? -1 : 1));
        out.html += html.mid(lt, t.finish - lt);
        i = t.finish;
    }
    return out;
}

}  // namespace snapdoc::services
