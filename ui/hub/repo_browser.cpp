#include "ui/hub/repo_browser.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

#include "app/hub/hub_page_url.h"
#include "app/hub/listed_fit.h"
#include "app/hub/remote_gguf_shape.h"
#include "ui/hub/catalogue_table_model.h"
#include "engine/common/error.h"
#include "ui/hub/hub_error_words.h"
#include "engine/model/model_summary.h"
#include "ui/hub/choice_table.h"

namespace snapdoc::ui {

RepoBrowser::RepoBrowser(QWidget* parent) : QWidget(parent), watcher_(new QFutureWatcher<Listing>(this)) {
    setObjectName("repoBrowser");
    repo_edit_ = new QLineEdit(this);
    repo_edit_->setObjectName("hubRepoEdit");
    repo_edit_->setPlaceholderText(tr("owner/name, e.g. bartowski/Meta-Llama-3.1-8B-Instruct-GGUF"));
    list_button_ = new QPushButton(tr("List files"), this);
    list_button_->setObjectName("listRepoButton");
    download_button_ = new QPushButton(tr("Download"), this);
    download_button_->setObjectName("downloadRepoFileButton");
    download_button_->setEnabled(false);
    table_ = make_choice_table(this, "repoFilesTable",
                               {tr("Quantization"), tr("Size"), tr("Files"), tr("Fit"), tr("First file")});
    status_ = new QLabel(this);
    status_->setObjectName("repoStatusLabel");
    status_->setWordWrap(true);

    connect(list_button_, &QPushButton::clicked, this, [this] { list(repo_edit_->text().trimmed()); });
    connect(repo_edit_, &QLineEdit::returnPressed, list_button_, &QPushButton::click);
    connect(table_, &QTableWidget::itemSelectionChanged, this, [this] {
        const int row = table_->currentRow();
        download_button_->setEnabled(row >= 0 && row < static_cast<int>(choices_.size()) &&
                                     choices_[static_cast<std::size_t>(row)].complete);
    });
    connect(download_button_, &QPushButton::clicked, this, [this] {
        const int row = table_->currentRow();
        if (row < 0 || row >= static_cast<int>(choices_.size())) return;
        emit downloadRequested(
            QString::fromStdString(listed_repo_),
            QString::fromUtf8(hub::kDefaultRevision.data(), static_cast<int>(hub::kDefaultRevision.size())),
            choices_[static_cast<std::size_t>(row)]);
    });
    connect(watcher_, &QFutureWatcher<Listing>::finished, this, [this] { show_listing(watcher_->result()); });

    auto* row = new QHBoxLayout;
    row->addWidget(repo_edit_, 1);
    row->addWidget(list_button_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(row);
    layout->addWidget(table_, 1);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(status_, 1);
    bottom->addWidget(download_button_);
    layout->addLayout(bottom);
}

RepoBrowser::~RepoBrowser() {
    if (cancel_) cancel_->store(true);
    watcher_->waitForFinished();  // the request ends within ~100 ms of the cancel
}

void RepoBrowser::list(const QString& text) {
    QString repo = text;
    if (cancel_) cancel_->store(true);
    watcher_->waitForFinished();
    try {
        // A page address pasted from the browser names its repository (a file page too).
        if (hub::is_hub_page_url(text.toStdString()))
            repo = QString::fromStdString(hub::parse_hub_page_url(text.toStdString()).repo);
        hub::check_repo_id(repo.toStdString());
        repo_edit_->setText(repo);
    } catch (const Error& e) {
        repo_edit_->setText(text);
        status_->setText(QString::fromStdString(e.what()));
        emit listFailed(status_->text());
        return;
    }
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    status_->setText(tr("Listing %1…").arg(repo));
    table_->setRowCount(0);
    choices_.clear();
    download_button_->setEnabled(false);
    // The listing is a blocking HTTP request: it runs on the thread pool and comes back by value.
    shape_.reset();
    shape_error_.clear();
    fits_.clear();
    watcher_->setFuture(QtConcurrent::run([endpoint = endpoint_, repo = repo.toStdString(),
                                           cancel = cancel_, machine = machine_] {
        Listing l;
        l.repo = repo;
        try {
            l.choices =
                hub::gguf_choices(hub::fetch_repo_tree(endpoint, repo, hub::kDefaultRevision, cancel.get()));
        } catch (const std::exception& e) {
            l.error = e.what();
            return l;
        }
        // The fit needs the model's shape: one header (every quantization shares it), a few MiB of
        // range requests. Without it the files are still listed and downloadable.
        if (const int source = hub::shape_source_choice(l.choices); source >= 0) {
            const hub::RemoteFile& file = l.choices[static_cast<std::size_t>(source)].files.front();
            try {
                l.shape = hub::fetch_gguf_shape(endpoint, repo, std::string(hub::kDefaultRevision), file.path,
                                                file.size_bytes, cancel.get());
                l.machine = machine ? *machine : hub::this_machine();
            } catch (const std::exception& e) {  // Cancelled too (a newer listing replaced this one)
                l.shape_error = e.what();
            }
        }
        return l;
    }));
}

void RepoBrowser::show_listing(const Listing& l) {
    if (!l.error.empty()) {
        status_->setText(hub_error_in_words(QString::fromStdString(l.error)));
        emit listFailed(status_->text());
        return;
    }
    listed_repo_ = l.repo;
    choices_ = l.choices;
    shape_ = l.shape;
    shape_error_ = l.shape_error;
    measured_machine_ = l.machine;
    table_->setRowCount(static_cast<int>(choices_.size()));
    for (int i = 0; i < static_cast<int>(choices_.size()); ++i) {
        const hub::GgufChoice& c = choices_[static_cast<std::size_t>(i)];
        const auto set = [&](int col, const QString& text) {
            table_->setItem(i, col, new QTableWidgetItem(text));
        };
        set(QuantColumn, c.quant.empty() ? tr("(unknown)") : QString::fromStdString(c.quant));
        set(SizeColumn, QString::fromStdString(format_bytes(c.total_bytes())));
        set(FilesColumn, c.complete ? QString::number(c.files.size()) : tr("%1 (shards missing)").arg(c.files.size()));
        set(FirstFileColumn, QString::fromStdString(c.first_path()));
    }
    show_fits();
    QString status = choices_.empty()
                         ? tr("%1 has no GGUF files.").arg(QString::fromStdString(l.repo))
                         : tr("%n GGUF choice(s) in %1.", nullptr, static_cast<int>(choices_.size()))
                               .arg(QString::fromStdString(l.repo));
    if (!choices_.empty() && !shape_)
        status += " " + tr("No fit estimate: %1").arg(l.shape_error.empty()
                                                          ? tr("no complete file to read the model's shape from.")
                                                          : hub_error_in_words(QString::fromStdString(l.shape_error)));
    status_->setText(status);
    emit listed(static_cast<int>(choices_.size()));
}

void RepoBrowser::set_fit_inputs(std::optional<hub::MachineMemory> machine, const hub::FitOptions& options) {
    machine_ = machine;
    fit_options_ = options;
    show_fits();
}

void RepoBrowser::show_fits() {
    fits_.clear();
    if (shape_ && !choices_.empty())
        fits_ = hub::estimate_listed_choices(listed_repo_, *shape_, choices_, machine_ ? *machine_ : measured_machine_,
                                             fit_options_);
    for (int i = 0; i < table_->rowCount(); ++i) {
        if (i >= static_cast<int>(fits_.size())) {  // no shape: say so where the badge would be
            auto* item = new QTableWidgetItem(tr("unknown"));
            item->setToolTip(shape_error_.empty() ? tr("The model's shape could not be read.")
                                                  : QString::fromStdString(shape_error_));
            table_->setItem(i, FitColumn, item);
            continue;
        }
        const hub::FitEstimate& f = fits_[static_cast<std::size_t>(i)];
        auto* item = new QTableWidgetItem(badge_label(f.badge));
        item->setBackground(badge_color(f.badge));
        item->setToolTip(QString::fromStdString(f.reason));
        table_->setItem(i, FitColumn, item);
    }
    table_->resizeColumnsToContents();
}

}  // namespace snapdoc::ui
