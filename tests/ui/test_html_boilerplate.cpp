// Issue 23 item 8, in the app: HTML extraction of a Sphinx-style page keeps the text and leaves
// out the "¶" permalink anchors, the navigation (the related bar, breadcrumbs, sidebar) and the
// page footer, and sets headings apart with blank lines; a <header> inside <article> is content
// and stays. The app reads pages through the Qt-free HTML5 path of the CLI and the server (gumbo,
// app/documents/html_page.h; its own cases are in tests/unit/test_documents_html_parsing.cpp), so
// headings are written the Markdown way there too. A page nested 100,000 levels deep imports at
// once with its text (issue 14).
#include <QElapsedTimer>
#include <QtTest>

#include "app/services/document_ingest.h"

using namespace snapdoc::services;

namespace {

const char* kSphinxPage = R"(<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Install &#8212; Widget 2.1 documentation</title></head>
<body>
<div class="related" role="navigation" aria-label="related navigation">
  <h3>Navigation</h3><ul><li><a href="genindex.html">index</a></li><li><a href="index.html">Widget 2.1</a> &#187;</li></ul>
</div>
<div role="navigation" aria-label="breadcrumbs navigation"><ul class="wy-breadcrumbs"><li>Docs</li><li>Install</li></ul></div>
<div class="document"><div class="body" role="main">
<section id="install"><h1>Install<a class="headerlink" href="#install" title="Permalink to this heading">¶</a></h1>
<p>Run the installer with the default options.</p>
<section id="upgrade"><h2>Upgrade<a class="headerlink" href="#upgrade" title="Permalink to this heading">&#182;</a></h2>
<p>Upgrades keep the settings.</p></section></section>
<article><header><p>Article byline stays.</p></header><p>Article body.</p></article>
</div></div>
<div class="sphinxsidebar" role="navigation" aria-label="main navigation"><h3>Quick search</h3></div>
<nav><a href="next.html">Next page</a></nav>
<footer><p>&#169; Copyright 2024, Widget authors. Built with Sphinx.</p></footer>
</body></html>
)";

}  // namespace

class TestHtmlBoilerplate : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private slots:
    void sphinx_page_text_only() {
        const QString path = dir_.path() + "/install.html";
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(kSphinxPage);
        }
        const IngestedDocument d = ingest_document(path);
        const QString text = QString::fromStdString(d.text);
        QVERIFY2(!text.contains(QChar(0x00B6)), qPrintable(text));  // no "¶"
        for (const char* gone :
             {"Navigation", "genindex", "index", "Docs", "Quick search", "Next page", "Copyright"})
            QVERIFY2(!text.contains(QLatin1String(gone)), qPrintable(QString(gone) + " in:\n" + text));
        for (const char* kept : {"Install", "Run the installer with the default options.", "Upgrade",
                                 "Upgrades keep the settings.", "Article byline stays.", "Article body."})
            QVERIFY2(text.contains(QLatin1String(kept)),
                     qPrintable(QString(kept) + " missing from:\n" + text));
        // Headings set apart: a blank line before and after each, with their Markdown level.
        QVERIFY2(text.contains("\n\n## Upgrade\n\n"), qPrintable(text));
        QVERIFY2(text.startsWith("# Install\n\nRun the installer"), qPrintable(text));
        QCOMPARE(d.title, QString("Install — Widget 2.1 documentation"));
    }

    void a_deeply_nested_file_imports_with_its_text() {
        const QString path = dir_.path() + "/deep.html";
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("<html><head><title>Deep</title></head><body>" + QByteArray("<span>").repeated(100000) +
                    "needle text" + QByteArray("</span>").repeated(100000) + "<p>after</p></body></html>");
        }
        QElapsedTimer t;
        t.start();
        const IngestedDocument d = ingest_document(path);
        // Hang guard only (unbounded, Qt's parser took minutes and gumbo 64 s; bounded it is well
        // under a second).
        QVERIFY2(t.elapsed() < 30000, qPrintable(QString::number(t.elapsed())));
        QCOMPARE(d.title, QString("Deep"));
        QCOMPARE(QString::fromStdString(d.text), QString("needle text\n\nafter\n"));
    }
};

QTEST_GUILESS_MAIN(TestHtmlBoilerplate)
#include "test_html_boilerplate.moc"
