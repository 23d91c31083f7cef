// snapdoc: the desktop app. Command line:
//   snapdoc [FILE...]                       open documents / a model (.gguf or a Hugging Face folder)
//   snapdoc --model M --doc D               load a model and a document at start (M may be "demo":
//                                           the bundled demo model); without them a start restores
//                                           the last model, document and conversation (a first
//                                           start: the bundled demo model)
//   snapdoc --screenshot OUT.png [--model M] [--doc D] [--ask Q]... [--screenshot-get-models]
//                                           drive the window, save a PNG, exit (works offscreen); it
//                                           uses a throw-away library unless --data-dir, SNAPDOC_DATA_DIR
//                                           or --screenshot-library says otherwise, and prints any error
//                                           a dialog would show, then exits
//   --data-dir DIR                          keep the library and log in DIR instead of the XDG dirs
//   --ignore-context                        allow prompts past the model's context (this run only)
//   --log-level LEVEL                       stderr log level (trace..off); the log file gets info
#include <spdlog/spdlog.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QMessageBox>
#include <QTemporaryDir>
#include <cstdio>
#include <memory>

#include "app/common/resource_paths.h"
#include "app/services/app_paths.h"
#include "app/services/library_store.h"
#include "app/services/log_setup.h"
#include "app/services/third_party_messages.h"
#include "engine/common/mapped_regions.h"
#include "engine/common/process_exit.h"
#include "engine/runtime/gpu_self_check.h"
#include "ui/main/document_controller.h"
#include "ui/main/main_window.h"
#include "ui/main/screenshot_runner.h"

namespace {

bool is_model_path(const QString& path) {
    const QFileInfo fi(path);
    return (fi.isFile() && fi.suffix().compare("gguf", Qt::CaseInsensitive) == 0) ||
           (fi.isDir() && QFileInfo::exists(path + "/config.json"));
}

int fatal(bool gui, const QString& message) {
    std::fprintf(stderr, "snapdoc: %s\n", qPrintable(message));
    if (gui) QMessageBox::critical(nullptr, QObject::tr("snapdoc cannot start"), message);
    return 1;
}

}  // namespace

