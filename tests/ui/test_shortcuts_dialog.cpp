// Issue 37 (missing beside LM Studio, Jan and GPT4All): Help > Keyboard Shortcuts lists every key
// the main window answers. Driven through the real window's Help menu; the rows come from its own
// menu bar, so every menu action with a shortcut must be listed and none invented.
#include <QMenuBar>
#include <QTableWidget>
#include <QtTest>

#include "app/services/library_store.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/dialogs/shortcuts_dialog.h"
#include "ui/main/main_window.h"

using namespace snapdoc;
using namespace snapdoc::ui;

namespace {

QAction* find_action(const QMenu& menu, const QString& text) {
    for (QAction* a : menu.actions()) {
        if (a->text().remove('&') == text) return a;
        if (a->menu())
            if (QAction* inner = find_action(*a->menu(), text)) return inner;
    }
    return nullptr;
}

QAction* menu_action(const QMenuBar& bar, const QString& text) {
    for (QAction* top : bar.actions())
        if (top->menu())
            if (QAction* a = find_action(*top->menu(), text)) return a;
    return nullptr;
}

int shortcut_count(const QMenu& menu) {
    int n = 0;
    for (const QAction* a : menu.actions()) {
        if (a->menu()) n += shortcut_count(*a->menu());
        else if (!a->isSeparator()) n += static_cast<int>(a->shortcuts().size());
    }
    return n;
}

}  // namespace

class TestShortcutsDialog : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::unique_ptr<services::LibraryStore> store_;

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        store_ = std::make_unique<services::LibraryStore>((dir_.path() + "/library.sqlite").toStdString());
    }

    void help_lists_every_shortcut() {
        MainWindow w(*store_, std::make_unique<snapdoc::test::RecordingDialogs>());
        w.show();
        QAction* open = menu_action(*w.menuBar(), "Keyboard Shortcuts");
        QVERIFY2(open, "no Help > Keyboard Shortcuts");
        QCOMPARE(open->shortcut(), QKeySequence("Ctrl+/"));

        // The dialog, opened from the menu (modal: looked at from inside its event loop).
        QStringList keys, does;
        int rows = -1;
        QTimer::singleShot(0, this, [&] {
            auto* dialog = qobject_cast<ShortcutsDialog*>(QApplication::activeModalWidget());
            if (!dialog) return;
            auto* table = dialog->findChild<QTableWidget*>("shortcutsTable");
            rows = table->rowCount();
            for (int i = 0; i < rows; ++i) {
                keys << table->item(i, 0)->text();
                does << table->item(i, 1)->text();
            }
            dialog->reject();
        });
        open->trigger();
        QVERIFY2(rows > 0, "the dialog did not open modally with its table");

        auto has = [&](const QString& key, const QString& what) {
            for (int i = 0; i < rows; ++i)
                if (keys[i] == QKeySequence(key).toString(QKeySequence::NativeText) && does[i] == what) return true;
            return false;
        };
        QVERIFY2(has("Ctrl+O", "Open Document"), qPrintable(does.join(", ")));
        QVERIFY2(has("Ctrl+Shift+M", "Get Models (Hugging Face)"), qPrintable(does.join(", ")));
        QVERIFY2(has("Ctrl+Return", "Ask"), qPrintable(does.join(", ")));
        QVERIFY2(has("Esc", "Stop"), qPrintable(does.join(", ")));
        QVERIFY2(has("Ctrl+/", "Keyboard Shortcuts"), qPrintable(does.join(", ")));
        QVERIFY2(has("Shift+Return", "New line in the question"), qPrintable(does.join(", ")));

        // Exactly the menu bar's shortcuts, plus the two keys of the question box.
        int in_menus = 0;
        for (const QAction* top : w.menuBar()->actions())
            if (top->menu()) in_menus += shortcut_count(*top->menu());
        QCOMPARE(rows, in_menus + 2);
        QCOMPARE(static_cast<int>(shortcut_rows(*w.menuBar()).size()), rows);
    }
};

QTEST_MAIN(TestShortcutsDialog)
#include "test_shortcuts_dialog.moc"
