// MainWindow and its local OpenAI-compatible server: the controller that runs snapdoc-server for the
// loaded model, and its state in a permanent status-bar label.
#include <QLabel>
#include <QStatusBar>

#include "ui/main/local_server_controller.h"
#include "ui/main/main_window.h"
#include "ui/main/model_controller.h"

namespace snapdoc::ui {

void MainWindow::connect_local_server() {
    local_server_ = new LocalServerController(this);
    auto* label = new QLabel(this);
    label->setObjectName("localServerStatusLabel");
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);  // the address can be copied
    label->setToolTip(tr("The app's OpenAI-compatible server (Settings: Local server)"));
    label->hide();  // shown only while there is something to say
    statusBar()->addPermanentWidget(label);
    connect(local_server_, &LocalServerController::statusChanged, label, [label](const QString& text) {
        label->setText(text);
        label->setVisible(!text.isEmpty());
    });
}

void MainWindow::apply_local_server_settings() {
    const auto& info = model_controller_->info();
    local_server_->apply(settings_.local_server, settings_.generation, info ? info->path : QString(),
                         kv_cache_dir_);
}

}  // namespace snapdoc::ui
