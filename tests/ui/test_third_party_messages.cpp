// Issue 23 item 30: Qt's and Poppler's own messages go to the app's log at debug level with one
// summary line, not one stderr line per bad token of a damaged PDF or per font without OpenType
// tables. The damaged PDF is written here: a valid file whose page draws a hex string with
// characters that are not hex digits, which Poppler reports once per character as it extracts.
#include <QtTest>

#include "app/services/document_ingest.h"
#include "app/services/third_party_messages.h"
#include "tests/ui/support/captured_log.h"

using namespace snapdoc::services;
using snapdoc::test::CapturedLog;

namespace {

// A one-page PDF with a correct cross-reference table; `content` is the page's content stream.
QByteArray pdf_with_content(const QByteArray& content) {
    const QList<QByteArray> objects{
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        "<< /Length " + QByteArray::number(content.size()) + " >>\nstream\n" + content + "\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    };
    QByteArray pdf = "%PDF-1.4\n";
    QList<qsizetype> offsets;
    for (int i = 0; i < objects.size(); ++i) {
        offsets << pdf.size();
        pdf += QByteArray::number(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
    }
    const qsizetype xref = pdf.size();
    pdf += "xref\n0 " + QByteArray::number(objects.size() + 1) + "\n0000000000 65535 f \n";
    for (qsizetype o : offsets) pdf += QByteArray::number(o).rightJustified(10, '0') + " 00000 n \n";
    pdf += "trailer\n<< /Size " + QByteArray::number(objects.size() + 1) + " /Root 1 0 R >>\nstartxref\n" +
           QByteArray::number(xref) + "\n%%EOF\n";
    return pdf;
}

}  // namespace

class TestThirdPartyMessages : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private slots:
    void damaged_pdf_logs_poppler_lines_at_debug_with_one_summary() {
        const QString path = dir_.path() + "/damaged.pdf";
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(
                pdf_with_content("BT /F1 12 Tf 72 720 Td (Readable words survive) Tj "
                                 "<48zz65yy6Cqq6C> Tj ET"));
        }
        const CapturedLog log;
        const IngestedDocument d = ingest_document(path);
        QVERIFY2(QString::fromStdString(d.text).contains("Readable words survive"), d.text.c_str());

        const QStringList debug = log.lines_starting("debug|poppler: ");
        QVERIFY2(debug.size() >= 3, qPrintable(log.lines().join('\n')));
        QVERIFY2(debug.filter("Illegal character").size() >= 3, qPrintable(debug.join('\n')));
        // One summary line the user sees (warn), naming the file and the count; nothing else above debug.
        const QStringList above_debug =
            log.lines().filter(QRegularExpression("^(info|warning|error|critical)\\|"));
        QCOMPARE(above_debug.size(), 1);
        QVERIFY2(above_debug[0].startsWith("warning|" + path), qPrintable(above_debug[0]));
        QVERIFY2(above_debug[0].contains(QString("reported %1 problems").arg(debug.size())),
                 qPrintable(above_debug[0]));
    }

    void clean_pdf_writes_no_summary() {
        const QString path = dir_.path() + "/clean.pdf";
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(pdf_with_content("BT /F1 12 Tf 72 720 Td (Nothing wrong here) Tj ET"));
        }
        const CapturedLog log;
        ingest_document(path);
        QCOMPARE(log.lines().filter(QRegularExpression("^(info|warning|error|critical)\\|")).size(), 0);
    }

    void qt_font_noise_goes_to_debug_with_one_summary() {
        const CapturedLog log;
        const QtMessageHandler previous = route_qt_messages_to_log();
        for (int i = 0; i < 5; ++i) qWarning("OpenType support missing for \"Some Font\", script %d", 11 + i);
        qWarning("a real warning");
        qInstallMessageHandler(previous);

        QCOMPARE(log.lines_starting("debug|qt: OpenType support missing for").size(), 5);
        const QStringList info = log.lines_starting("info|qt: ");
        QCOMPARE(info.size(), 1);
        QVERIFY2(info[0].contains("debug level"), qPrintable(info[0]));
        // Other Qt warnings stay warnings.
        QCOMPARE(log.lines_starting("warning|qt: ").size(), 1);
        QVERIFY(log.lines_starting("warning|qt: a real warning").size() == 1);
    }
};

QTEST_GUILESS_MAIN(TestThirdPartyMessages)
#include "test_third_party_messages.moc"
