// MainWindow and the GPU self-check (engine/runtime/gpu_self_check.h): what the user sees when the
// CUDA device was not trusted with the model.
#include <QLabel>
#include <QStatusBar>

#include "ui/main/main_window.h"

namespace snapdoc::ui {

// The GPU self-check's outcome for the loaded model: a permanent label only when the GPU was not
// trusted (the model runs on the CPU instead), so the user knows why it is slow; the full sentence
// (device, failing step) is its tooltip and in Settings > Device.
void MainWindow::show_gpu_check(const QString& message, bool fell_back) {
    if (!gpu_check_label_) {
        gpu_check_label_ = new QLabel(this);
        gpu_check_label_->setObjectName("gpuCheckStatusLabel");
        gpu_check_label_->hide();
        statusBar()->addPermanentWidget(gpu_check_label_);
    }
    // show_model_text runs on every library change: the transient message only for a new verdict.
    const bool fresh = gpu_check_label_->toolTip() != message;
    gpu_check_label_->setText(fell_back ? tr("On the CPU: the GPU failed its self-check") : QString());
    gpu_check_label_->setToolTip(message);
    gpu_check_label_->setVisible(fell_back);
    if (fell_back && fresh) statusBar()->showMessage(message, 15000);
}

}  // namespace snapdoc::ui
