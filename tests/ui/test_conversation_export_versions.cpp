// Issue 23 item 24, in the real main window with the demo model: an export names the system prompt
// each answer was asked with (it showed today's conversation prompt for every answer), labels
// regenerated answers "version k of n" (two bare "## Answer" blocks before) and gives JSON answers
// "version"/"versions" fields and their own "system_prompt".
#include <QAction>
#include <QPushButton>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "app/services/library_store.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/chat/question_edit.h"
#include "ui/main/chat_controller.h"
#include "ui/main/document_controller.h"
#include "ui/main/main_window.h"
#include "ui/main/model_controller.h"
#include "ui/worker/worker_types.h"

using namespace snapdoc;
using namespace snapdoc::ui;
using snapdoc::test::child;
using snapdoc::test::wait_until;

namespace {

// From Qt Test's absolute source folder: __FILE__ is relative under ccache's base_dir, and ctest
// runs the test in the build tree.
QString repo_file(const char* rel) {
    return QDir(QStringLiteral(QT_TESTCASE_SOURCEDIR)).absoluteFilePath(QStringLiteral("../../") + rel);
}

QString read_all(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll());
}

}  // namespace

class TestConversationExportVersions : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::unique_ptr<services::LibraryStore> store_;

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        if (!QFileInfo::exists(repo_file("resources/models/snapdoc-demo.gguf"))) QSKIP("no demo model");
        store_ = std::make_unique<services::LibraryStore>((dir_.path() + "/library.sqlite").toStdString());
    }

    void export_names_each_answers_prompt_and_version() {
        auto d = std::make_unique<snapdoc::test::RecordingDialogs>();
        snapdoc::test::RecordingDialogs* dialogs = d.get();
        MainWindow w(*store_, std::move(d));
        w.resize(1280, 800);
        w.show();
        w.settings().generation.max_new_tokens = 16;
        w.settings().generation.sampling.temperature = 0;
        w.settings().generation.system_prompt = "Default prompt of the settings.";
        QSignalSpy loaded(&w.models(), &ModelController::loaded);
        w.open_model(repo_file("resources/models/snapdoc-demo.gguf"), false);
        QVERIFY(wait_until([&] { return loaded.count() == 1; }));
        const QString doc = dir_.path() + "/demo-report.txt";
        QVERIFY(QFile::copy(repo_file("resources/samples/demo-report.txt"), doc));
        QSignalSpy ready(&w.documents(), &DocumentController::documentReady);
        w.open_document(doc);
        QVERIFY(wait_until([&] { return ready.count() == 1; }));

        QSignalSpy done(&w.chat(), &ChatController::answerDone);
        auto ask = [&](const QString& q) {
            const int before = done.count();
            auto* edit = child<QuestionEdit>(w, "questionEdit");
            edit->setText(q);
            QTest::keyClick(edit, Qt::Key_Return);
            return wait_until([&] { return done.count() == before + 1; });
        };
        QVERIFY(ask("What is the batch number for the green office?"));
        QTest::mouseClick(child<QPushButton>(w, "regenerateButton"), Qt::LeftButton);
        QVERIFY(wait_until([&] { return done.count() == 2; }));
        // The conversation gets its own prompt after the first turn; the second turn is asked with it.
        dialogs->texts << "Answer with the number only.";
        QTest::mouseClick(child<QPushButton>(w, "systemPromptButton"), Qt::LeftButton);
        QVERIFY(ask("What is the alarm code for the south office?"));
        QVERIFY(dialogs->errors.isEmpty());

        QAction* exp = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->text() == "&Export Conversation…") exp = a;
        QVERIFY(exp);
        dialogs->next_file = dir_.path() + "/talk.md";
        dialogs->next_filter = "Markdown (*.md)";
        exp->trigger();
        const QString md = read_all(dir_.path() + "/talk.md");
        QVERIFY2(md.contains("## Answer · version 1 of 2") && md.contains("## Answer · version 2 of 2"),
                 qPrintable(md));
        QCOMPARE(md.count("## Answer\n"), 1);  // the second question has one answer: no version label
        // Not "today's prompt for the whole conversation": the header says it changed, each answer
        // names the one it was asked with where it changed.
        QVERIFY2(!md.contains("- System prompt: “Answer with the number only.”"), qPrintable(md));
        QVERIFY(md.contains("- System prompt: changed during the conversation"));
        const qsizetype first_prompt = md.indexOf("system prompt: “Default prompt of the settings.”");
        const qsizetype second_prompt = md.indexOf("system prompt: “Answer with the number only.”");
        QVERIFY2(first_prompt > md.indexOf("version 1 of 2") && first_prompt < md.indexOf("version 2 of 2"),
                 qPrintable(md));
        QVERIFY2(second_prompt > md.indexOf("alarm code"), qPrintable(md));
        QCOMPARE(md.count("system prompt: "), 2);  // version 2 had the same prompt as version 1

        dialogs->next_file = dir_.path() + "/talk.json";
        dialogs->next_filter = "JSON (*.json)";
        exp->trigger();
        const auto j = nlohmann::json::parse(read_all(dir_.path() + "/talk.json").toStdString());
        const auto& m = j["messages"];
        QCOMPARE(m.size(), std::size_t{5});
        QCOMPARE(m[1]["version"].get<int>(), 1);
        QCOMPARE(m[2]["version"].get<int>(), 2);
        QCOMPARE(m[2]["versions"].get<int>(), 2);
        QCOMPARE(m[4]["version"].get<int>(), 1);
        QCOMPARE(m[4]["versions"].get<int>(), 1);
        QVERIFY(!m[0].contains("version"));
        QCOMPARE(m[1]["system_prompt"].get<std::string>(), std::string("Default prompt of the settings."));
        QCOMPARE(m[4]["system_prompt"].get<std::string>(), std::string("Answer with the number only."));
        QVERIFY(dialogs->errors.isEmpty());
    }
};

QTEST_MAIN(TestConversationExportVersions)
#include "test_conversation_export_versions.moc"
