// Where an HTML tag ends: the first ">" outside a quoted attribute value (so `<a title="x>y">` ends
// after the second ">"). Shared by the boilerplate stripper and the nesting repair, which must agree
// on what one tag is.
#pragma once

#include <QStringView>

namespace snapdoc::services {

// Index of the tag's closing ">" at or after `from` (inside the tag, past its name), or html.size()
// when the tag never closes.
inline qsizetype html_tag_end(QStringView html, qsizetype from) {
    QChar quote;
    for (qsizetype j = from; j < html.size(); ++j) {
        const QChar c = html[j];
        if (!quote.isNull()) {
            if (c == quote) quote = QChar();
        } else if (c == u'"' || c == u'\'') {
            quote = c;
        } else if (c == u'>') {
            return j;
        }
    }
    return html.size();
}

}  // namespace snapdoc::services
