#include "ui/hub/local_models_list.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "engine/model/model_summary.h"
#include "ui/dialogs/dialog_provider.h"
#include "ui/hub/choice_table.h"

namespace snapdoc::ui {

LocalModelsList::LocalModelsList(std::filesystem::path models_dir, DialogProvider& dialogs, QWidget* parent)
    : QWidget(parent), store_(std::move(models_dir)), dialogs_(dialogs) {
    setObjectName("localModelsList");
    table_ = make_choice_table(this, "localModelsTable", {tr("Repository"), tr("File"), tr("Size")});
    status_ = new QLabel(this);
    status_->setObjectName("localModelsStatus");
    use_ = new QPushButton(tr("Use this model"), this);
    use_->setObjectName("useLocalModelButton");
    delete_ = new QPushButton(tr("Delete"), this);
    delete_->setObjectName("deleteLocalModelButton");
    connect(use_, &QPushButton::clicked, this, [this] {
        if (const hub::LocalModel* m = selected()) emit useModel(QString::fromStdString(m->path().string()));
    });
    connect(delete_, &QPushButton::clicked, this, [this] {
        const hub::LocalModel* m = selected();
        if (!m) return;
        const QString what = QString::fromStdString(m->repo + " / " + m->file_name());
        QString question = tr("Delete %1 (%2) from the models folder?")
                               .arg(what, QString::fromStdString(format_bytes(m->size_bytes)));
        // Deleting the loaded model used to be asked like any other (issue 37).
        std::error_code ec;
        if (!in_use_.empty() && std::filesystem::equivalent(m->path(), in_use_, ec))
            question += tr("\n\nIt is the model in use. The open chat keeps working until another model is "
                           "loaded; after that it is gone, and a restart loads the bundled model instead.");
        if (!dialogs_.confirm(this, tr("Delete model"), question, tr("Delete"))) return;
        try {
            store_.remove(*m);
        } catch (const std::exception& e) {
            dialogs_.show_error(this, tr("Cannot delete model"), QString::fromStdString(e.what()));
        }
        refresh();
    });
    connect(table_, &QTableWidget::itemSelectionChanged, this, [this] {
        use_->setEnabled(selected() != nullptr);
        delete_->setEnabled(selected() != nullptr);
    });

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(status_, 1);
    buttons->addWidget(use_);
    buttons->addWidget(delete_);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(table_, 1);
    layout->addLayout(buttons);
    refresh();
}

const hub::LocalModel* LocalModelsList::selected() const {
    const int row = table_->currentRow();
    return row >= 0 && row < static_cast<int>(models_.size()) ? &models_[static_cast<std::size_t>(row)]
                                                              : nullptr;
}

void LocalModelsList::refresh() {
    try {
        models_ = store_.list();
    } catch (const std::exception& e) {
        models_.clear();
        status_->setText(QString::fromStdString(e.what()));
    }
    table_->setRowCount(static_cast<int>(models_.size()));
    int64_t total = 0;
    for (int i = 0; i < static_cast<int>(models_.size()); ++i) {
        const hub::LocalModel& m = models_[static_cast<std::size_t>(i)];
        total += m.size_bytes;
        table_->setItem(i, 0, new QTableWidgetItem(QString::fromStdString(m.repo)));
        table_->setItem(
            i, 1,
            new QTableWidgetItem(QString::fromStdString(m.file_name()) +
                                 (m.files.size() > 1 ? tr(" (%1 files)").arg(m.files.size()) : QString())));
        table_->setItem(i, 2, new QTableWidgetItem(QString::fromStdString(format_bytes(m.size_bytes))));
    }
    table_->resizeColumnsToContents();
    if (!models_.empty()) table_->selectRow(0);
    use_->setEnabled(selected() != nullptr);
    delete_->setEnabled(selected() != nullptr);
    QString text =
        models_.empty()
            ? tr("No downloaded models yet (%1).").arg(QString::fromStdString(store_.dir().string()))
            : tr("%n model(s), %1 in %2", nullptr, static_cast<int>(models_.size()))
                  .arg(QString::fromStdString(format_bytes(total)),
                       QString::fromStdString(store_.dir().string()));
    // Paused or interrupted downloads (also from an earlier run): downloading the same model again
    // resumes them from their .part files.
    if (const int64_t partial = store_.partial_bytes(); partial > 0)
        text += tr(" Unfinished downloads: %1 (download the same model again to resume).")
                    .arg(QString::fromStdString(format_bytes(partial)));
    status_->setText(text);
    emit refreshed();
}

}  // namespace snapdoc::ui
