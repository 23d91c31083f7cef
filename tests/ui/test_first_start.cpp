// First start and restart (issue 37): a fresh data folder opens the bundled demo model and the
// Open model dialog in the models folder; a restart brings back the last model, document and
// conversation, scrolled to its latest answer; a last model that is gone is said in words and the
// bundled one loads instead. Each test has its own library (a temporary data folder), and the
// bundled resources and the models folder are pointed into the checkout and a temporary folder.
#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QListView>
#include <QScrollBar>
#include <QStatusBar>
#include <QtTest>

#include "app/services/app_settings.h"
#include "app/services/library_store.h"
#include "tests/ui/support/demo_window.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/library/library_panel.h"
#include "ui/main/chat_controller.h"
#include "ui/main/document_controller.h"
#include "ui/main/main_window.h"
#include "ui/main/model_controller.h"
#include "ui/models/chat_model.h"
#include "ui/models/conversation_model.h"

using namespace snapdoc;
using namespace snapdoc::ui;
using snapdoc::test::child;
using snapdoc::test::wait_until;

namespace {

QAction* action(QWidget& w, const QString& text) {
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text() == text) return a;
    qFatal("no action %s", qPrintable(text));
}

QString demo_model() {
    return QFileInfo(snapdoc::test::source_file("resources/models/snapdoc-demo.gguf")).canonicalFilePath();
}

QString loaded_path(const MainWindow& w) {
    const auto& info = w.models().info();
    return info ? QFileInfo(info->path).canonicalFilePath() : QString();
}

}  // namespace

class TestFirstStart : public QObject {
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> dir_;  // one data folder per test: each starts fresh
    std::unique_ptr<services::LibraryStore> store_;

    std::unique_ptr<MainWindow> make_window(snapdoc::test::RecordingDialogs** dialogs = nullptr) {
        auto d = std::make_unique<snapdoc::test::RecordingDialogs>();
        if (dialogs) *dialogs = d.get();
        auto w = std::make_unique<MainWindow>(*store_, std::move(d));
        w->set_models_dir((dir_->path() + "/models").toStdString());
        w->resize(1200, 800);
        w->show();
        return w;
    }

    QString write_document() {
        const QString path = dir_->path() + "/report.txt";
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
        f.write(("Quarterly report.\n" + snapdoc::test::sample_text(200)).toUtf8());
        return path;
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        if (!snapdoc::test::have_demo_model()) QSKIP("no demo model in this checkout");
        // The test binary lives in build/tests/ui, where <exe>/../share/snapdoc does not exist.
        qputenv("SNAPDOC_RESOURCES_DIR", snapdoc::test::source_file("resources").toUtf8());
    }

    void init() {
        dir_ = std::make_unique<QTemporaryDir>();
        QVERIFY(dir_->isValid());
        store_ = std::make_unique<services::LibraryStore>((dir_->path() + "/library.sqlite").toStdString());
    }

    void cleanup() {
        store_.reset();
        dir_.reset();
    }

    // A fresh data folder: the bundled model loads (not "No model"), and the chat's hint names the
    // one thing still missing, the document.
    void fresh_start_loads_the_bundled_model() {
        snapdoc::test::RecordingDialogs* dialogs = nullptr;
        auto w = make_window(&dialogs);
        QSignalSpy loaded(&w->models(), &ModelController::loaded);
        w->start();
        QVERIFY(wait_until([&] { return loaded.count() == 1; }));
        QCOMPARE(loaded_path(*w), demo_model());
        QVERIFY(w->library_panel()->model_title() != QLatin1String("No model"));
        QVERIFY(dialogs->errors.isEmpty());
        QCOMPARE(w->documents().current_id(), -1);
        const QString hint = child<QLabel>(*w, "chatStatus")->text();
        QVERIFY2(!hint.contains("Open a model"), qPrintable(hint));
        QVERIFY2(hint.contains("document"), qPrintable(hint));
    }

    // Open model… starts in the models folder (where Get models downloads go), also once the
    // bundled model (in the install's share folder) is the last one loaded.
    void open_model_dialog_starts_in_the_models_folder() {
        snapdoc::test::RecordingDialogs* dialogs = nullptr;
        auto w = make_window(&dialogs);
        const QString models = dir_->path() + "/models";
        QAction* open = action(*w, "Open &Model File (.gguf)…");
        open->trigger();
        QCOMPARE(dialogs->last_model_dir, models);
        QVERIFY2(QFileInfo(models).isDir(), "the dialog needs the folder to exist to open there");

        QSignalSpy loaded(&w->models(), &ModelController::loaded);
        w->start();
        QVERIFY(wait_until([&] { return loaded.count() == 1; }));
        open->trigger();
        QCOMPARE(dialogs->last_model_dir, models);
    }

