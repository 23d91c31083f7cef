// What a web page shows around its text and a reader skips, left out before the text reaches the
// prompt (issue 23 item 8): navigation (<nav>, role="navigation": Sphinx's "related" bar, sidebars,
// breadcrumbs), the page's banner and footer (<header> outside <article>/<main>, <footer>, role
// banner/contentinfo/search), and permalink anchors (class "headerlink": Sphinx's "¶" after every
// heading). One linear pass over the HTML; an element without its end tag loses only its own tag.
#pragma once

#include <QString>
#include <QStringView>

namespace snapdoc::services {

struct StrippedHtml {
    QString html;
    int dropped_elements = 0;
};

StrippedHtml strip_html_boilerplate(QStringView html);

}  // namespace snapdoc::services
