#include "ui/library/library_panel.h"

#include <QAction>
#include <QMenu>
#include <QFrame>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QTimer>
#include <QLabel>
#include <QListView>
#include <QPushButton>
#include <QVBoxLayout>

#include "ui/models/library_model.h"

namespace snapdoc::ui {

LibraryPanel::LibraryPanel(LibraryModel* model, QWidget* parent) : QWidget(parent), model_(model) {
    setObjectName("libraryPanel");
    model_title_ = new QLabel(tr("No model"), this);
    model_title_->setObjectName("modelTitle");
    QFont bold = model_title_->font();
    bold.setBold(true);
    model_title_->setFont(bold);
    model_title_->setWordWrap(true);
    model_details_ = new QLabel(tr("Open a .gguf file or a Hugging Face folder."), this);
    model_details_->setObjectName("modelDetails");
    model_details_->setWordWrap(true);
    auto* open_model = new QPushButton(tr("Open model…"), this);
    open_model->setObjectName("openModelButton");
    auto* get_models = new QPushButton(tr("Get models…"), this);
    get_models->setObjectName("getModelsButton");
    get_models->setToolTip(tr("Download a model from the Hugging Face hub, with what fits this machine"));

    // First run: say plainly what the bundled model can do, and where a real one comes from.
    first_run_ = new QFrame(this);
    first_run_->setObjectName("firstRunNotice");
    static_cast<QFrame*>(first_run_)->setFrameShape(QFrame::StyledPanel);
    first_run_->setStyleSheet("#firstRunNotice { background: #fff7dc; }");
    auto* notice = new QLabel(tr("<b>The bundled model is a demo.</b> It only answers questions about its own "
                                 "sample reports (\"What is the X of Y?\"); on your documents it echoes. "
                                 "Get a real model for them:"),
                              first_run_);
    notice->setObjectName("firstRunText");
    notice->setWordWrap(true);
    auto* notice_button = new QPushButton(tr("Get models…"), first_run_);
    notice_button->setObjectName("firstRunGetModelsButton");
    auto* fl = new QVBoxLayout(first_run_);
    fl->addWidget(notice);
    fl->addWidget(notice_button);

    list_ = new QListView(this);
    list_->setObjectName("libraryView");
    list_->setModel(model);
    list_->setWordWrap(true);
    list_->setUniformItemSizes(false);
    list_->setSpacing(2);
    list_->setAlternatingRowColors(true);
    // A right-click opens the item's menu (Open, Remove) and leaves the highlight on the open
    // document: it used to move the highlight without opening, so the next question went to a
    // document other than the one highlighted (issue 37).
    list_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(list_, &QWidget::customContextMenuRequested, this, &LibraryPanel::show_item_menu);
    remove_ = new QAction(tr("Remove from library"), list_);
    list_->addAction(remove_);
    auto* open_doc = new QPushButton(tr("Open document…"), this);
    open_doc->setObjectName("openDocumentButton");

    auto* model_box = new QGroupBox(tr("Model"), this);
    auto* mb = new QVBoxLayout(model_box);
    mb->addWidget(model_title_);
    mb->addWidget(model_details_);
    // One above the other: side by side they set the panel's minimum width, and the window must
    // fit 1024 px (issue 23).
    mb->addWidget(open_model);
    mb->addWidget(get_models);
    auto* docs_box = new QGroupBox(tr("Library"), this);
    auto* db = new QVBoxLayout(docs_box);
    db->addWidget(list_, 1);
    db->addWidget(open_doc);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(first_run_);
    layout->addWidget(model_box);
    layout->addWidget(docs_box, 1);

    // The library is reset whenever a document changes (token count, opened time); keep the shown
    // document selected across resets. While an arrow key's move waits to open its row, that row
    // stays the current one: a reset then (the reading just opened becoming ready) used to put the
    // highlight back on the open document, and the move never opened anything.
    connect(model_, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
        const QModelIndex i = list_->currentIndex();
        moving_to_ = key_timer_->isActive() && i.isValid() ? i.data(LibraryModel::IdRole).toLongLong() : -1;
    });
    connect(model_, &QAbstractItemModel::modelReset, this, [this] {
        const int row = moving_to_ >= 0 ? model_->row_of(moving_to_) : -1;
        if (row < 0) return select_document(selected_);
        list_->setCurrentIndex(model_->index(row));
    });
    connect(open_model, &QPushButton::clicked, this, &LibraryPanel::openModelRequested);
    connect(get_models, &QPushButton::clicked, this, &LibraryPanel::getModelsRequested);
    connect(notice_button, &QPushButton::clicked, this, &LibraryPanel::getModelsRequested);
    connect(open_doc, &QPushButton::clicked, this, &LibraryPanel::openDocumentRequested);
    connect(list_, &QListView::activated, this, [this](const QModelIndex& i) {
        emit documentActivated(i.data(LibraryModel::IdRole).toLongLong());
    });
    connect(list_, &QListView::clicked, this, [this](const QModelIndex& i) {
        emit documentActivated(i.data(LibraryModel::IdRole).toLongLong());
    });
    // Arrow keys open the document they move to (they used to move the highlight away from the open
    // one): after a short pause, so holding a key does not start a reading per row.
    key_timer_ = new QTimer(this);
    key_timer_->setSingleShot(true);
    key_timer_->setInterval(250);
    connect(key_timer_, &QTimer::timeout, this, [this] {
        const QModelIndex i = list_->currentIndex();
        if (i.isValid() && i.data(LibraryModel::IdRole).toLongLong() != selected_)
            emit documentActivated(i.data(LibraryModel::IdRole).toLongLong());
    });
    list_->installEventFilter(this);
    connect(remove_, &QAction::triggered, this, [this] {
        if (menu_target_ >= 0) return emit removeDocumentRequested(menu_target_);
        const QModelIndex i = list_->currentIndex();
        if (i.isValid()) emit removeDocumentRequested(i.data(LibraryModel::IdRole).toLongLong());
    });
}

