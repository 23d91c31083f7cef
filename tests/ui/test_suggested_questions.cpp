// The suggested-questions side file (<name>.questions.tsv next to <name>.<ext>): parsing rules and
// every way it can be bad (missing, not UTF-8, oversized, junk lines) without ever failing.
#include <QtTest>

#include "app/services/suggested_questions.h"

using snapdoc::services::load_suggested_questions;
using snapdoc::services::suggested_questions_path;

class TestSuggestedQuestions : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    QString write_side_file(const QString& doc_name, const QByteArray& bytes) {
        const QString doc = dir_.filePath(doc_name);
        QFile f(suggested_questions_path(doc));
        if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(f.fileName()));
        f.write(bytes);
        return doc;
    }

private slots:
    void side_file_sits_next_to_the_document() {
        QCOMPARE(suggested_questions_path("/a/b/report.final.txt"), QString("/a/b/report.final.questions.tsv"));
        QCOMPARE(suggested_questions_path("/a/notes"), QString("/a/notes.questions.tsv"));
    }

    void reads_questions_and_ignores_answers_comments_and_blanks() {
        const QString doc = write_side_file(
            "demo.txt",
            "# questions for the demo\n"
            "What is the access code for the north gate?\t4821\n"
            "\n"
            "  What is the serial number for the old mill?  \t1007\r\n"
            "What is the access code for the north gate?\t4821\n"  // duplicate
            "Who wrote the report?\n");
        const QStringList q = load_suggested_questions(doc);
        QCOMPARE(q, (QStringList{"What is the access code for the north gate?",
                                 "What is the serial number for the old mill?", "Who wrote the report?"}));
    }

    void keeps_at_most_the_limit() {
        QByteArray bytes;
        for (int i = 0; i < 20; ++i) bytes += "Question " + QByteArray::number(i) + "?\n";
        const QString doc = write_side_file("many.md", bytes);
        QCOMPARE(load_suggested_questions(doc).size(), 8);
        QCOMPARE(load_suggested_questions(doc, 3), (QStringList{"Question 0?", "Question 1?", "Question 2?"}));
    }

    void no_side_file_means_no_suggestions() {
        QVERIFY(load_suggested_questions(dir_.filePath("absent.txt")).isEmpty());
    }

    void bad_side_files_give_nothing_rather_than_garbage() {
        QVERIFY(load_suggested_questions(write_side_file("latin1.txt", "Qu\xe9 pasa?\n")).isEmpty());
        QVERIFY(load_suggested_questions(write_side_file("huge.txt", QByteArray(200 * 1024, 'a'))).isEmpty());
        const QString long_line = write_side_file("long.txt", QByteArray(400, 'x') + "\nShort one?\n");
        QCOMPARE(load_suggested_questions(long_line), QStringList{"Short one?"});
    }
};

QTEST_MAIN(TestSuggestedQuestions)
#include "test_suggested_questions.moc"
