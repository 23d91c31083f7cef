#include "ui/dialogs/connections_editor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <set>

namespace snapdoc::ui {

ConnectionsEditor::ConnectionsEditor(QWidget* parent) : QGroupBox(tr("Connections (remote engines)"), parent) {
    setObjectName("connectionsSettingsGroup");
    summary_ = new QLabel(this);
    summary_->setObjectName("connectionsSummaryLabel");
    summary_->setWordWrap(true);
    unfold_ = new QPushButton(tr("Edit…"), this);
    unfold_->setObjectName("editConnectionsButton");
    unfold_->setCheckable(true);
    body_ = new QWidget(this);
    list_ = new QListWidget(this);
    list_->setObjectName("connectionsList");
    list_->setMaximumHeight(80);
    add_ = new QPushButton(tr("Add"), this);
    add_->setObjectName("addConnectionButton");
    remove_ = new QPushButton(tr("Remove"), this);
    remove_->setObjectName("removeConnectionButton");
    name_ = new QLineEdit(this);
    name_->setObjectName("connectionNameEdit");
    url_ = new QLineEdit(this);
    url_->setObjectName("connectionUrlEdit");
    url_->setPlaceholderText(tr("http://gpu-box:8080 (with or without /v1)"));
    key_ = new QLineEdit(this);
    key_->setObjectName("connectionKeyEdit");
    key_->setEchoMode(QLineEdit::Password);
    key_->setPlaceholderText(tr("none"));
    key_->setToolTip(tr("Sent as \"Authorization: Bearer KEY\" to this endpoint only. Stored in plain text in "
                        "your library database, as the Hugging Face token is."));
    ca_cert_ = new QLineEdit(this);
    ca_cert_->setObjectName("connectionCaCertEdit");
    ca_cert_->setPlaceholderText(tr("the system's certificate authorities"));
    ca_cert_->setToolTip(tr("For https://: the PEM file of the CA, or the server's own self-signed certificate."));
    browse_ = new QPushButton(tr("Browse…"), this);
    insecure_ = new QCheckBox(tr("Trust whatever certificate this server shows (insecure)"), this);
    insecure_->setObjectName("connectionInsecureCheck");
    insecure_->setToolTip(tr("Still encrypted, but anyone on the path could pose as the server."));
    model_ = new QComboBox(this);
    model_->setObjectName("connectionModelCombo");
    model_->setEditable(true);
    model_->setToolTip(tr("One of the models the endpoint lists at /v1/models (empty: the only one it lists)."));
    test_ = new QPushButton(tr("Test / refresh"), this);
    test_->setObjectName("testConnectionButton");
    result_ = new QLabel(this);
    result_->setObjectName("connectionTestLabel");
    result_->setWordWrap(true);
    result_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* buttons = new QVBoxLayout;
    buttons->addWidget(add_);
    buttons->addWidget(remove_);
    buttons->addStretch(1);
    auto* top = new QHBoxLayout;
    top->addWidget(list_, 1);
    top->addLayout(buttons);
    auto* form = new QFormLayout;
    form->addRow(tr("Name"), name_);
    form->addRow(tr("Base URL"), url_);
    form->addRow(tr("API key"), key_);
    auto* ca_row = new QHBoxLayout;
    ca_row->addWidget(ca_cert_, 1);
    ca_row->addWidget(browse_);
    form->addRow(tr("CA certificate"), ca_row);
    form->addRow(insecure_);
    auto* model_row = new QHBoxLayout;
    model_row->addWidget(model_, 1);
    model_row->addWidget(test_);
    form->addRow(tr("Model"), model_row);
    form->addRow(result_);
    auto* body = new QVBoxLayout(body_);
    body->setContentsMargins(0, 0, 0, 0);
    body->addLayout(top);
    body->addLayout(form);
    body_->setVisible(false);
    auto* header = new QHBoxLayout;
    header->addWidget(summary_, 1);
    header->addWidget(unfold_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addWidget(body_);
    connect(unfold_, &QPushButton::toggled, this, [this](bool on) {
        body_->setVisible(on);
        unfold_->setText(on ? tr("Fold") : tr("Edit…"));
    });

    connect(list_, &QListWidget::currentRowChanged, this, [this](int row) {
        store_entry();
        show_entry(row);
    });
    connect(add_, &QPushButton::clicked, this, [this] { add_connection(); });
    connect(remove_, &QPushButton::clicked, this, &ConnectionsEditor::remove_current);
    connect(test_, &QPushButton::clicked, this, &ConnectionsEditor::test_current);
    connect(browse_, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("CA certificate"), QString(),
                                                       tr("Certificates (*.pem *.crt *.cer);;All files (*)"));
        if (!f.isEmpty()) ca_cert_->setText(f);
    });
    connect(name_, &QLineEdit::textEdited, this, [this](const QString& t) {
        if (QListWidgetItem* it = list_->item(current_)) it->setText(t);
    });
    connect(&watcher_, &QFutureWatcher<ConnectionProbe>::finished, this, &ConnectionsEditor::on_probed);
    show_entry(-1);
}

void ConnectionsEditor::set_connections(const std::vector<services::ConnectionSettings>& list) {
    entries_ = list;
    {
        const QSignalBlocker block(list_);
        list_->clear();
        for (const auto& c : entries_) list_->addItem(QString::fromStdString(c.name));
        list_->setCurrentRow(entries_.empty() ? -1 : 0);
    }
    show_entry(entries_.empty() ? -1 : 0);
}

