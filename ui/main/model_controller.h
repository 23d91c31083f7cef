// Opening a model: inspect it on the engine thread (cheap: the weights are only mapped), show its
// facts for confirmation, then load it (tokenizer + backend). Failures end in an error dialog.
#pragma once

#include <QObject>
#include <QString>
#include <optional>

#include "ui/worker/worker_types.h"

class QWidget;

namespace snapdoc::ui {

class DialogProvider;
class EngineHost;

class ModelController : public QObject {
    Q_OBJECT
public:
    ModelController(EngineHost& engine, DialogProvider& dialogs, QWidget* dialog_parent,
                    QObject* parent = nullptr);

    // confirm=false loads without showing the facts first (command line, tests).
    void open(const QString& path, bool confirm, const ModelLoadOptions& options);
    // Answers with a remote engine (a Settings > Connections entry): discovered on the engine
    // thread, then `loaded` with ModelInfo::remote_engine set, or an error dialog and `failed`.
    void open_remote(const services::ConnectionSettings& connection);
    bool loading() const { return !pending_.isEmpty(); }
    const std::optional<ModelInfo>& info() const { return info_; }

signals:
    void loadingStarted(const QString& path);
    void loaded(const snapdoc::ui::ModelInfo& info);
    void failed(const QString& path, const QString& message);

private:
    EngineHost& engine_;
    DialogProvider& dialogs_;
    QWidget* dialog_parent_;
    QString pending_;  // path being inspected or loaded
    bool confirm_ = true;
    bool loading_stage_ = false;  // past inspection: the worker has dropped the previous model
    ModelLoadOptions options_;
    std::optional<ModelInfo> info_;
};

}  // namespace snapdoc::ui
