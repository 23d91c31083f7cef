// Loading a document into the model, driving the real main window with the demo model (issue 12
// item 5, issue 14, issue 15 item 4): an over-long document is refused before any prefill, with its
// token count and the limit, and the compression panel says why; "allow longer prompts" re-checks
// it; the prefill reports per chunk (cost-weighted) with a short bar text that is not clipped and
// a probe-based estimate; the answer path uses the shared context check.
#include <QAbstractButton>
#include <QCheckBox>
#include <QDialog>
#include <QLabel>
#include <QProgressBar>
#include <QtTest>

#include "app/services/app_settings.h"
#include "app/services/library_store.h"
#include "engine/model/model.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/main/chat_controller.h"
#include "ui/main/document_controller.h"
#include "ui/main/main_window.h"
#include "ui/main/model_controller.h"

using namespace snapdoc;
using namespace snapdoc::ui;
using snapdoc::test::wait_until;

using snapdoc::test::child;

namespace {

QString repo_file(const QString& relative) {
    return snapdoc::test::source_file(relative);
}

QString demo_model() {
    return repo_file("resources/models/snapdoc-demo.gguf");
}

QAction* action(QWidget& w, const QString& text) {
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text() == text) return a;
    qFatal("no action %s", qPrintable(text));
}

}  // namespace