std::vector<services::ConnectionSettings> ConnectionsEditor::connections() const {
    auto* self = const_cast<ConnectionsEditor*>(this);
    self->store_entry();
    return entries_;
}

QString ConnectionsEditor::problem() const {
    std::set<std::string> names;
    for (const auto& c : connections()) {
        if (c.name.empty()) return tr("Every connection needs a name.");
        if (c.url.empty()) return tr("The connection “%1” needs a base URL.").arg(QString::fromStdString(c.name));
        if (!names.insert(c.name).second)
            return tr("Two connections are named “%1”: the model menu could not tell them apart.")
                .arg(QString::fromStdString(c.name));
    }
    return QString();
}

void ConnectionsEditor::add_connection(const QString& name) {
    store_entry();
    services::ConnectionSettings c;
    c.name = (name.isEmpty() ? tr("Connection %1").arg(entries_.size() + 1) : name).toStdString();
    entries_.push_back(c);
    const int row = static_cast<int>(entries_.size()) - 1;
    {
        const QSignalBlocker block(list_);  // the fields shown were stored above
        list_->addItem(QString::fromStdString(c.name));
        list_->setCurrentRow(row);
    }
    unfold_->setChecked(true);
    show_entry(row);
    name_->setFocus();
}

void ConnectionsEditor::remove_current() {
    if (current_ < 0 || current_ >= static_cast<int>(entries_.size())) return;
    const int row = current_;
    entries_.erase(entries_.begin() + row);
    {
        const QSignalBlocker block(list_);
        delete list_->takeItem(row);
        list_->setCurrentRow(std::min(row, static_cast<int>(entries_.size()) - 1));
    }
    show_entry(list_->currentRow());
}

void ConnectionsEditor::update_summary() {
    QStringList names;
    for (const auto& c : entries_) names << QString::fromStdString(c.name);
    summary_->setText(names.isEmpty() ? tr("No connections yet: add a snapdoc-server, vLLM, llama-server, Ollama or "
                                           "LM Studio, and its model appears in the Models menu.")
                                      : tr("%n connection(s): %1", nullptr, static_cast<int>(names.size()))
                                            .arg(names.join(QStringLiteral(", "))));
}

void ConnectionsEditor::show_entry(int row) {
    update_summary();
    const bool valid = row >= 0 && row < static_cast<int>(entries_.size());
    current_ = valid ? row : -1;
    filling_ = true;
    const services::ConnectionSettings c = valid ? entries_[static_cast<std::size_t>(row)] : services::ConnectionSettings{};
    name_->setText(QString::fromStdString(c.name));
    url_->setText(QString::fromStdString(c.url));
    key_->setText(QString::fromStdString(c.api_key));
    ca_cert_->setText(QString::fromStdString(c.ca_cert));
    insecure_->setChecked(c.insecure);
    model_->clear();
    if (!c.model.empty()) model_->addItem(QString::fromStdString(c.model));
    model_->setEditText(QString::fromStdString(c.model));
    result_->clear();
    filling_ = false;
    for (QWidget* w : std::initializer_list<QWidget*>{name_, url_, key_, ca_cert_, browse_, insecure_, model_, test_,
                                                      remove_})
        w->setEnabled(valid);
    if (!valid) result_->setText(entries_.empty() ? tr("Add a connection to a snapdoc-server, vLLM, llama-server, "
                                                       "Ollama or LM Studio: its model appears in the Models menu.")
                                                  : QString());
}

void ConnectionsEditor::store_entry() {
    if (filling_ || current_ < 0 || current_ >= static_cast<int>(entries_.size())) return;
    services::ConnectionSettings& c = entries_[static_cast<std::size_t>(current_)];
    c.name = name_->text().trimmed().toStdString();
    c.url = url_->text().trimmed().toStdString();
    c.api_key = key_->text().trimmed().toStdString();
    c.ca_cert = ca_cert_->text().trimmed().toStdString();
    c.insecure = insecure_->isChecked();
    c.model = model_->currentText().trimmed().toStdString();
    update_summary();
}

void ConnectionsEditor::test_current() {
    store_entry();
    if (current_ < 0 || testing()) return;
    probing_row_ = current_;
    test_->setEnabled(false);
    const services::ConnectionSettings c = entries_[static_cast<std::size_t>(current_)];
    result_->setText(tr("Asking %1…").arg(QString::fromStdString(c.url)));
    // The network off the GUI thread: discovery may take up to the endpoint's timeouts.
    watcher_.setFuture(QtConcurrent::run([c] { return probe_connection(c); }));
}

void ConnectionsEditor::on_probed() {
    const ConnectionProbe p = watcher_.result();
    const int row = probing_row_;
    probing_row_ = -1;
    test_->setEnabled(current_ >= 0);
    if (row == current_) {
        result_->setText(p.ok ? p.summary : tr("Cannot use this connection: %1").arg(p.summary));
        if (p.ok) {
            const QString chosen = model_->currentText().trimmed();
            model_->clear();
            model_->addItems(p.models);
            // Kept when the server lists it; else the only model it lists, else the first.
            const int i = model_->findText(chosen);
            model_->setCurrentIndex(i >= 0 ? i : 0);
            store_entry();
        }
    }
    emit probed(p.ok, p.ok ? p.summary : tr("Cannot use this connection: %1").arg(p.summary));
}

QString ConnectionsEditor::test_result() const {
    return result_->text();
}

}  // namespace snapdoc::ui
