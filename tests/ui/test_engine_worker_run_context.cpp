// Issue 24 item 8: the app ran Phi-3.5 with LongRoPE's long factors for every document, because its
// backend was made before any document was known (at the declared 131,072-token context). The
// engine worker now applies document_run_context (engine/session/run_context.h) when a document is
// read: a chat that fits the original 4,096-token context runs there (short factors, as llama.cpp at
// n_ctx <= 4096), a longer one at the model's context; a model without LongRoPE is never changed.
#include <QFileInfo>
#include <QtTest>
#include <memory>
#include <string>

#include "tests/ui/support/ui_test_support.h"
#include "ui/worker/engine_worker.h"

using namespace snapdoc;
using namespace snapdoc::ui;

namespace {

// Reads `text` as document 1 and returns what the worker reported (synchronous: same thread).
std::optional<DocumentReady> read_document(EngineWorker& worker, const std::string& text, QString* error) {
    std::optional<DocumentReady> ready;
    const auto ok =
        QObject::connect(&worker, &EngineWorker::documentLoaded, [&](const DocumentReady& r) { ready = r; });
    const auto bad = QObject::connect(&worker, &EngineWorker::documentFailed,
                                      [&](qint64, const QString& message, bool) { *error = message; });
    worker.loadDocument(1, std::make_shared<const std::string>(text), 32, false, CancelToken{});
    QObject::disconnect(ok);
    QObject::disconnect(bad);
    return ready;
}

std::string words(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += "lighthouse " + std::to_string(i) + ". ";
    return s;
}

}  // namespace

class TestEngineWorkerRunContext : public QObject {
    Q_OBJECT

    // Loads a modelzoo file on the CPU, or skips when the fixture is absent.
    bool load(EngineWorker& worker, const QString& file) {
        const QString path = test::fixtures_dir() + "/modelzoo/" + file;
        if (!QFileInfo::exists(path)) return false;
        bool loaded = false;
        QString failed;
        const auto ok =
            connect(&worker, &EngineWorker::modelLoaded, [&](const ModelInfo&) { loaded = true; });
        const auto bad = connect(&worker, &EngineWorker::modelFailed,
                                 [&](const QString&, const QString& message) { failed = message; });
        ModelLoadOptions options;
        options.device = "cpu";
        options.threads = 1;
        worker.loadModel(path, options);
        disconnect(ok);
        disconnect(bad);
        if (!loaded) qWarning("%s", qPrintable(failed));
        return loaded;
    }

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void phi35_short_document_runs_with_short_factors_and_a_long_one_with_long() {
        EngineWorker worker;
        if (!QFileInfo::exists(test::fixtures_dir() + "/modelzoo/phi35-tiny/phi35-tiny-F16.gguf"))
            QSKIP("fixture modelzoo/phi35-tiny is absent; skipping");
        QVERIFY(load(worker, "phi35-tiny/phi35-tiny-F16.gguf"));
        QString error;
        auto ready = read_document(worker, "Ada keeps the lighthouse on the north island.", &error);
        QVERIFY2(ready, qPrintable(error));
        QCOMPARE(ready->run_context, 4096);

        // Past the original context (document + answer room + question allowance): the model's own.
        ready = read_document(worker, words(1200), &error);
        QVERIFY2(ready, qPrintable(error));
        QVERIFY2(ready->document_tokens > 4096, qPrintable(QString::number(ready->document_tokens)));
        QCOMPARE(ready->run_context, 0);

        // And a short one again after it: short factors again.
        ready = read_document(worker, "The dog is called Pip.", &error);
        QVERIFY2(ready, qPrintable(error));
        QCOMPARE(ready->run_context, 4096);
    }

    void a_question_past_the_short_context_reads_the_document_again_at_the_models() {
        EngineWorker worker;
        if (!QFileInfo::exists(test::fixtures_dir() + "/modelzoo/phi35-tiny/phi35-tiny-F16.gguf"))
            QSKIP("fixture modelzoo/phi35-tiny is absent; skipping");
        QVERIFY(load(worker, "phi35-tiny/phi35-tiny-F16.gguf"));
        QString error;
        auto ready = read_document(worker, words(400), &error);  // fits 4096 with room for a short question
        QVERIFY2(ready, qPrintable(error));
        QCOMPARE(ready->run_context, 4096);

        std::optional<DocumentReady> reread;
        connect(&worker, &EngineWorker::documentLoaded, [&](const DocumentReady& r) { reread = r; });
        bool finished = false;
        QString failed;
        connect(&worker, &EngineWorker::answerFinished, [&] { finished = true; });
        connect(&worker, &EngineWorker::answerFailed, [&](quint64, const QString& m) { failed = m; });
        AskRequest request;
        request.id = 7;
        request.question =
            QString::fromStdString("Which number? " + words(300));  // past 4096 with the document
        request.generation.max_new_tokens = 4;
        worker.ask(request);
        QVERIFY2(finished, qPrintable(failed));
        QVERIFY(reread);
        QCOMPARE(reread->run_context, 0);
    }

    void a_model_without_longrope_keeps_its_context() {
        EngineWorker worker;
        if (!QFileInfo::exists(test::fixtures_dir() + "/modelzoo/qwen25-tiny/qwen25-tiny-F16.gguf"))
            QSKIP("fixture modelzoo/qwen25-tiny is absent; skipping");
        QVERIFY(load(worker, "qwen25-tiny/qwen25-tiny-F16.gguf"));
        QString error;
        const auto ready = read_document(worker, "Ada keeps the lighthouse.", &error);
        QVERIFY2(ready, qPrintable(error));
        QCOMPARE(ready->run_context, 0);
    }
};

QTEST_GUILESS_MAIN(TestEngineWorkerRunContext)
#include "test_engine_worker_run_context.moc"
