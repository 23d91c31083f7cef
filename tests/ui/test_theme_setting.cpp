// Issue 37 (a dark theme that follows the system, and a setting): Settings > Appearance chooses
// System, Light or Dark; the choice applies at once, is stored, and comes back at the next start.
// The coloured status lines that were fixed colours in style sheets follow the theme.
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QGroupBox>
#include <QLabel>
#include <QtTest>

#include "app/services/app_settings.h"
#include "app/services/library_store.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/main/main_window.h"
#include "ui/widgets/app_theme.h"
#include "ui/widgets/theme_colors.h"

using namespace snapdoc;
using namespace snapdoc::ui;

class TestThemeSetting : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::unique_ptr<services::LibraryStore> store_;

    // Opens Settings in `w`, picks `theme` in its Appearance section and presses OK.
    void choose_theme(MainWindow& w, const QString& theme) {
        const bool chosen = snapdoc::test::edit_settings(w, [&](QDialog& dialog) {
            auto* combo = dialog.findChild<QComboBox*>("themeCombo");
            auto* box = dialog.findChild<QGroupBox*>("appearanceSettingsGroup");
            if (!combo || !box || !box->isAncestorOf(combo)) return false;
            combo->setCurrentIndex(combo->findData(theme));
            return true;
        });
        QVERIFY2(chosen, "no Theme choice in Settings > Appearance");
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        store_ = std::make_unique<services::LibraryStore>((dir_.path() + "/library.sqlite").toStdString());
        QVERIFY(!is_dark(QApplication::palette()));  // offscreen: the platform's palette is light
    }

    void names_round_trip_and_unknown_is_system() {
        for (Theme t : {Theme::System, Theme::Light, Theme::Dark}) QCOMPARE(parse_theme(theme_name(t)), t);
        QCOMPARE(parse_theme("solarized"), Theme::System);
        QVERIFY(is_dark(dark_theme_palette()));
        QVERIFY(!is_dark(light_theme_palette()));
    }

    void dark_applies_at_once_is_stored_and_comes_back() {
        {
            MainWindow w(*store_, std::make_unique<snapdoc::test::RecordingDialogs>());
            w.show();
            choose_theme(w, "dark");
            QVERIFY(is_dark(QApplication::palette()));
            QCoreApplication::processEvents();
            QVERIFY(is_dark(w.palette()));
            QCOMPARE(w.settings().appearance.theme, std::string("dark"));
        }
        QCOMPARE(services::load_settings(*store_).appearance.theme, std::string("dark"));
        apply_theme(Theme::System);  // as at a fresh start
        QVERIFY(!is_dark(QApplication::palette()));
        MainWindow again(*store_, std::make_unique<snapdoc::test::RecordingDialogs>());
        QVERIFY(is_dark(QApplication::palette()));  // restored before the window is shown
        again.show();
        choose_theme(again, "system");
        QVERIFY(!is_dark(QApplication::palette()));  // the platform's palette again
        QCOMPARE(services::load_settings(*store_).appearance.theme, std::string("system"));
    }

    void a_status_colour_follows_the_theme() {
        QCoreApplication::processEvents();  // the palette changes of the test before
        QLabel error("The model could not be loaded");
        const QColor red(0xb0, 0x20, 0x20);
        follow_palette_color(&error, red);
        error.show();
        QCOMPARE(error.palette().color(QPalette::WindowText), red);
        apply_theme(Theme::Dark);
        QCoreApplication::processEvents();
        const QColor on_dark = error.palette().color(QPalette::WindowText);
        QVERIFY2(on_dark.lightness() > 128, qPrintable(on_dark.name()));  // readable on the dark window
        QVERIFY(is_dark(error.palette()));  // the rest of its palette still follows the application's
        apply_theme(Theme::System);
        QCoreApplication::processEvents();
        QCOMPARE(error.palette().color(QPalette::WindowText), red);
    }

    void garbage_in_the_stored_theme_is_system() {
        store_->set_setting("appearance", R"({"theme": 42})");
        QCOMPARE(services::load_settings(*store_).appearance.theme, std::string("system"));
        store_->set_setting("appearance", R"({"theme": "neon"})");
        QCOMPARE(services::load_settings(*store_).appearance.theme, std::string("system"));
    }
};

QTEST_MAIN(TestThemeSetting)
#include "test_theme_setting.moc"
