#include "ui/main/model_controller.h"

#include "ui/dialogs/dialog_provider.h"
#include "ui/widgets/sentence_case.h"
#include "ui/worker/engine_host.h"

namespace snapdoc::ui {

ModelController::ModelController(EngineHost& engine, DialogProvider& dialogs, QWidget* dialog_parent,
                                 QObject* parent)
    : QObject(parent), engine_(engine), dialogs_(dialogs), dialog_parent_(dialog_parent) {
    EngineWorker* w = engine_.worker();
    connect(w, &EngineWorker::modelInspected, this, [this](const ModelInfo& info) {
        if (info.path != pending_) return;
        if (!info.tokenizer_error.isEmpty()) {
            pending_.clear();
            const QString msg = tr("%1 cannot be used for chat: %2").arg(info.path, info.tokenizer_error);
            dialogs_.show_error(dialog_parent_, tr("Cannot use this model"), sentence_case(msg));
            emit failed(info.path, msg);
            return;
        }
        if (confirm_ && !dialogs_.confirm_model(dialog_parent_, info)) {
            pending_.clear();
            emit failed(info.path, QString());  // cancelled by the user: no message
            return;
        }
        loading_stage_ = true;
        engine_.post([path = info.path, options = options_](EngineWorker& w) { w.loadModel(path, options); });
    });
    connect(w, &EngineWorker::modelLoaded, this, [this](const ModelInfo& info) {
        pending_.clear();
        loading_stage_ = false;
        info_ = info;
        emit loaded(info);
    });
    connect(w, &EngineWorker::modelFailed, this, [this](const QString& path, const QString& message) {
        pending_.clear();
        if (loading_stage_) info_.reset();  // loadModel drops the previous model before it starts
        loading_stage_ = false;
        dialogs_.show_error(dialog_parent_,
                            path.startsWith(QLatin1String("remote://")) ? tr("Cannot use the remote engine")
                                                                        : tr("Cannot open model"),
                            sentence_case(message));
        emit failed(path, message);
    });
}

void ModelController::open(const QString& path, bool confirm, const ModelLoadOptions& options) {
    pending_ = path;
    loading_stage_ = false;
    confirm_ = confirm;
    options_ = options;
    emit loadingStarted(path);
    engine_.post([path](EngineWorker& w) { w.inspectModel(path); });
}

}  // namespace snapdoc::ui

namespace snapdoc::ui {

void ModelController::open_remote(const services::ConnectionSettings& connection) {
    pending_ = QStringLiteral("remote://%1/%2")
                   .arg(QString::fromStdString(connection.name), QString::fromStdString(connection.model));
    loading_stage_ = true;  // the worker drops the local model before it asks the server
    confirm_ = false;
    emit loadingStarted(pending_);
    engine_.post([connection](EngineWorker& w) { w.useRemote(connection); });
}

}  // namespace snapdoc::ui
