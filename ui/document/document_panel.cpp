#include "ui/document/document_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/document/document_view.h"

namespace snapdoc::ui {

DocumentPanel::DocumentPanel(QWidget* parent) : QWidget(parent) {
    setObjectName("documentPanel");
    title_ = new QLabel(tr("No document"), this);
    title_->setObjectName("documentTitle");
    QFont f = title_->font();
    f.setPointSizeF(f.pointSizeF() * 1.25);
    f.setBold(true);
    title_->setFont(f);
    title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    facts_ = new QLabel(this);
    facts_->setObjectName("documentFacts");
    facts_->setWordWrap(true);
    facts_->setTextFormat(Qt::RichText);
    page_ = new QLabel(this);
    page_->setObjectName("documentPage");
    progress_ = new QProgressBar(this);
    progress_->setObjectName("documentProgress");
    progress_->setTextVisible(true);
    stop_ = new QPushButton(tr("Stop"), this);
    stop_->setObjectName("documentStopButton");
    view_ = new DocumentView(this);

    auto* head = new QHBoxLayout;
    head->addWidget(title_, 1);
    head->addWidget(page_);
    auto* prog = new QHBoxLayout;
    prog->addWidget(progress_, 1);
    prog->addWidget(stop_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(head);
    layout->addWidget(facts_);
    layout->addLayout(prog);
    layout->addWidget(view_, 1);
    hide_progress();

    connect(stop_, &QPushButton::clicked, this, &DocumentPanel::stopRequested);
    connect(view_->verticalScrollBar(), &QScrollBar::valueChanged, this, &DocumentPanel::update_page);
}

void DocumentPanel::show_document(const QString& title, const QString& text,
                                  const std::vector<int>& page_offsets) {
    title_->setText(title);
    page_offsets_ = page_offsets;
    view_->set_document(text);
    update_page();
}

void DocumentPanel::clear_document() {
    title_->setText(tr("No document"));
    facts_->clear();
    page_offsets_.clear();
    view_->set_document(QString());
    update_page();
}

void DocumentPanel::set_facts(const QString& html) {
    facts_->setText(html);
}
QString DocumentPanel::facts_text() const {
    return facts_->text();
}
QString DocumentPanel::progress_text() const {
    return progress_->format();
}
bool DocumentPanel::progress_visible() const {
    return !progress_->isHidden();
}

void DocumentPanel::show_progress(const QString& text, int value, int maximum) {
    progress_->setRange(0, maximum);
    progress_->setValue(value);
    progress_->setFormat(text);
    progress_->show();
    stop_->show();
}

void DocumentPanel::hide_progress() {
    progress_->hide();
    stop_->hide();
}

void DocumentPanel::update_page() {
    if (page_offsets_.size() < 2) {
        page_->clear();
        return;
    }
    // The page of the first visible character.
    const int offset = view_->cursorForPosition(QPoint(0, 0)).position();
    const auto it = std::upper_bound(page_offsets_.begin(), page_offsets_.end(), offset);
    const int page = static_cast<int>(it - page_offsets_.begin());
    page_->setText(tr("page %1 of %2").arg(std::max(1, page)).arg(page_offsets_.size()));
}

}  // namespace snapdoc::ui
