// Issue 41 item 2: the OCR language follows Settings (default: the system locale's, else
// English). Settings > Documents lists "Automatic" (the locale's language when its traineddata is
// installed, else English) and each installed Tesseract language; the choice is stored, comes back
// at the next start, and is what the app's ingest reads a scan with. The languages here are a
// tessdata folder made by the test (TESSDATA_PREFIX; the files are only listed, never loaded): eng
// and fra, so a German locale falls back to English. The ingest check uses a language that is not
// installed, so the error that names it shows the setting reached the OCR, without running Tesseract.
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QGroupBox>
#include <QtTest>

#include "app/services/app_settings.h"
#include "app/services/library_store.h"
#include "tests/support/scanned_pdf.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/dialogs/settings_dialog.h"
#include "ui/main/main_window.h"

using namespace snapdoc;
using namespace snapdoc::ui;

class TestOcrLanguageSetting : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::unique_ptr<services::LibraryStore> store_;

    static QStringList items(const QComboBox& combo) {
        QStringList out;
        for (int i = 0; i < combo.count(); ++i) out << combo.itemData(i).toString() + "=" + combo.itemText(i);
        return out;
    }

    // Opens Settings in `w`, picks `code` in its Documents section and presses OK.
    void choose_language(MainWindow& w, const QString& code) {
        const bool chosen = snapdoc::test::edit_settings(w, [&](QDialog& dialog) {
            auto* combo = dialog.findChild<QComboBox*>("ocrLanguageCombo");
            auto* box = dialog.findChild<QGroupBox*>("documentSettingsGroup");
            if (!combo || !box || !box->isAncestorOf(combo) || combo->findData(code) < 0) return false;
            combo->setCurrentIndex(combo->findData(code));
            return true;
        });
        QVERIFY2(chosen, qPrintable("no OCR language " + code + " in Settings > Documents"));
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(QDir(dir_.path()).mkpath("tessdata"));
        for (const char* code : {"eng", "fra", "osd"}) {
            QFile f(dir_.path() + "/tessdata/" + code + ".traineddata");
            QVERIFY(f.open(QIODevice::WriteOnly));
        }
        qputenv("TESSDATA_PREFIX", (dir_.path() + "/tessdata").toUtf8());
        store_ = std::make_unique<services::LibraryStore>((dir_.path() + "/library.sqlite").toStdString());
    }

    void automatic_is_the_locales_language_else_english_data() {
        QTest::addColumn<QString>("locale");
        QTest::addColumn<QString>("automatic");
        QTest::newRow("French, installed") << "fr_FR.UTF-8" << "French (fra)";
        QTest::newRow("German, not installed") << "de_DE.UTF-8" << "English (eng)";
        QTest::newRow("C locale") << "C" << "English (eng)";
    }

    void automatic_is_the_locales_language_else_english() {
        QFETCH(QString, locale);
        QFETCH(QString, automatic);
        qputenv("LC_ALL", locale.toUtf8());
        SettingsDialog dialog(services::GenerationSettings{});
        dialog.set_documents({});
        auto* combo = dialog.findChild<QComboBox*>("ocrLanguageCombo");
        QVERIFY(combo);
        // Automatic first, then the installed languages; "osd" (script detection) is no language.
        QCOMPARE(items(*combo), QStringList({"=Automatic: " + automatic, "eng=English (eng)", "fra=French (fra)"}));
        QCOMPARE(dialog.documents().ocr_language, std::string());
        qunsetenv("LC_ALL");
    }

    void an_uninstalled_choice_is_kept_and_said() {
        SettingsDialog dialog(services::GenerationSettings{});
        dialog.set_documents({"deu"});
        auto* combo = dialog.findChild<QComboBox*>("ocrLanguageCombo");
        QCOMPARE(combo->currentText(), QString("deu (not installed)"));
        QCOMPARE(dialog.documents().ocr_language, std::string("deu"));
        dialog.set_documents({"fra"});
        QCOMPARE(combo->currentText(), QString("French (fra)"));
    }

    void the_choice_is_stored_and_comes_back() {
        {
            MainWindow w(*store_, std::make_unique<snapdoc::test::RecordingDialogs>());
            QCOMPARE(w.settings().documents.ocr_language, std::string());  // automatic by default
            choose_language(w, "fra");
            QCOMPARE(w.settings().documents.ocr_language, std::string("fra"));
        }
        QCOMPARE(services::load_settings(*store_).documents.ocr_language, std::string("fra"));
        MainWindow again(*store_, std::make_unique<snapdoc::test::RecordingDialogs>());
        QCOMPARE(again.settings().documents.ocr_language, std::string("fra"));
        choose_language(again, "");  // back to automatic
        QCOMPARE(services::load_settings(*store_).documents.ocr_language, std::string());
    }

    void the_ingest_reads_scans_in_the_chosen_language() {
        // A stored language that is not installed: opening a scan names it and its package, so the
        // setting (not the locale's default) is what the OCR was asked for.
        {
            services::AppSettings s = services::load_settings(*store_);
            services::AppSettings baseline = s;
            s.documents.ocr_language = "deu";
            services::save_settings(*store_, s, baseline);
        }
        const QString pdf = dir_.path() + "/scan.pdf";
        {
            QFile f(pdf);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(
                snapdoc::testing::build_scanned_pdf({snapdoc::testing::scan_page({"Scanned words."})})));
        }
        auto dialogs = std::make_unique<snapdoc::test::RecordingDialogs>();
        auto* recorded = dialogs.get();
        MainWindow w(*store_, std::move(dialogs));
        w.open_document(pdf);
        QTRY_VERIFY_WITH_TIMEOUT(!recorded->errors.isEmpty(), 30000);
        QVERIFY2(recorded->errors.first().contains("'deu' is not installed") &&
                     recorded->errors.first().contains("tesseract-ocr-deu"),
                 qPrintable(recorded->errors.join("\n")));
    }
};

QTEST_MAIN(TestOcrLanguageSetting)
#include "test_ocr_language_setting.moc"
