// MainWindow and its local OpenAI-compatible server: the controller that runs snapdoc-server for the
// loaded model, its state, request count and activity in permanent status-bar labels, and its log
// window.
#include <QLabel>
#include <QStatusBar>

#include "ui/main/local_server_controller.h"
#include "ui/main/main_window.h"
#include "ui/main/model_controller.h"
#include "ui/main/server_log_window.h"
#include "ui/widgets/number_format.h"

namespace snapdoc::ui {

void MainWindow::connect_local_server() {
    local_server_ = new LocalServerController(this);
    auto* label = new QLabel(this);
    label->setObjectName("localServerStatusLabel");
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);  // the address can be copied
    label->setToolTip(tr("The app's OpenAI-compatible server (Settings: Local server)"));
    label->hide();  // shown only while there is something to say
    statusBar()->addPermanentWidget(label);
    connect(local_server_, &LocalServerController::statusChanged, label, [this, label](const QString& text) {
        label->setText(text);
        label->setVisible(!text.isEmpty());
        update_server_activity();
    });
    server_activity_label_ = new QLabel(this);
    server_activity_label_->setObjectName("localServerActivityLabel");
    server_activity_label_->setToolTip(
        tr("Requests the local server answered, and what it is doing now "
           "(Settings > Local Server Log shows its log)"));
    server_activity_label_->hide();
    statusBar()->addPermanentWidget(server_activity_label_);
    connect(local_server_, &LocalServerController::activityChanged, this,
            &MainWindow::update_server_activity);
}

void MainWindow::update_server_activity() {
    // Only while it listens: before that there is nothing to count, after it the status says why.
    const bool shown = local_server_->running() && !local_server_->address().isEmpty();
    const ServerActivity& a = local_server_->activity();
    const QString count = a.request_count() == 1
                              ? tr("1 request")
                              : tr("%1 requests").arg(with_commas(a.request_count()));
    server_activity_label_->setText(count + QStringLiteral(" · ") + a.activity());
    server_activity_label_->setVisible(shown);
}

void MainWindow::show_server_log() {
    if (!server_log_window_) server_log_window_ = new ServerLogWindow(*local_server_, this);
    server_log_window_->show();
    server_log_window_->raise();
    server_log_window_->activateWindow();
}

void MainWindow::apply_local_server_settings() {
    const auto& info = model_controller_->info();
    // A remote engine is not a model file the local server could serve.
    local_server_->apply(settings_.local_server, settings_.generation, info && !info->remote() ? info->path : QString(),
                         kv_cache_dir_);
}

}  // namespace snapdoc::ui
