// The Get models window, driven by object name offscreen against the in-process local hub
// (tests/support/local_hub.h on 127.0.0.1): the catalogue with fit badges for fixed machine
// numbers and the recommended pick preselected; the first-run notice that opens it; a listed
// repository's GGUF choices; a download's progress, pause, resume and cancel (never a partial
// file under a final name); "Use this model" ending with the model loaded and a question
// answered (a modelzoo-shaped split set served by the hub, skipped when the fixtures are absent);
// Delete; and Enter in the repository field listing files without starting a download.
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>
#include <QTabWidget>
#include <QTableWidget>
#include <QMenu>
#include <QtTest>
#include <filesystem>
#include <fstream>

#include "app/hub/download.h"
#include "app/services/library_store.h"
#include "tests/support/gguf_split_writer.h"
#include "tests/support/local_hub.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/chat/question_edit.h"
#include "ui/hub/catalogue_table_model.h"
#include "ui/hub/download_row.h"
#include "ui/hub/get_models_window.h"
#include "ui/hub/local_models_list.h"
#include "ui/hub/repo_browser.h"
#include "ui/library/library_panel.h"
#include "ui/main/chat_controller.h"
#include "ui/main/document_controller.h"
#include "ui/main/main_window.h"
#include "ui/main/model_controller.h"

using namespace snapdoc;
using namespace snapdoc::ui;
using snapdoc::test::wait_until;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

// Any file under `dir` whose name says it is unfinished, or a .gguf (what a model folder shows).
QStringList files_under(const fs::path& dir) {
    QStringList out;
    std::error_code ec;
    if (!fs::exists(dir, ec)) return out;
    for (const auto& e : fs::recursive_directory_iterator(dir, ec))
        if (e.is_regular_file()) out << QString::fromStdString(fs::relative(e.path(), dir).string());
    out.sort();
    return out;
}

int catalogue_row(const CatalogueTableModel& m, const QString& id, const QString& quant) {
    for (int r = 0; r < m.rowCount(); ++r) {
        const QModelIndex i = m.index(r, 0);
        if (i.data(CatalogueTableModel::ModelIdRole).toString() == id &&
            i.data(CatalogueTableModel::QuantRole).toString() == quant)
            return r;
    }
    return -1;
}

QString fit_text(const CatalogueTableModel& m, int row) {
    return m.index(row, CatalogueTableModel::Fit).data().toString();
}

hub::DownloadOptions quick_options() {
    hub::DownloadOptions o;
    o.backoff_initial = std::chrono::milliseconds(50);
    o.give_up_after = std::chrono::milliseconds(5000);
    o.stall_timeout = std::chrono::milliseconds(3000);
    o.progress_interval = std::chrono::milliseconds(20);
    return o;
}

}  // namespace

