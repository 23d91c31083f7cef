#include "tests/ui/support/ui_test_support.h"

#include <QAction>
#include <QApplication>
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QThread>
#include <QTimer>

namespace snapdoc::test {

QString fixtures_dir() {
    const QString env = qEnvironmentVariable("SNAPDOC_FIXTURES_DIR");
    return env.isEmpty() ? QString(SNAPDOC_FIXTURES_DIR) : env;
}

QString source_file(const QString& relative) {
    return QDir(QStringLiteral(SNAPDOC_SOURCE_DIR)).absoluteFilePath(relative);
}

QString tiny_model_path() {
    const QString p = fixtures_dir() + "/stories260K/hf-f32";
    return QFileInfo::exists(p + "/config.json") ? QDir(p).absolutePath() : QString();
}

bool wait_until(const std::function<bool()>& done, int timeout_ms) {
    QDeadlineTimer deadline(timeout_ms);
    while (!done()) {
        if (deadline.hasExpired()) return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(2);
    }
    return true;
}

QString sample_text(int words) {
    static const char* vocab[] = {"the",  "little", "dog",  "ran",  "to",     "a",   "big",
                                  "tree", "and",    "saw",  "bird", "she",    "was", "happy",
                                  "sun",  "day",    "Lily", "Tom",  "played", "park"};
    QString out;
    uint32_t x = 12345;
    for (int i = 0; i < words; ++i) {
        x = x * 1103515245u + 12345u;
        out += vocab[(x >> 16) % 20];
        out += (i % 12 == 11) ? ".\n" : " ";
    }
    return out;
}

bool edit_settings(QWidget& window, const std::function<bool(QDialog&)>& edit) {
    QAction* open = nullptr;
    for (QAction* a : window.findChildren<QAction*>())
        if (a->text() == "&Settings…") open = a;
    if (!open) return false;
    bool accepted = false;
    QTimer::singleShot(0, &window, [&] {
        auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
        if (!dialog) return;
        accepted = edit(*dialog);
        accepted ? dialog->accept() : dialog->reject();
    });
    open->trigger();
    return accepted;
}

}  // namespace snapdoc::test
