#include "tests/ui/support/demo_window.h"

#include <QFileInfo>
#include <QSignalSpy>
#include <QTest>

#include "app/services/library_store.h"
#include "ui/chat/question_edit.h"
#include "ui/main/chat_controller.h"
#include "ui/main/document_controller.h"
#include "ui/main/model_controller.h"

namespace snapdoc::test {

bool have_demo_model() {
    return QFileInfo::exists(source_file("resources/models/snapdoc-demo.gguf"));
}

std::unique_ptr<ui::MainWindow> demo_window(services::LibraryStore& store, const QString& document,
                                            RecordingDialogs** dialogs) {
    auto d = std::make_unique<RecordingDialogs>();
    if (dialogs) *dialogs = d.get();
    auto w = std::make_unique<ui::MainWindow>(store, std::move(d));
    w->resize(1400, 900);
    w->show();
    w->settings().generation.max_new_tokens = 24;
    w->settings().generation.sampling.temperature = 0;
    QSignalSpy loaded(&w->models(), &ui::ModelController::loaded);
    w->open_model(source_file("resources/models/snapdoc-demo.gguf"), false);
    if (!wait_until([&] { return loaded.count() == 1; })) {
        qWarning("the demo model did not load");
        return nullptr;
    }
    QSignalSpy ready(&w->documents(), &ui::DocumentController::documentReady);
    w->open_document(document);
    if (!wait_until([&] { return ready.count() == 1; })) {
        qWarning("%s was not prefilled", qPrintable(document));
        return nullptr;
    }
    return w;
}

bool ask_and_wait(ui::MainWindow& w, const QString& question) {
    QSignalSpy done(&w.chat(), &ui::ChatController::answerDone);
    auto* edit = child<ui::QuestionEdit>(w, "questionEdit");
    edit->setText(question);
    QTest::keyClick(edit, Qt::Key_Return);
    return wait_until([&] { return done.count() == 1; });
}

}  // namespace snapdoc::test