void LibraryPanel::show_item_menu(const QPoint& at) {
    const QModelIndex i = list_->indexAt(at);
    select_document(selected_);  // the right-press moved the highlight: back to the open document
    if (!i.isValid()) return;
    const int64_t id = i.data(LibraryModel::IdRole).toLongLong();
    QMenu menu(list_);
    menu.setObjectName("libraryItemMenu");
    QAction* open = menu.addAction(tr("Open"), this, [this, id] { emit documentActivated(id); });
    open->setEnabled(id != selected_);
    menu.addAction(remove_);
    menu_target_ = id;  // what Remove acts on while the menu is open
    menu.exec(list_->viewport()->mapToGlobal(at));
    menu_target_ = -1;
}

bool LibraryPanel::eventFilter(QObject* watched, QEvent* event) {
    if (watched == list_ && event->type() == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent*>(event)->key();
        if (key == Qt::Key_Up || key == Qt::Key_Down || key == Qt::Key_PageUp || key == Qt::Key_PageDown ||
            key == Qt::Key_Home || key == Qt::Key_End)
            key_timer_->start();
    }
    return QWidget::eventFilter(watched, event);
}

void LibraryPanel::set_model_text(const QString& title, const QString& details) {
    model_title_->setText(title);
    model_details_->setText(details);
}

QString LibraryPanel::model_title() const {
    return model_title_->text();
}

void LibraryPanel::select_document(int64_t id) {
    selected_ = id;
    const int row = model_->row_of(id);
    if (row >= 0)
        list_->setCurrentIndex(model_->index(row));
    else
        list_->clearSelection();
}

void LibraryPanel::set_first_run_notice(bool shown) { first_run_->setVisible(shown); }

bool LibraryPanel::first_run_notice_shown() const { return !first_run_->isHidden(); }

}  // namespace snapdoc::ui