int run_app(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("snapdoc");
    QApplication::setApplicationVersion(SNAPDOC_VERSION);
    // The desktop entry's name (packaging/io.github.snapdoc.snapdoc.desktop): Wayland matches windows to it.
    QApplication::setDesktopFileName("io.github.snapdoc.snapdoc");

    QCommandLineParser cli;
    cli.setApplicationDescription(
        "Chat with long documents; SnapKV-compressed KV cache with a per-head inspector.");
    cli.addHelpOption();
    cli.addVersionOption();
    const QCommandLineOption model_opt("model",
                                       "Model to load at start (.gguf file, Hugging Face folder, or demo: the "
                                       "bundled demo model). Without it the last model is loaded again.",
                                       "path");
    const QCommandLineOption doc_opt("doc", "Document to open at start (.txt .md .html .pdf).", "file");
    const QCommandLineOption shot_opt(
        "screenshot", "Save a PNG of the window after the other steps, then exit.", "file.png");
    const QCommandLineOption ask_opt("ask", "Question to ask once the document is loaded (repeatable).",
                                     "question");
    const QCommandLineOption data_opt("data-dir", "Directory for the library database and the log.", "dir");
    const QCommandLineOption ignore_opt("ignore-context",
                                        "Allow prompts longer than the model's context (this run).");
    const QCommandLineOption log_opt("log-level", "stderr log level: trace, debug, info, warn, error, off.",
                                     "level");
    const QCommandLineOption timeout_opt(
        "timeout", "Screenshot mode: give up after this many seconds (default 300).", "seconds", "300");
    const QCommandLineOption budget_opt(
        "budget", "SnapKV budget (positions kept per head) for this run; the saved setting is kept.", "positions");
    const QCommandLineOption shot_library_opt(
        "screenshot-library",
        "Screenshot mode: use the normal library (its documents, settings, window size) instead of a throw-away one.");
    const QCommandLineOption shot_get_models_opt(
        "screenshot-get-models",
        "Screenshot mode: capture the Get models window (fit for --doc, or 100K tokens) instead of the main window.");
    const QCommandLineOption gpu_check_opt(
        "gpu-self-check", "Check the CUDA GPU against the CPU again at the next model load (docs/gpu-self-check.md).");
    cli.addOptions({model_opt, doc_opt, shot_opt, ask_opt, data_opt, ignore_opt, budget_opt, log_opt, timeout_opt,
                    shot_library_opt, shot_get_models_opt, gpu_check_opt});
    cli.addPositionalArgument("files", "Documents or a model to open.", "[file...]");
    cli.process(app);
    const bool screenshot = cli.isSet(shot_opt);
    // A CUDA device is trusted only after it matched the CPU on the loaded model (the verdict is
    // remembered in $XDG_CACHE_HOME/snapdoc; the engine worker reports it to the window).
    snapdoc::set_gpu_self_check_settings({true, cli.isSet(gpu_check_opt), {}});

    // A screenshot run opens documents, asks questions and resizes the window: in the user's own
    // library that would leave its question and geometry behind. It gets a folder of its own that
    // goes away with it, unless a data folder is named or the flag asks for the normal one.
    std::unique_ptr<QTemporaryDir> throwaway;
    QString data_dir = cli.value(data_opt);
    if (screenshot && data_dir.isEmpty() && qEnvironmentVariableIsEmpty("SNAPDOC_DATA_DIR") &&
        !cli.isSet(shot_library_opt)) {
        throwaway = std::make_unique<QTemporaryDir>();
        if (!throwaway->isValid())
            return fatal(false, QObject::tr("cannot create a temporary data folder: %1").arg(throwaway->errorString()));
        data_dir = throwaway->path();
    }

    std::unique_ptr<snapdoc::services::LibraryStore> store;
    QString kv_cache_dir;
    try {
        const auto paths = snapdoc::services::resolve_app_paths(data_dir);
        kv_cache_dir = paths.kv_cache_dir;
        snapdoc::services::init_app_logging(paths.log_file().toStdString(), cli.value(log_opt).toStdString());
        snapdoc::services::route_qt_messages_to_log();
        spdlog::info("snapdoc {} starting; data in {}", SNAPDOC_VERSION, paths.data_dir.toStdString());
        store = std::make_unique<snapdoc::services::LibraryStore>(paths.database_file().toStdString());
    } catch (const std::exception& e) {
        return fatal(!screenshot, QString::fromStdString(e.what()));
    }

    // Unattended, an error box would only wait for a click until the timeout: it is printed instead.
    snapdoc::ui::ScreenshotDialogs* shot_dialogs = nullptr;
    std::unique_ptr<snapdoc::ui::DialogProvider> dialogs;
    if (screenshot) {
        auto d = std::make_unique<snapdoc::ui::ScreenshotDialogs>();
        shot_dialogs = d.get();
        dialogs = std::move(d);
    }
    snapdoc::ui::MainWindow window(*store, std::move(dialogs));
    window.set_kv_cache_dir(kv_cache_dir);
    if (cli.isSet(ignore_opt)) window.set_ignore_context_for_session();
    if (cli.isSet(budget_opt)) {
        bool ok = false;
        const int budget = cli.value(budget_opt).toInt(&ok);
        if (!ok || budget < 2)
            return fatal(!screenshot, QObject::tr("--budget expects a whole number of positions per head (at least "
                                                  "2), got '%1'")
                                          .arg(cli.value(budget_opt)));
        window.set_budget_for_session(budget);
    }

    QString model = cli.value(model_opt), doc = cli.value(doc_opt);
    for (const QString& f : cli.positionalArguments()) (is_model_path(f) ? model : doc) = f;
    // "--model demo" names the bundled demo model. Without a model a plain start (the desktop
    // entry) restores the last one, or opens the bundled one (MainWindow::start).
    try {
        if (!model.isEmpty())
            model = QString::fromStdString(snapdoc::resolve_model_spec(model.toStdString()).string());
    } catch (const std::exception& e) {
        return fatal(!screenshot, QString::fromStdString(e.what()));
    }

    if (screenshot) {
        snapdoc::ui::ScreenshotOptions o;
        o.output = cli.value(shot_opt);
        o.model = model;
        o.document = doc;
        o.questions = cli.values(ask_opt);
        o.timeout_seconds = std::max(1, cli.value(timeout_opt).toInt());
        o.get_models = cli.isSet(shot_get_models_opt);
        auto* runner = new snapdoc::ui::ScreenshotRunner(window, o, &window);
        shot_dialogs->on_error = [runner](const QString& title, const QString& text) { runner->modal_error(title, text); };
        QObject::connect(runner, &snapdoc::ui::ScreenshotRunner::finished, &app,
                         [](int code) { QApplication::exit(code); });
        window.show();
        runner->start();
        return app.exec();
    }

    window.show();
    // What the command line names, else the last session's model, document and conversation.
    window.start(model, doc);
    if (!cli.value(ask_opt).isEmpty()) {
        // Asked once the document is ready.
        auto question = cli.value(ask_opt);
        QObject::connect(
            &window.documents(), &snapdoc::ui::DocumentController::documentReady, &window,
            [&window, question] { window.ask(question); }, Qt::SingleShotConnection);
    }
    return app.exec();
}

int main(int argc, char** argv) {
    snapdoc::ignore_file_size_signal();  // a write past ulimit -f is an error, not death (process_exit.h)
    snapdoc::install_sigbus_report("snapdoc");  // a mapped file truncated in use: named, not "Bus error"
    // The window, the library and the engine thread are gone when run_app returns; the process
    // then leaves without OpenBLAS's exit-time thread join (it hangs under ulimit -v; see
    // engine/common/process_exit.h).
    snapdoc::exit_after_flush(run_app(argc, argv));
}
