// Issue 23 item 23, in the real main window: the conversation's system prompt is a visible button
// that says it edits (it was a flat, label-like one), and the settings dialog is titled "Settings"
// with the model-loading choices (threads, device, template) and the K/V cache in their own titled
// sections (they sat in a dialog titled "Generation settings").
#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QGroupBox>
#include <QPushButton>
#include <QtTest>

#include "app/services/library_store.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/main/main_window.h"

using namespace snapdoc;
using namespace snapdoc::ui;
using snapdoc::test::child;

namespace {

// The titled group box `w` sits in, "" when none.
QString section_of(QWidget* w) {
    for (QWidget* p = w ? w->parentWidget() : nullptr; p; p = p->parentWidget())
        if (auto* box = qobject_cast<QGroupBox*>(p)) return box->objectName();
    return {};
}

}  // namespace

class TestSettingsSections : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::unique_ptr<services::LibraryStore> store_;

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        store_ = std::make_unique<services::LibraryStore>((dir_.path() + "/library.sqlite").toStdString());
    }

    void system_prompt_is_a_visible_control() {
        MainWindow w(*store_, std::make_unique<snapdoc::test::RecordingDialogs>());
        w.resize(1024, 700);
        w.show();
        auto* button = child<QPushButton>(w, "systemPromptButton");
        QVERIFY(!button->isFlat());
        QVERIFY2(button->text().contains("Edit…"), qPrintable(button->text()));
        QVERIFY(button->text().startsWith("System prompt: "));
    }

    void settings_dialog_sections() {
        MainWindow w(*store_, std::make_unique<snapdoc::test::RecordingDialogs>());
        w.show();
        QAction* open = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->text() == "&Settings…") open = a;
        QVERIFY(open);
        QString title;
        QMap<QString, QString> sections, titles;
        QTimer::singleShot(0, this, [&] {
            auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
            if (!dialog) return;
            title = dialog->windowTitle();
            for (const char* name : {"temperatureSpin", "maxNewTokensSpin", "defaultSystemPromptEdit",
                                     "deviceCombo", "kvCacheCheck", "kvCacheCapSpin", "clearKvCacheButton"})
                sections[name] = section_of(dialog->findChild<QWidget*>(name));
            for (QGroupBox* box : dialog->findChildren<QGroupBox*>())
                titles[box->objectName()] = box->title();
            dialog->reject();
        });
        open->trigger();
        QCOMPARE(title, QString("Settings"));
        QCOMPARE(sections["temperatureSpin"], QString("answerSettingsGroup"));
        QCOMPARE(sections["maxNewTokensSpin"], QString("answerSettingsGroup"));
        QCOMPARE(sections["defaultSystemPromptEdit"], QString("answerSettingsGroup"));
        QCOMPARE(sections["deviceCombo"], QString("modelLoadSettingsGroup"));
        QCOMPARE(sections["kvCacheCheck"], QString("kvCacheSettingsGroup"));
        QCOMPARE(sections["kvCacheCapSpin"], QString("kvCacheSettingsGroup"));
        QCOMPARE(sections["clearKvCacheButton"], QString("kvCacheSettingsGroup"));
        QVERIFY(titles["modelLoadSettingsGroup"].startsWith("Model loading"));
        QCOMPARE(titles["kvCacheSettingsGroup"], QString("K/V cache on disk"));
    }
};

QTEST_MAIN(TestSettingsSections)
#include "test_settings_sections.moc"
