// The app end to end on every modelzoo GGUF (Llama 3.1-shaped K-quants, Qwen2.5, Qwen3, Phi-3.5,
// SentencePiece llama in Q4_0/Q4_K_M/Q8_0): the real main window opens the model (its line shows
// the type mix), prefills a document and streams an answer through the question box. Random
// weights answer junk; what counts is that each family loads, chats and stops.
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QtTest>

#include "app/services/library_store.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/chat/question_edit.h"
#include "ui/main/chat_controller.h"
#include "ui/main/document_controller.h"
#include "ui/main/main_window.h"
#include "ui/main/model_controller.h"

using namespace snapdoc;
using namespace snapdoc::ui;
using snapdoc::test::wait_until;

class TestModelZooApp : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void chat_with_every_file_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("mix");  // the leading type of the model line's mix
        QTest::newRow("llama31-Q4_K_M") << "llama31-tiny/llama31-tiny-Q4_K_M.gguf"
                                        << "Q6_K";
        QTest::newRow("llama31-Q8_0") << "llama31-tiny/llama31-tiny-Q8_0.gguf"
                                      << "Q8_0";
        QTest::newRow("qwen25-F16") << "qwen25-tiny/qwen25-tiny-F16.gguf"
                                    << "F16";
        QTest::newRow("qwen3-F16") << "qwen3-tiny/qwen3-tiny-F16.gguf"
                                   << "F16";
        QTest::newRow("phi35-F16") << "phi35-tiny/phi35-tiny-F16.gguf"
                                   << "F16";
        QTest::newRow("spm-Q4_0") << "spm-llama-tiny/spm-llama-tiny-Q4_0.gguf"
                                  << "Q6_K";
        QTest::newRow("spm-Q4_K_M") << "spm-llama-tiny/spm-llama-tiny-Q4_K_M.gguf"
                                    << "Q6_K";
        QTest::newRow("spm-Q8_0") << "spm-llama-tiny/spm-llama-tiny-Q8_0.gguf"
                                  << "Q8_0";
    }
    void chat_with_every_file() {
        QFETCH(QString, file);
        QFETCH(QString, mix);
        const QString path = test::fixtures_dir() + "/modelzoo/" + file;
        if (!QFileInfo::exists(path)) QSKIP(qPrintable("fixture " + path + " is absent; skipping"));
        services::LibraryStore store(
            (dir_.path() + "/" + QFileInfo(file).baseName() + ".sqlite").toStdString());
        auto dialogs = std::make_unique<test::RecordingDialogs>();
        test::RecordingDialogs* seen = dialogs.get();
        MainWindow w(store, std::move(dialogs));
        w.settings().generation.max_new_tokens = 8;
        w.show();

        QSignalSpy loaded(&w.models(), &ModelController::loaded);
        w.open_model(path, /*confirm=*/false);
        QVERIFY(wait_until([&] { return loaded.count() == 1; }));
        QVERIFY2(seen->errors.isEmpty(), qPrintable(seen->errors.join("; ")));
        const QString details = w.findChild<QLabel*>("modelDetails")->text();
        QVERIFY2(details.contains(" · " + mix + QString::fromUtf8("\xC3\x97")), qPrintable(details));

        const QString doc = dir_.path() + "/doc.txt";
        QFile f(doc);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("Ada keeps the lighthouse on the north island.\nThe dog is called Pip.\n");
        f.close();
        QSignalSpy ready(&w.documents(), &DocumentController::documentReady);
        w.open_document(doc);
        QVERIFY(wait_until([&] { return ready.count() == 1; }));

        QSignalSpy done(&w.chat(), &ChatController::answerDone);
        w.findChild<snapdoc::ui::QuestionEdit*>("questionEdit")->setText("Who keeps the lighthouse?");
        QTest::mouseClick(w.findChild<QPushButton*>("askButton"), Qt::LeftButton);
        QVERIFY(wait_until([&] { return done.count() == 1; }));
        const auto stats = done.last().at(0).value<AnswerStats>();
        QVERIFY2(stats.stop_reason == "eos" || stats.stop_reason == "limit", qPrintable(stats.stop_reason));
        QVERIFY(stats.generated_tokens <= 8);
        if (stats.stop_reason == "limit") QCOMPARE(stats.generated_tokens, 8);
        QVERIFY(stats.prompt_tokens > stats.question_tokens && stats.question_tokens > 0);
        QVERIFY2(seen->errors.isEmpty(), qPrintable(seen->errors.join("; ")));
    }
};

QTEST_MAIN(TestModelZooApp)
#include "test_modelzoo_app.moc"