class TestGetModels : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    GetModelsOptions options(const testing::LocalHub& hub, const QString& models) {
        GetModelsOptions o;
        o.endpoint.base_url = hub.endpoint();
        o.models_dir = models.toStdString();
        o.download = quick_options();
        o.machine = hub::MachineMemory{64 * kGiB, 0};
        return o;
    }

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void catalogue_badges_and_recommended_pick() {
        testing::LocalHub hub;
        test::RecordingDialogs dialogs;
        GetModelsWindow w(options(hub, dir_.path() + "/m1"), dialogs);
        QSignalSpy fitted(&w, &GetModelsWindow::fitUpdated);
        w.show();
        QVERIFY(wait_until([&] { return fitted.count() >= 1; }));
        const CatalogueTableModel& m = *w.catalogue_model();
        QCOMPARE(m.rowCount(), 23);
        QAbstractItemModelTester tester(w.catalogue_model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        // 100K tokens (no document) on 64 GiB: Llama 3.1 8B Q4_K_M is the pick, selected.
        const int llama = catalogue_row(m, "llama-3.1-8b-instruct", "Q4_K_M");
        QVERIFY(llama >= 0);
        QCOMPARE(fit_text(m, llama), QString("fits"));
        QVERIFY(m.index(llama, 0).data(CatalogueTableModel::RecommendedRole).toBool());
        QCOMPARE(w.catalogue_view()->currentIndex().row(), llama);
        QVERIFY(m.index(llama, 0).data().toString().contains("recommended"));
        const int qwen7 = catalogue_row(m, "qwen2.5-7b-instruct", "Q4_K_M");
        QCOMPARE(fit_text(m, qwen7), QString("does not fit"));  // 32K context < 100K tokens
        QCOMPARE(m.index(qwen7, CatalogueTableModel::Memory).data().toString(), QString("over context"));
        const QString header = test::child<QLabel>(w, "fitHeaderLabel")->text();
        QVERIFY2(header.contains("100,000 tokens") && header.contains("64.0 GiB RAM"), qPrintable(header));
        QVERIFY(test::child<QLabel>(w, "recommendedLabel")->text().contains("Llama 3.1 8B Instruct"));

        // A document of 8,000 tokens: every context takes it; the largest, Qwen3 8B, is the pick.
        w.set_document("short.txt", 8000);
        QVERIFY(wait_until([&] {
            const int r = catalogue_row(*w.catalogue_model(), "qwen3-8b", "Q4_K_M");
            return w.catalogue_model()->index(r, 0).data(CatalogueTableModel::RecommendedRole).toBool();
        }));
        QCOMPARE(fit_text(*w.catalogue_model(),
                          catalogue_row(*w.catalogue_model(), "qwen2.5-7b-instruct", "Q4_K_M")),
                 QString("fits"));
        QVERIFY(test::child<QLabel>(w, "fitHeaderLabel")->text().contains("short.txt (8,000 tokens)"));
    }

    void tight_machine_changes_the_badges() {
        testing::LocalHub hub;
        test::RecordingDialogs dialogs;
        auto o = options(hub, dir_.path() + "/m2");
        o.machine = hub::MachineMemory{16 * kGiB, 0};
        GetModelsWindow w(std::move(o), dialogs);
        QSignalSpy fitted(&w, &GetModelsWindow::fitUpdated);
        QVERIFY(wait_until([&] { return fitted.count() >= 1; }));
        const CatalogueTableModel& m = *w.catalogue_model();
        QCOMPARE(fit_text(m, catalogue_row(m, "llama-3.1-8b-instruct", "Q4_K_M")), QString("tight"));
        // Phi-3.5's 39 GB K/V store (32 KV heads) only runs paged from its spill file here.
        const int phi = catalogue_row(m, "phi-3.5-mini-instruct", "Q4_K_M");
        QCOMPARE(fit_text(m, phi), QString("tight"));
        QVERIFY(m.index(phi, 0).data(Qt::ToolTipRole).toString().contains("page from disk"));
        const int one_b = catalogue_row(m, "llama-3.2-1b-instruct", "Q4_K_M");
        QVERIFY(m.index(one_b, 0).data(CatalogueTableModel::RecommendedRole).toBool());
        QCOMPARE(m.index(one_b, CatalogueTableModel::Fit).data(Qt::BackgroundRole).value<QBrush>().color(),
                 badge_color(hub::FitBadge::Fits));
    }

    void first_run_notice_opens_the_window() {
        services::LibraryStore store((dir_.path() + "/first.sqlite").toStdString());
        MainWindow w(store, std::make_unique<test::RecordingDialogs>());
        w.set_models_dir((dir_.path() + "/m3").toStdString());
        w.show();
        auto* notice = test::child<QWidget>(w, "firstRunNotice");
        QVERIFY(notice->isVisible());
        QVERIFY(test::child<QLabel>(w, "firstRunText")->text().contains("demo"));
        QTest::mouseClick(test::child<QPushButton>(w, "firstRunGetModelsButton"), Qt::LeftButton);
        QVERIFY(w.get_models_window() && w.get_models_window()->isVisible());

        // The bundled demo model keeps the notice; a real model hides it.
        QSignalSpy loaded(&w.models(), &ModelController::loaded);
        const QString demo = QString(SNAPDOC_SOURCE_DIR) + "/resources/models/snapdoc-demo.gguf";
        w.open_model(demo, false);
        QVERIFY(wait_until([&] { return loaded.count() == 1; }));
        QVERIFY(notice->isVisible());
        const QString real = test::fixtures_dir() + "/modelzoo/qwen3-tiny/qwen3-tiny-F16.gguf";
        if (!QFileInfo::exists(real)) QSKIP("modelzoo fixture absent; the rest is skipped");
        w.open_model(real, false);
        QVERIFY(wait_until([&] { return loaded.count() == 2; }));
        QVERIFY(!notice->isVisible());
    }

    void listed_repo_download_pause_resume_use_delete() {
        const QString zoo = test::fixtures_dir() + "/modelzoo/qwen3-tiny/qwen3-tiny-F16.gguf";
        if (!QFileInfo::exists(zoo)) QSKIP(qPrintable("fixture " + zoo + " is absent; skipping"));
        // The hub serves the modelzoo Qwen3 file as a two-shard set (llama.cpp's gguf-split layout).
        QTemporaryDir shards_dir;
        const auto shards =
            testing::write_gguf_split(zoo.toStdString(), shards_dir.path().toStdString(), "zoo-F16", 2);
        testing::LocalHub hub;
        for (const auto& s : shards) hub.add_file_from_disk("test/zoo-GGUF", s.filename().string(), s);
        testing::HubFaults slow;
        slow.bytes_per_second = 4 << 20;  // ~4 s for the set: time to pause it
        hub.set_faults(slow);

        services::LibraryStore store((dir_.path() + "/use.sqlite").toStdString());
        auto dialogs = std::make_unique<test::RecordingDialogs>();
        test::RecordingDialogs* seen = dialogs.get();
        MainWindow w(store, std::move(dialogs));
        const fs::path models = (dir_.path() + "/m4").toStdString();
        w.set_models_dir(models);
        w.settings().hub.endpoint = hub.endpoint();
        w.settings().generation.max_new_tokens = 4;
        w.show();
        GetModelsWindow* g = w.open_get_models();
        QVERIFY(g);

        // Any repository, named by its page address as pasted from a browser: its GGUF files as
        // one choice (two shards).
        RepoBrowser* browser = g->repo_browser();
        QSignalSpy listed(browser, &RepoBrowser::listed);
        browser->list("https://huggingface.co/test/zoo-GGUF/tree/main");
        QCOMPARE(test::child<QLineEdit>(*g, "hubRepoEdit")->text(), QString("test/zoo-GGUF"));
        QVERIFY(wait_until([&] { return listed.count() == 1; }, 20000));
        QCOMPARE(listed.last().at(0).toInt(), 1);
        auto* files = test::child<QTableWidget>(*g, "repoFilesTable");
        QCOMPARE(files->item(0, 0)->text(), QString("F16"));
        QCOMPARE(files->item(0, 2)->text(), QString("2"));
        // Its fit for this machine, from the first shard's header (range requests), as a catalogue
        // row has it (issue 37: the listed files had no fit estimate).
        QCOMPARE(browser->fits().size(), std::size_t{1});
        QCOMPARE(files->item(0, RepoBrowser::FitColumn)->text(), badge_label(browser->fits()[0].badge));
        QCOMPARE(files->item(0, RepoBrowser::FitColumn)->toolTip(), QString::fromStdString(browser->fits()[0].reason));
        QVERIFY(!browser->fits()[0].reason.empty());
        QCOMPARE(browser->fits()[0].memory.weights, static_cast<int64_t>(fs::file_size(shards[0]) + fs::file_size(shards[1])));
        files->selectRow(0);
        QSignalSpy added(g, &GetModelsWindow::downloadAdded);
        QTest::mouseClick(test::child<QPushButton>(*g, "downloadRepoFileButton"), Qt::LeftButton);
        QCOMPARE(added.count(), 1);
        DownloadRow* row = g->downloads().value(0);
        QVERIFY(row);
        auto* bar = row->findChild<QProgressBar*>("downloadProgress");
        auto* status = row->findChild<QLabel*>("downloadStatus");

        // Progress, then pause: the .part stays beside the final name, which does not exist yet.
        QVERIFY(wait_until([&] { return bar->value() > 0 && status->text().contains("/s"); }, 20000));
        QTest::mouseClick(row->findChild<QPushButton*>("pauseDownloadButton"), Qt::LeftButton);
        QVERIFY(wait_until([&] { return row->state() == hub::DownloadState::Paused; }, 10000));
        const QStringList paused = files_under(models);
        QVERIFY2(paused.filter(".gguf.part").size() >= 1, qPrintable(paused.join(", ")));
        for (const QString& f : paused) QVERIFY2(!f.endsWith(".gguf"), qPrintable(f));
        QVERIFY(row->findChild<QPushButton*>("resumeDownloadButton")->isVisibleTo(row));
        g->local_models()->refresh();  // not a model yet; its bytes are counted as unfinished
        QCOMPARE(g->local_models()->models().size(), std::size_t{0});
        QVERIFY(test::child<QLabel>(*g, "localModelsStatus")->text().contains("Unfinished downloads"));

        // Resume at full speed, to the end; only the two final files remain.
        hub.set_faults({});
        const int ranges_before_resume = hub.stats().range_requests;  // the listing's header read is one
        QTest::mouseClick(row->findChild<QPushButton*>("resumeDownloadButton"), Qt::LeftButton);
        QVERIFY(wait_until([&] { return row->state() == hub::DownloadState::Done; }, 30000));
        QCOMPARE(files_under(models), QStringList({"test/zoo-GGUF/zoo-F16-00001-of-00002.gguf",
                                                   "test/zoo-GGUF/zoo-F16-00002-of-00002.gguf"}));
        QVERIFY(hub.stats().range_requests > ranges_before_resume);  // the resume asked only for the rest

        // Use this model: the set loads as one model and answers a question about a document.
        QSignalSpy loaded(&w.models(), &ModelController::loaded);
        auto* use = row->findChild<QPushButton*>("useDownloadedModelButton");
        QVERIFY(use->isVisibleTo(row));
        QTest::mouseClick(use, Qt::LeftButton);
        QVERIFY(wait_until([&] { return loaded.count() == 1; }));
        QVERIFY2(seen->errors.isEmpty(), qPrintable(seen->errors.join("; ")));
        QCOMPARE(loaded.last().at(0).value<ModelInfo>().architecture, QString("qwen3"));
        const QString doc = dir_.path() + "/doc.txt";
        QFile f(doc);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("Ada keeps the lighthouse on the north island.\n");
        f.close();
        QSignalSpy ready(&w.documents(), &DocumentController::documentReady);
        w.open_document(doc);
        QVERIFY(wait_until([&] { return ready.count() == 1; }));
        QSignalSpy done(&w.chat(), &ChatController::answerDone);
        QVERIFY(w.ask("Who keeps the lighthouse?"));
        QVERIFY(wait_until([&] { return done.count() == 1; }));
        QVERIFY(done.last().at(0).value<AnswerStats>().generated_tokens >= 1);

        // Downloaded models: listed with its size; Delete (asked first) empties the folder.
        LocalModelsList* local = g->local_models();
        local->refresh();
        QCOMPARE(local->models().size(), std::size_t{1});
        QVERIFY(test::child<QTableWidget>(*g, "localModelsTable")->item(0, 2)->text().contains("MiB"));
        test::child<QTableWidget>(*g, "localModelsTable")->selectRow(0);
        QTest::mouseClick(test::child<QPushButton>(*g, "deleteLocalModelButton"), Qt::LeftButton);
        QVERIFY(seen->confirmations_asked.contains("Delete model"));
        // It is the model in use, and the question says so (issue 37: asked like any other).
        QVERIFY2(seen->confirmation_texts.last().contains("It is the model in use"),
                 qPrintable(seen->confirmation_texts.last()));
        QCOMPARE(local->models().size(), std::size_t{0});
        QVERIFY(files_under(models).isEmpty());
        // Recent Models no longer offers the deleted file (it listed a missing file).
        QMenu* recent = nullptr;
        for (QMenu* m : w.findChildren<QMenu*>())
            if (m->title().remove('&') == "Recent Models") recent = m;
        QVERIFY(recent);
        emit recent->aboutToShow();
        for (const QAction* a : recent->actions())
            QVERIFY2(QFileInfo::exists(a->toolTip()), qPrintable(a->toolTip() + " is listed but missing"));
        QVERIFY(!w.settings().recent_models.empty());  // kept, so a restart can say it is gone
    }

    void cancel_leaves_nothing() {
        testing::LocalHub hub;
        hub.add_file("test/big-GGUF", "big-Q8_0.gguf", testing::generated_bytes(6 << 20, 3));
        testing::HubFaults slow;
        slow.bytes_per_second = 1 << 20;
        hub.set_faults(slow);
        test::RecordingDialogs dialogs;
        const QString models = dir_.path() + "/m5";
        GetModelsWindow g(options(hub, models), dialogs);
        QSignalSpy listed(g.repo_browser(), &RepoBrowser::listed);
        g.repo_browser()->list("test/big-GGUF");
        QVERIFY(wait_until([&] { return listed.count() == 1; }, 20000));
        test::child<QTableWidget>(g, "repoFilesTable")->selectRow(0);
        QTest::mouseClick(test::child<QPushButton>(g, "downloadRepoFileButton"), Qt::LeftButton);
        DownloadRow* row = g.downloads().value(0);
        QVERIFY(row);
        QVERIFY(wait_until([&] { return row->findChild<QProgressBar*>("downloadProgress")->value() > 0; },
                           20000));
        QTest::mouseClick(row->findChild<QPushButton*>("cancelDownloadButton"), Qt::LeftButton);
        QVERIFY(wait_until([&] { return row->state() == hub::DownloadState::Cancelled; }, 10000));
        QVERIFY2(files_under(models.toStdString()).filter(".gguf").isEmpty(),
                 qPrintable(files_under(models.toStdString()).join(", ")));
        QVERIFY(row->findChild<QLabel*>("downloadStatus")->text().contains("cancelled"));
    }

    void catalogue_row_downloads_from_the_hub() {
        // The catalogue's own repository and file name, served by the local hub.
        testing::LocalHub hub;
        hub.add_file("Qwen/Qwen3-1.7B-GGUF", "Qwen3-1.7B-Q8_0.gguf", testing::generated_bytes(1 << 20, 5));
        test::RecordingDialogs dialogs;
        const QString models = dir_.path() + "/m6";
        GetModelsWindow g(options(hub, models), dialogs);
        QSignalSpy fitted(&g, &GetModelsWindow::fitUpdated);
        QVERIFY(wait_until([&] { return fitted.count() >= 1; }));
        const int r = catalogue_row(*g.catalogue_model(), "qwen3-1.7b", "Q8_0");
        g.catalogue_view()->selectRow(r);
        QSignalSpy added(&g, &GetModelsWindow::downloadAdded);
        QTest::mouseClick(test::child<QPushButton>(g, "downloadCatalogueButton"), Qt::LeftButton);
        QVERIFY(wait_until([&] { return added.count() == 1; }, 20000));
        DownloadRow* row = g.downloads().value(0);
        QVERIFY(wait_until([&] { return row->state() == hub::DownloadState::Done; }, 20000));
        QCOMPARE(files_under(models.toStdString()),
                 QStringList({"Qwen/Qwen3-1.7B-GGUF/Qwen3-1.7B-Q8_0.gguf"}));
        // A repository the hub does not have: the error in words, no download row.
        const int missing = catalogue_row(*g.catalogue_model(), "qwen3-8b", "Q8_0");
        g.catalogue_view()->selectRow(missing);
        QSignalSpy failed(&g, &GetModelsWindow::downloadFailedToStart);
        QTest::mouseClick(test::child<QPushButton>(g, "downloadCatalogueButton"), Qt::LeftButton);
        QVERIFY(wait_until([&] { return failed.count() == 1; }, 20000));
        QVERIFY2(!failed.last().at(0).toString().isEmpty(), "no message");
        QCOMPARE(g.downloads().size(), 1);
    }

    // Issue 37, major 3: Enter in the repository field pressed the window's default button, the
    // catalogue's Download, so the preselected recommended row (~4.5 GiB) started downloading.
    // Enter there lists the repository's files; no button that downloads is a default button.
    void enter_in_repository_field_lists_files_and_downloads_nothing() {
        testing::LocalHub hub;
        hub.add_file("test/enter-GGUF", "enter-Q8_0.gguf", testing::generated_bytes(1 << 20, 7));
        test::RecordingDialogs dialogs;
        const QString models = dir_.path() + "/m7";
        GetModelsWindow g(options(hub, models), dialogs);
        QSignalSpy fitted(&g, &GetModelsWindow::fitUpdated);
        g.show();
        QVERIFY(QTest::qWaitForWindowActive(&g));
        QVERIFY(wait_until([&] { return fitted.count() >= 1; }));
        // The recommended row is selected, so the catalogue's Download is enabled: what Enter pressed.
        QVERIFY(test::child<QPushButton>(g, "downloadCatalogueButton")->isEnabled());
        auto* tabs = test::child<QTabWidget>(g, "getModelsTabs");
        tabs->setCurrentWidget(g.repo_browser());
        QSignalSpy added(&g, &GetModelsWindow::downloadAdded);
        QSignalSpy failed(&g, &GetModelsWindow::downloadFailedToStart);
        QSignalSpy listed(g.repo_browser(), &RepoBrowser::listed);
        auto* edit = test::child<QLineEdit>(g, "hubRepoEdit");
        edit->setFocus();
        QTest::keyClicks(edit, "test/enter-GGUF");
        QTest::keyClick(edit, Qt::Key_Return);
        QVERIFY(wait_until([&] { return listed.count() == 1; }, 20000));
        QCOMPARE(test::child<QTableWidget>(g, "repoFilesTable")->rowCount(), 1);
        // Not a GGUF file (generated bytes): listed and downloadable, its fit unknown and why.
        QCOMPARE(test::child<QTableWidget>(g, "repoFilesTable")->item(0, RepoBrowser::FitColumn)->text(),
                 QString("unknown"));
        QVERIFY(test::child<QLabel>(g, "repoStatusLabel")->text().contains("No fit estimate"));
        // A wrongly started download shows within the lookup's round trip to the local hub.
        QVERIFY(!wait_until([&] { return added.count() + failed.count() > 0; }, 1500));

        // With a listed file selected (its Download enabled), Enter (keypad too) lists again.
        test::child<QTableWidget>(g, "repoFilesTable")->selectRow(0);
        QVERIFY(test::child<QPushButton>(g, "downloadRepoFileButton")->isEnabled());
        edit->setFocus();
        QTest::keyClick(edit, Qt::Key_Enter);
        QVERIFY(wait_until([&] { return listed.count() == 2; }, 20000));
        QVERIFY(!wait_until([&] { return added.count() + failed.count() > 0; }, 1500));
        QVERIFY(g.downloads().isEmpty());
        // The only file requests were the listings' header reads (range requests), no download.
        QCOMPARE(hub.stats().cdn_requests, hub.stats().range_requests);
        QVERIFY2(files_under(models.toStdString()).isEmpty(), qPrintable(files_under(models.toStdString()).join(", ")));
        // Nothing that downloads or deletes is a default button Enter could press from anywhere.
        for (QPushButton* b : g.findChildren<QPushButton*>())
            QVERIFY2(!b->isDefault() && !b->autoDefault(), qPrintable(b->objectName() + " is a default button"));
    }
    // Issue 37: a catalogue row marked "does not fit" downloaded without a question. It asks now,
    // with the memory it needs and this machine has; no answer, no download (not even the lookup).
    void an_unfitting_row_asks_before_downloading() {
        testing::LocalHub hub;
        hub.add_file("Qwen/Qwen3-1.7B-GGUF", "Qwen3-1.7B-Q8_0.gguf", testing::generated_bytes(1 << 20, 5));
        test::RecordingDialogs dialogs;
        dialogs.confirm_answer_generic = false;
        const QString models = dir_.path() + "/m8";
        auto o = options(hub, models);
        o.machine = hub::MachineMemory{1 * kGiB, 0};  // nothing in the catalogue fits 1 GiB
        GetModelsWindow g(std::move(o), dialogs);
        QSignalSpy fitted(&g, &GetModelsWindow::fitUpdated);
        QVERIFY(wait_until([&] { return fitted.count() >= 1; }));
        g.set_document("short.txt", 2000);  // within the context: memory is what does not fit
        QVERIFY(wait_until([&] { return fitted.count() >= 2; }));
        const int r = catalogue_row(*g.catalogue_model(), "qwen3-1.7b", "Q8_0");
        QCOMPARE(fit_text(*g.catalogue_model(), r), QString("does not fit"));
        g.catalogue_view()->selectRow(r);
        QSignalSpy added(&g, &GetModelsWindow::downloadAdded);
        QSignalSpy failed(&g, &GetModelsWindow::downloadFailedToStart);
        QTest::mouseClick(test::child<QPushButton>(g, "downloadCatalogueButton"), Qt::LeftButton);
        QCOMPARE(dialogs.confirmations_asked.size(), 1);
        const QString text = dialogs.confirmation_texts.value(0);
        QVERIFY2(text.contains("This model needs") && text.contains("this machine has 1.0 GiB") &&
                     text.contains("Download anyway"),
                 qPrintable(text));
        QVERIFY(!wait_until([&] { return added.count() + failed.count() > 0; }, 1000));
        QCOMPARE(hub.stats().tree_requests + hub.stats().resolve_requests + hub.stats().cdn_requests, 0);

        // "Download anyway" downloads it.
        dialogs.confirm_answer_generic = true;
        QTest::mouseClick(test::child<QPushButton>(g, "downloadCatalogueButton"), Qt::LeftButton);
        QCOMPARE(dialogs.confirmations_asked.size(), 2);
        QVERIFY(wait_until([&] { return added.count() == 1; }, 20000));
    }

    // Issue 37: downloaded catalogue rows carried no mark, and Download fetched them again. They say
    // "Downloaded" and the button loads them instead.
    void downloaded_rows_are_marked_and_load() {
        testing::LocalHub hub;
        test::RecordingDialogs dialogs;
        const QString models = dir_.path() + "/m9";
        const fs::path file = fs::path(models.toStdString()) / "Qwen/Qwen3-1.7B-GGUF/Qwen3-1.7B-Q8_0.gguf";
        fs::create_directories(file.parent_path());
        {
            std::ofstream out(file, std::ios::binary);
            out << "GGUF";
        }
        GetModelsWindow g(options(hub, models), dialogs);
        QSignalSpy fitted(&g, &GetModelsWindow::fitUpdated);
        QVERIFY(wait_until([&] { return fitted.count() >= 1; }));
        const CatalogueTableModel& m = *g.catalogue_model();
        const int r = catalogue_row(m, "qwen3-1.7b", "Q8_0");
        const QString mark = m.index(r, CatalogueTableModel::Download).data().toString();
        QVERIFY2(mark.contains("Downloaded"), qPrintable(mark));
        QCOMPARE(m.index(r, 0).data(CatalogueTableModel::LocalPathRole).toString(),
                 QString::fromStdString(file.string()));
        const int other = catalogue_row(m, "qwen3-1.7b", "Q4_K_M");
        QVERIFY(!m.index(other, CatalogueTableModel::Download).data().toString().contains("Downloaded"));

        auto* button = test::child<QPushButton>(g, "downloadCatalogueButton");
        g.catalogue_view()->selectRow(other);
        QCOMPARE(button->text(), QString("Download"));
        g.catalogue_view()->selectRow(r);
        QCOMPARE(button->text(), QString("Load"));
        QSignalSpy use(&g, &GetModelsWindow::useModel);
        QSignalSpy added(&g, &GetModelsWindow::downloadAdded);
        QTest::mouseClick(button, Qt::LeftButton);
        QCOMPARE(use.count(), 1);
        QCOMPARE(use.last().at(0).toString(), QString::fromStdString(file.string()));
        QCOMPARE(added.count(), 0);

        // Deleted from the Downloaded models tab: the mark goes.
        fs::remove(file);
        g.local_models()->refresh();
        QVERIFY(!m.index(r, CatalogueTableModel::Download).data().toString().contains("Downloaded"));
        QCOMPARE(button->text(), QString("Download"));
    }
    // Issue 37: a hub that cannot be reached gave raw libcurl text in small print while the
    // Downloads tab said "No downloads yet". Now it is said in words, where the list is.
    void an_unreachable_hub_is_said_in_words_in_the_downloads_list() {
        testing::LocalHub hub;
        test::RecordingDialogs dialogs;
        auto o = options(hub, dir_.path() + "/m10");
        o.endpoint.base_url = "http://127.0.0.1:1";  // nothing listens on port 1
        GetModelsWindow g(std::move(o), dialogs);
        QSignalSpy fitted(&g, &GetModelsWindow::fitUpdated);
        QVERIFY(wait_until([&] { return fitted.count() >= 1; }));
        g.catalogue_view()->selectRow(catalogue_row(*g.catalogue_model(), "qwen3-1.7b", "Q8_0"));
        QSignalSpy failed(&g, &GetModelsWindow::downloadFailedToStart);
        QTest::mouseClick(test::child<QPushButton>(g, "downloadCatalogueButton"), Qt::LeftButton);
        QVERIFY(wait_until([&] { return failed.count() == 1; }, 30000));
        const QString message = failed.last().at(0).toString();
        QVERIFY2(message.startsWith("The hub did not accept a connection") && message.contains("Settings"),
                 qPrintable(message));
        const QString list = test::child<QLabel>(g, "downloadsEmptyLabel")->text();
        QVERIFY2(!list.contains("No downloads yet") && list.contains("did not accept a connection"),
                 qPrintable(list));
    }

    // Issue 37: downloads went on with Get models closed and nothing in the main window said so.
    // The status bar shows the running one with its percentage; a click opens its Downloads list.
    void a_running_download_shows_in_the_main_window() {
        testing::LocalHub hub;
        hub.add_file("test/status-GGUF", "status-Q8_0.gguf", testing::generated_bytes(6 << 20, 9));
        testing::HubFaults slow;
        slow.bytes_per_second = 1 << 20;  // ~6 s: time to watch it
        hub.set_faults(slow);
        services::LibraryStore store((dir_.path() + "/status.sqlite").toStdString());
        MainWindow w(store, std::make_unique<test::RecordingDialogs>());
        w.set_models_dir((dir_.path() + "/m11").toStdString());
        w.settings().hub.endpoint = hub.endpoint();
        w.show();
        auto* status = test::child<QPushButton>(w, "downloadsStatus");
        QVERIFY(!status->isVisible());
        GetModelsWindow* g = w.open_get_models();
        hub::GgufChoice choice;
        choice.quant = "Q8_0";
        choice.files = {{"status-Q8_0.gguf", 6 << 20, {}}};
        DownloadRow* row = g->download_choice("test/status-GGUF", "main", choice);
        g->hide();  // closed: the download goes on
        QVERIFY(wait_until([&] { return status->isVisible() && status->text().contains("%"); }, 20000));
        QVERIFY2(status->text().contains("test/status-GGUF"), qPrintable(status->text()));
        auto* tabs = test::child<QTabWidget>(*g, "getModelsTabs");
        tabs->setCurrentIndex(1);
        QTest::mouseClick(status, Qt::LeftButton);
        QVERIFY(g->isVisible());
        QCOMPARE(tabs->currentIndex(), 0);
        row->pause();
        // Paused, it stays in sight as a paused download, not as a running one.
        QVERIFY(wait_until([&] { return status->text().startsWith("⏸"); }, 20000));
        QVERIFY2(status->isVisible() && status->text().contains("paused at"), qPrintable(status->text()));
        row->cancel();
        QVERIFY(wait_until([&] { return !status->isVisible(); }, 20000));
    }

    // Issue 37: a download paused by quitting was not listed after a restart; it resumed only if the
    // user found the same repository and quantization again. Now the restarted app says so in the
    // status bar, lists it in Get models as paused, and Resume finishes it with only the rest fetched.
    void a_download_paused_by_quitting_is_listed_after_a_restart() {
        testing::LocalHub hub;
        const std::string bytes = testing::generated_bytes(4 << 20, 21);
        hub.add_file("test/restart-GGUF", "restart-Q4_K_M.gguf", bytes);
        testing::HubFaults slow;
        slow.bytes_per_second = 1 << 20;
        hub.set_faults(slow);
        const fs::path models = (dir_.path() + "/m12").toStdString();
        services::LibraryStore store((dir_.path() + "/restart.sqlite").toStdString());
        {
            MainWindow w(store, std::make_unique<test::RecordingDialogs>());
            w.set_models_dir(models);
            w.settings().hub.endpoint = hub.endpoint();
            GetModelsWindow* g = w.open_get_models();
            hub::GgufChoice choice;
            choice.quant = "Q4_K_M";
            choice.files = {{"restart-Q4_K_M.gguf", static_cast<int64_t>(bytes.size()), {}}};
            DownloadRow* row = g->download_choice("test/restart-GGUF", "main", choice);
            QVERIFY(wait_until([&] { return row->percent() >= 10; }, 20000));
        }  // quit mid-download: the row pauses and its .part stays
        hub.set_faults({});
        MainWindow w(store, std::make_unique<test::RecordingDialogs>());
        w.set_models_dir(models);
        w.settings().hub.endpoint = hub.endpoint();
        w.show();
        auto* status = test::child<QPushButton>(w, "downloadsStatus");
        QVERIFY(status->isVisible());
        QVERIFY2(status->text().contains("test/restart-GGUF Q4_K_M") && status->text().contains("paused"),
                 qPrintable(status->text()));
        GetModelsWindow* g = w.open_get_models();
        QCOMPARE(g->downloads().size(), 1);
        DownloadRow* row = g->downloads().front();
        QCOMPARE(row->state(), hub::DownloadState::Paused);
        QVERIFY(row->percent() >= 10 && row->percent() < 100);
        QVERIFY(test::child<QLabel>(*row, "downloadStatus")->text().contains("earlier session"));
        g->restore_paused_downloads();  // listed once, however often asked
        QCOMPARE(g->downloads().size(), 1);
        const int64_t sent_before = hub.stats().body_bytes_sent;
        QTest::mouseClick(test::child<QPushButton>(*row, "resumeDownloadButton"), Qt::LeftButton);
        QVERIFY(wait_until([&] { return row->state() == hub::DownloadState::Done; }, 30000));
        QVERIFY(hub.stats().body_bytes_sent - sent_before < static_cast<int64_t>(bytes.size()));
        QVERIFY(test::child<QPushButton>(*row, "useDownloadedModelButton")->isVisible());
        QCOMPARE(files_under(models), QStringList{"test/restart-GGUF/restart-Q4_K_M.gguf"});
        QVERIFY(wait_until([&] { return !status->isVisible(); }, 20000));
    }
};

QTEST_MAIN(TestGetModels)
#include "test_get_models.moc"
