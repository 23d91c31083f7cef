#include "ui/main/server_log_window.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "ui/main/local_server_controller.h"
#include "ui/widgets/screen_fit.h"

namespace snapdoc::ui {

ServerLogWindow::ServerLogWindow(LocalServerController& server, QWidget* parent)
    : QDialog(parent), view_(new QPlainTextEdit(this)) {
    setObjectName("serverLogWindow");
    setWindowTitle(tr("Local Server Log"));
    view_->setObjectName("serverLogView");
    view_->setReadOnly(true);
    view_->setLineWrapMode(QPlainTextEdit::NoWrap);
    view_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    // The same cap as the kept lines: the view drops its oldest blocks itself.
    view_->setMaximumBlockCount(ServerActivity::kMaxLines);
    view_->setPlainText(server.activity().text());
    connect(&server, &LocalServerController::logLine, view_, &QPlainTextEdit::appendPlainText);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* copy = buttons->addButton(tr("&Copy All"), QDialogButtonBox::ActionRole);
    copy->setObjectName("serverLogCopyButton");
    connect(copy, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(view_->toPlainText()); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(view_);
    layout->addWidget(buttons);
    open_on_screen(*this, {900, 500});  // bounded by a small screen, as every window is
}

}  // namespace snapdoc::ui