class TestLoadFlow : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::unique_ptr<services::LibraryStore> store_;
    std::unique_ptr<Model> model_;
    std::optional<Tokenizer> tokenizer_;
    QString report_;  // the demo sample report, the kind of text the demo model reads

    std::unique_ptr<MainWindow> make_window(snapdoc::test::RecordingDialogs*& dialogs) {
        auto d = std::make_unique<snapdoc::test::RecordingDialogs>();
        dialogs = d.get();
        auto w = std::make_unique<MainWindow>(*store_, std::move(d));
        w->settings().generation.max_new_tokens = 48;
        w->settings().generation.ignore_context = false;
        w->settings().generation.sampling.temperature = 0;
        w->resize(1400, 900);
        w->show();
        return w;
    }

    bool load_model(MainWindow& w) {
        QSignalSpy loaded(&w.models(), &ModelController::loaded);
        w.open_model(demo_model(), /*confirm=*/false);
        return wait_until([&] { return loaded.count() == 1; });
    }

    // A document of copies of the sample report, at least `tokens` long (counted with the model's
    // tokenizer, so the test follows the bundled model whatever its vocabulary).
    QString write_document(const QString& name, int tokens) {
        const int per_copy = static_cast<int>(tokenizer_->encode((report_ + "\n").toStdString()).size());
        QString text;
        for (int i = 0; i <= tokens / std::max(1, per_copy); ++i) text += report_ + "\n";
        const QString path = dir_.path() + "/" + name;
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
        f.write(text.toUtf8());
        return path;
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        store_ = std::make_unique<services::LibraryStore>((dir_.path() + "/library.sqlite").toStdString());
        model_ = std::make_unique<Model>(snapdoc::load_model(demo_model().toStdString()));
        tokenizer_.emplace(Tokenizer::from_model(*model_));
        QFile r(repo_file("resources/samples/demo-report.txt"));
        QVERIFY(r.open(QIODevice::ReadOnly));
        report_ = QString::fromUtf8(r.readAll());
    }

    void a_document_far_too_long_is_refused_before_it_is_encoded() {
        // Issue 37: a 60 MB text showed a full bar and no status for ~40 s (encoding it) before its
        // refusal. A text whose bytes alone prove it longer than the context is refused at once.
        const int bound = tokenizer_->max_input_bytes_per_token();
        if (bound <= 0) QSKIP("the bundled model's tokenizer gives no bytes-per-token bound");
        snapdoc::test::RecordingDialogs* dialogs = nullptr;
        auto w = make_window(dialogs);
        QVERIFY(load_model(*w));
        const int ctx = w->models().info()->context_length;
        QString text;
        const QString copy = report_ + "\n";
        while (text.toUtf8().size() <= static_cast<qsizetype>(ctx + 1000) * bound) text += copy.repeated(64);
        const QString path = dir_.path() + "/far-too-long.txt";
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text.toUtf8());
        f.close();

        QSignalSpy failed(&w->documents(), &DocumentController::documentFailed);
        QSignalSpy started(&w->documents(), &DocumentController::prefillStarted);
        w->open_document(path);
        QVERIFY(wait_until([&] { return failed.count() == 1; }, 60000));
        const QString msg = failed.first().at(1).toString();
        QVERIFY2(msg.startsWith("The document is at least ") &&
                     msg.contains("but the model's context is " + QLocale(QLocale::English).toString(ctx) + " tokens"),
                 qPrintable(msg));
        QVERIFY2(msg.contains(" MB of text"), qPrintable(msg));
        QCOMPARE(started.count(), 0);
    }

    void over_long_document_is_refused_before_any_prefill() {
        snapdoc::test::RecordingDialogs* dialogs = nullptr;
        auto w = make_window(dialogs);
        QVERIFY(load_model(*w));
        const int ctx = w->models().info()->context_length;
        QVERIFY(ctx > 0);
        const QString doc = write_document("too-long.txt", ctx + 200);

        QSignalSpy started(&w->documents(), &DocumentController::prefillStarted);
        QSignalSpy progress(&w->documents(), &DocumentController::prefillProgress);
        QSignalSpy failed(&w->documents(), &DocumentController::documentFailed);
        QSignalSpy ready(&w->documents(), &DocumentController::documentReady);
        w->open_document(doc);
        QVERIFY(wait_until([&] { return failed.count() == 1; }));
        // Refused at the check: no prefill began, no chunk ran.
        QCOMPARE(started.count(), 0);
        QCOMPARE(progress.count(), 0);
        const QString msg = failed.last().at(1).toString();
        const QString limit = QLocale(QLocale::English).toString(ctx);
        QVERIFY2(msg.contains("but the model's context is " + limit + " tokens"), qPrintable(msg));
        QVERIFY2(msg.contains(QRegularExpression("The document is [0-9,]+ tokens")), qPrintable(msg));
        QVERIFY(!child<QProgressBar>(*w, "documentProgress")->isVisible());
        // The compression panel says why there is nothing to estimate.
        const QString kv = child<QLabel>(*w, "budgetMemoryLabel")->text();
        QVERIFY2(!kv.contains("load a model and a document"), qPrintable(kv));
        QVERIFY2(kv.startsWith("KV memory: none. The document is") && kv.contains(limit), qPrintable(kv));
        QVERIFY(dialogs->errors.isEmpty());
    }

    void allowing_longer_prompts_rechecks_the_refused_document() {
        snapdoc::test::RecordingDialogs* dialogs = nullptr;
        auto w = make_window(dialogs);
        QVERIFY(load_model(*w));
        const int ctx = w->models().info()->context_length;
        // A short document refused because the answer it would get does not fit after it (the same
        // check; it keeps the prefill after "allow longer prompts" short whatever the context).
        w->settings().generation.max_new_tokens = ctx - 1000;
        const QString doc = write_document("answer-too-long.txt", 2000);
        QSignalSpy started(&w->documents(), &DocumentController::prefillStarted);
        QSignalSpy failed(&w->documents(), &DocumentController::documentFailed);
        QSignalSpy ready(&w->documents(), &DocumentController::documentReady);
        w->open_document(doc);
        QVERIFY(wait_until([&] { return failed.count() == 1; }));
        QCOMPARE(started.count(), 0);
        const QString msg = failed.last().at(1).toString();
        QVERIFY2(msg.contains("answer") &&
                     msg.contains("but the model's context is " + QLocale(QLocale::English).toString(ctx)),
                 qPrintable(msg));

        // Settings > "Allow prompts longer than the model's trained context": the shown document is
        // checked again and now loads, without reopening it.
        QTimer::singleShot(0, this, [] {
            auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
            if (!dialog) return;
            for (QCheckBox* box : dialog->findChildren<QCheckBox*>())
                if (box->text().startsWith("Allow prompts longer")) box->setChecked(true);
            dialog->accept();
        });
        action(*w, "&Settings…")->trigger();
        QVERIFY(w->settings().generation.ignore_context);
        QVERIFY2(wait_until([&] { return ready.count() == 1; }, 120000),
                 qPrintable(failed.count() > 1 ? failed.last().at(1).toString() : QString("no result")));
        QCOMPARE(started.count(), 1);
        QVERIFY(child<QLabel>(*w, "budgetMemoryLabel")->text().contains("KV"));
        QVERIFY(!child<QLabel>(*w, "budgetMemoryLabel")->text().contains("not loaded"));
        QVERIFY(dialogs->errors.isEmpty());
    }

    void prefill_moves_per_chunk_with_an_estimate_and_unclipped_text() {
        snapdoc::test::RecordingDialogs* dialogs = nullptr;
        auto w = make_window(dialogs);
        QVERIFY(load_model(*w));
        const int ctx = w->models().info()->context_length;
        // Long enough to be probed and to take several 512-row chunks per layer; fits the context.
        const int target = std::min(3600, ctx - 200);
        const QString doc = write_document("chunks.txt", target);

        auto* bar = child<QProgressBar>(*w, "documentProgress");
        QStringList texts, facts_during;
        QList<double> fractions;
        bool clipped = false;
        QSignalSpy estimated(&w->documents(), &DocumentController::prefillEstimated);
        connect(&w->documents(), &DocumentController::prefillProgress, this,
                [&](qint64, int, int, double fraction) {
                    fractions << fraction;
                    texts << bar->text();
                    facts_during << child<QLabel>(*w, "documentFacts")->text();
                    // The text fits the bar as laid out (it was clipped at the old length).
                    if (QFontMetrics(bar->font()).horizontalAdvance(bar->text()) > bar->contentsRect().width())
                        clipped = true;
                });
        QSignalSpy ready(&w->documents(), &DocumentController::documentReady);
        w->open_document(doc);
        QVERIFY(wait_until([&] { return ready.count() == 1; }, 120000));
        const int tokens = w->documents().ready_info()->document_tokens;
        const int layers = w->models().info()->n_layers;
        const int chunks = (tokens + 511) / 512;
        QVERIFY(chunks >= 3);
        // One update per chunk per layer (+ the start), not one per layer.
        QVERIFY2(fractions.size() >= chunks * layers, qPrintable(QString::number(fractions.size())));
        for (int i = 1; i < fractions.size(); ++i) QVERIFY(fractions[i] >= fractions[i - 1]);
        QCOMPARE(fractions.last(), 1.0);
        QVERIFY2(!clipped, qPrintable(texts.join(" | ")));
        QVERIFY2(texts.last().contains("Layer " + QString::number(layers) + "/" + QString::number(layers)),
                 qPrintable(texts.last()));
        // Item 18: the time left is labelled an estimate, and after the first chunks the document
        // line says it comes from the measured rate rather than the probe.
        QVERIFY2(texts[texts.size() / 2].contains("left (estimate)"), qPrintable(texts[texts.size() / 2]));
        QVERIFY2(facts_during.first().contains("(probe)") || facts_during.first().contains("measured rate"),
                 qPrintable(facts_during.first()));
        QVERIFY2(facts_during.last().contains("estimated") && facts_during.last().contains("at the measured rate"),
                 qPrintable(facts_during.last()));
        // The probe ran before the prefill and its figure is shown with the result.
        QCOMPARE(estimated.count(), 1);
        QVERIFY(estimated.last().at(2).toDouble() > 0);
        QVERIFY2(child<QLabel>(*w, "documentFacts")->text().contains("estimated"),
                 qPrintable(child<QLabel>(*w, "documentFacts")->text()));
    }

    void the_answer_path_uses_the_shared_context_check() {
        snapdoc::test::RecordingDialogs* dialogs = nullptr;
        auto w = make_window(dialogs);
        QVERIFY(load_model(*w));
        QSignalSpy ready(&w->documents(), &DocumentController::documentReady);
        w->open_document(write_document("short.txt", 600));
        QVERIFY(wait_until([&] { return ready.count() == 1; }, 120000));
        // An answer limit near 2^31: the app's own sum wrapped negative and let the question run
        // through the layers; the shared check refuses it up front with its bound.
        w->settings().generation.max_new_tokens = 2147483000;
        w->settings().generation.ignore_context = true;
        QSignalSpy error(&w->chat(), &ChatController::answerError);
        w->ask("What is the access code for the north gate?");
        QVERIFY(wait_until([&] { return error.count() == 1; }));
        const QString msg = error.last().at(0).toString();
        QVERIFY2(msg.contains("16777216"), qPrintable(msg));
    }
};

QTEST_MAIN(TestLoadFlow)
#include "test_load_flow.moc"