    // A restart with nothing on the command line: the last model, the document and the
    // conversation on screen at the close (not the newest one), scrolled down to its latest answer.
    void restart_restores_model_document_and_conversation() {
        const QString doc = write_document();
        int64_t doc_id = -1, chosen = -1, newer = -1;
        {
            auto w = make_window();
            QSignalSpy loaded(&w->models(), &ModelController::loaded);
            QSignalSpy ready(&w->documents(), &DocumentController::documentReady);
            w->start(QString(), doc);
            QVERIFY(wait_until([&] { return loaded.count() == 1 && ready.count() == 1; }));
            doc_id = w->documents().current_id();
            QVERIFY(doc_id >= 0);
            // Two conversations: the older one, long enough to scroll, is the one on screen.
            chosen = store_->create_conversation(doc_id, "Chosen", "demo");
            for (int turn = 0; turn < 6; ++turn) {
                store_->add_message({0, chosen, "user", "Question " + std::to_string(turn) + "?"});
                store_->add_message(
                    {0, chosen, "assistant",
                     "Answer " + std::to_string(turn) + ": " + snapdoc::test::sample_text(80).toStdString()});
            }
            newer = store_->create_conversation(doc_id, "Newer", "demo");
            store_->add_message({0, newer, "user", "A newer question?"});
            w->documents().show(doc_id);  // reads the conversation list again
            QCOMPARE(w->chat().conversation_id(), newer);
            w->chat().choose_conversation(w->conversation_model().row_of(chosen));
            QCOMPARE(w->chat().conversation_id(), chosen);
            w->close();
        }

        auto w = make_window();
        QSignalSpy loaded(&w->models(), &ModelController::loaded);
        QSignalSpy ready(&w->documents(), &DocumentController::documentReady);
        w->start();
        QVERIFY(wait_until([&] { return loaded.count() == 1 && ready.count() == 1; }));
        QCOMPARE(loaded_path(*w), demo_model());
        QCOMPARE(w->documents().current_id(), doc_id);
        QCOMPARE(w->chat().conversation_id(), chosen);
        const QString picked = child<QComboBox>(*w, "conversationPicker")->currentText();
        QVERIFY2(picked.startsWith("Chosen"), qPrintable(picked));
        QCOMPARE(w->chat_model().rowCount(), 12);
        auto* bar = child<QListView>(*w, "chatView")->verticalScrollBar();
        QVERIFY2(wait_until([&] { return bar->maximum() > 0 && bar->value() == bar->maximum(); }, 5000),
                 qPrintable(QString("scrolled to %1 of %2").arg(bar->value()).arg(bar->maximum())));
        QVERIFY(w->chat().can_ask());
    }

    // The last model's file is gone: a sentence says so, the bundled model loads, nothing crashes
    // and no error box waits for a click.
    void missing_last_model_falls_back_to_the_bundled_one() {
        const QString gone = dir_->path() + "/gone/my-model.gguf";
        {
            services::AppSettings settings = services::load_settings(*store_);
            services::AppSettings baseline = settings;
            settings.recent_models = {gone.toStdString()};
            services::save_settings(*store_, settings, baseline);
        }
        snapdoc::test::RecordingDialogs* dialogs = nullptr;
        auto w = make_window(&dialogs);
        QSignalSpy loaded(&w->models(), &ModelController::loaded);
        w->start();
        const QString note = w->statusBar()->currentMessage();
        QVERIFY2(note.contains(QDir::toNativeSeparators(gone)) && note.contains("no longer there") &&
                     note.contains("bundled demo model"),
                 qPrintable(note));
        QVERIFY(wait_until([&] { return loaded.count() == 1; }));
        QCOMPARE(loaded_path(*w), demo_model());
        QVERIFY2(dialogs->errors.isEmpty(), qPrintable(dialogs->errors.join('\n')));
    }
};

QTEST_MAIN(TestFirstStart)
#include "test_first_start.moc"
