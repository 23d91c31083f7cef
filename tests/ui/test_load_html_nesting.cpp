// HTML import at any nesting depth (issue 14 item 2): Qt's HTML parser works in proportion to the
// open-element depth for every element, so 100,000 nested <div>s took minutes. The nesting cap
// hands Qt at most kMaxHtmlNesting levels; the tests assert what reaches Qt (its depth, the tags
// left out) and the extracted text. The one clock in here is a hang guard far above the fixed
// cost (under 2 s here) and far below the old one (minutes).
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QtTest>

#include "app/services/document_ingest.h"
#include "app/services/html_nesting.h"

using namespace snapdoc::services;

namespace {

QString nested(int depth, const QString& tag, const QString& inner) {
    QString h;
    h.reserve(depth * (2 * tag.size() + 5) + inner.size());
    for (int i = 0; i < depth; ++i) h += "<" + tag + ">";
    h += inner;
    for (int i = 0; i < depth; ++i) h += "</" + tag + ">";
    return h;
}

QString plain(const QString& html) {
    QTextDocument d;
    d.setHtml(html);
    return d.toPlainText();
}

}  // namespace

class TestLoadHtmlNesting : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private slots:
    void hundred_thousand_levels_reach_qt_capped() {
        const CappedHtml c = cap_html_nesting(nested(100000, "div", "the deepest words"));
        QCOMPARE(c.max_depth_seen, 100000);
        QCOMPARE(c.dropped_tags, 2 * (100000 - kMaxHtmlNesting));
        // What Qt gets nests no deeper than the cap.
        QCOMPARE(cap_html_nesting(c.html, 1 << 30).max_depth_seen, kMaxHtmlNesting);
        QCOMPARE(plain(c.html).trimmed(), QString("the deepest words"));
    }

    void a_deeply_nested_file_imports_with_its_text() {
        const QString path = dir_.path() + "/deep.html";
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(("<html><head><title>Deep</title></head><body>" + nested(100000, "span", "needle text") +
                 "<p>after</p></body></html>")
                    .toUtf8());
        f.close();
        QElapsedTimer t;
        t.start();
        const IngestedDocument d = ingest_document(path);
        // Hang guard only (the uncapped import took > 2 minutes; capped it is a fraction of a second).
        QVERIFY2(t.elapsed() < 60000, qPrintable(QString::number(t.elapsed())));
        QCOMPARE(d.title, QString("Deep"));
        QVERIFY2(QString::fromStdString(d.text).contains("needle text"), d.text.c_str());
        QVERIFY(QString::fromStdString(d.text).contains("after"));
    }

    void unclosed_list_items_are_closed_not_nested() {
        // "<li>a<li>b" is how old pages write lists; Qt nests each item in the previous one
        // (quadratic again), so the implied </li> is written out: depth stays 2.
        QString h = "<ul>";
        for (int i = 0; i < 20000; ++i) h += "<li>item " + QString::number(i);
        h += "</ul>";
        const CappedHtml c = cap_html_nesting(h);
        QCOMPARE(c.max_depth_seen, 2);
        QCOMPARE(c.dropped_tags, 0);
        const QString text = plain(c.html);
        QVERIFY(text.contains("item 0"));
        QVERIFY(text.contains("item 19999"));
        QCOMPARE(text.count('\n'), 19999);  // one line per item, as with closed items
        // Qt is also quadratic in the items of one list: long lists reach it in lists of 256.
        QCOMPARE(c.html.count("<ul>"), (20000 + 255) / 256);
        QString closed = "<ol start=\"3\">";
        for (int i = 0; i < 1000; ++i) closed += "<li>n" + QString::number(i) + "</li>";
        closed += "</ol>";
        const QString split = cap_html_nesting(closed).html;
        QCOMPARE(split.count("<ol start=\"3\">"), 4);
        QCOMPARE(plain(split), plain(closed));
    }

    void ordinary_pages_are_untouched() {
        const QString page =
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>T</title>"
            "<style>p > b { color: red }</style><script>if (a < b && c > d) document.write('<div>');</script>"
            "</head><body><!-- a <div> in a comment --><h1 class=\"x>y\">Head</h1>"
            "<p>One <b>bold</b> <a href='a>b'>link</a><br>line<img src=x.png/></p>"
            "<ul><li>a</li><li>b<ul><li>c</li></ul></li></ul>"
            "<table><tr><td>1</td><td>2</td></tr></table> 3 &lt; 4</body></html>";
        const CappedHtml c = cap_html_nesting(page);
        QCOMPARE(c.html, page);
        QCOMPARE(c.dropped_tags, 0);
        QVERIFY(c.max_depth_seen <= 6);
        // Implied end tags change the markup, not the text.
        const QString legacy = "<p>first<p>second<ul><li>a<li>b</ul><dl><dt>t<dd>d</dl>"
                               "<table><tr><td>1<td>2<tr><td>3</table><select><option>o1<option>o2</select>";
        QCOMPARE(plain(cap_html_nesting(legacy).html), plain(legacy));
    }

    void tags_past_the_cap_keep_their_text_and_scripts_stay_code() {
        const QString deep = nested(kMaxHtmlNesting + 10, "div", "<script>var x = '<b>';</script>kept text");
        const QString text = plain(cap_html_nesting(deep).html);
        QVERIFY(text.contains("kept text"));
        QVERIFY2(!text.contains("var x"), qPrintable(text));
    }
};

QTEST_MAIN(TestLoadHtmlNesting)
#include "test_load_html_nesting.moc"
