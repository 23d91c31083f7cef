// Bounds how deeply elements nest before HTML reaches QTextDocument. Qt's HTML parser does work
// proportional to the depth for every element (it walks the open-element chain), so a page nested
// 100,000 levels deep took minutes to import: quadratic (issue 14). One linear pass here keeps what
// Qt sees at most `max_depth` deep: tags that would open deeper are left out (their text stays),
// with their end tags, and list items, paragraphs, cells and options that HTML closes implicitly
// ("<li>a<li>b", which Qt nests) get their end tag written out. Qt is quadratic in a list's item
// count too, so lists longer than 256 items are split into lists of 256 (the plain text is the
// same). A page within these bounds is passed through as it is, apart from implied end tags.
#pragma once

#include <QString>
#include <QStringView>

namespace snapdoc::services {

inline constexpr int kMaxHtmlNesting = 256;

struct CappedHtml {
    QString html;
    int max_depth_seen = 0;  // the deepest nesting of the input (as the pass counts it)
    int dropped_tags = 0;    // start and end tags left out
};

CappedHtml cap_html_nesting(QStringView html, int max_depth = kMaxHtmlNesting);

}  // namespace snapdoc::services
