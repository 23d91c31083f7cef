#include "ui/dialogs/settings_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>

#include "app/documents/ocr_language.h"
#include "engine/kv/kv_store_cache.h"
#include "engine/model/model_summary.h"
#include "engine/runtime/backend_factory.h"
#include "engine/runtime/gpu_self_check.h"
#include "engine/tokenizer/chat_template.h"
#include "ui/dialogs/connections_editor.h"
#include "ui/widgets/screen_fit.h"
#include "ui/widgets/app_theme.h"
#include "ui/widgets/scrolling_body.h"

namespace snapdoc::ui {

SettingsDialog::SettingsDialog(const services::GenerationSettings& s, QWidget* parent) : QDialog(parent) {
    setObjectName("settingsDialog");
    // Not "Generation settings": the dialog also holds how the model loads and the K/V cache.
    setWindowTitle(tr("Settings"));
    temperature_ = new QDoubleSpinBox(this);
    temperature_->setObjectName("temperatureSpin");
    temperature_->setRange(0, 5);
    temperature_->setSingleStep(0.1);
    temperature_->setSpecialValueText(tr("0 (greedy)"));
    temperature_->setValue(s.sampling.temperature);
    top_k_ = new QSpinBox(this);
    top_k_->setRange(0, 100000);
    top_k_->setSpecialValueText(tr("off"));
    top_k_->setValue(s.sampling.top_k);
    top_p_ = new QDoubleSpinBox(this);
    top_p_->setRange(0.01, 1.0);
    top_p_->setSingleStep(0.05);
    top_p_->setValue(s.sampling.top_p);
    min_p_ = new QDoubleSpinBox(this);
    min_p_->setRange(0, 1);
    min_p_->setSingleStep(0.01);
    min_p_->setSpecialValueText(tr("off"));
    min_p_->setValue(s.sampling.min_p);
    repetition_ = new QDoubleSpinBox(this);
    repetition_->setRange(1.0, 3.0);
    repetition_->setSingleStep(0.05);
    repetition_->setSpecialValueText(tr("1 (off)"));
    repetition_->setValue(s.sampling.repetition_penalty);
    seed_ = new QSpinBox(this);
    seed_->setRange(0, std::numeric_limits<int>::max());
    seed_->setValue(static_cast<int>(std::min<uint64_t>(s.sampling.seed, std::numeric_limits<int>::max())));
    max_new_ = new QSpinBox(this);
    max_new_->setObjectName("maxNewTokensSpin");
    max_new_->setRange(1, 32768);
    max_new_->setValue(s.max_new_tokens);
    threads_ = new QSpinBox(this);
    threads_->setRange(0, 1024);
    threads_->setSpecialValueText(tr("all cores (%1)").arg(QThread::idealThreadCount()));
    threads_->setValue(s.threads);
    device_ = new QComboBox(this);
    device_->setObjectName("deviceCombo");
    const bool gpu = cuda_backend_usable();
    device_->addItem(gpu ? tr("automatic (CUDA GPU)") : tr("automatic (CPU: no usable CUDA GPU)"),
                     QString("auto"));
    device_->addItem(tr("CPU"), QString("cpu"));
    device_->addItem(gpu ? tr("CUDA GPU") : tr("CUDA GPU (not available here)"), QString("cuda"));
    device_->setCurrentIndex(std::max(0, device_->findData(QString::fromStdString(s.device))));
    // What the GPU self-check said at the last model load (docs/gpu-self-check.md): why "automatic"
    // chose the CPU, naming the device and the failing step, or that the GPU passed.
    device_note_ = new QLabel(this);
    device_note_->setObjectName("gpuCheckNoteLabel");
    device_note_->setWordWrap(true);
    device_note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    const GpuSelfCheckReport gpu_check = last_gpu_self_check();
    device_note_->setText(QString::fromStdString(gpu_check.message));
    device_note_->setVisible(gpu_check.outcome != GpuSelfCheckReport::Outcome::NotRun);
    template_ = new QComboBox(this);
    template_->addItem(tr("detect from the model"), QString());
    for (std::string_view name : chat_template_names()) {
        const QString n = QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
        template_->addItem(n, n);
    }
    template_->setCurrentIndex(std::max(0, template_->findData(QString::fromStdString(s.chat_template))));
    ignore_context_ = new QCheckBox(tr("Allow prompts longer than the model's trained context"), this);
    ignore_context_->setToolTip(
        tr("The model still runs, but quality usually collapses past its context length."));
    ignore_context_->setChecked(s.ignore_context);
    system_prompt_ = new QPlainTextEdit(QString::fromStdString(s.system_prompt), this);
    system_prompt_->setObjectName("defaultSystemPromptEdit");
    system_prompt_->setPlaceholderText(tr("none"));
    system_prompt_->setMaximumHeight(70);
    system_prompt_->setToolTip(
        tr("Used by conversations without a system prompt of their own. It comes "
           "before the document in the prompt: changing it reads the document again."));
    kv_cache_ = new QCheckBox(tr("Keep prefilled documents in a K/V cache on disk"), this);
    kv_cache_->setObjectName("kvCacheCheck");
    kv_cache_->setToolTip(
        tr("A document opens in seconds the second time, also after a restart. Each "
           "file holds the document's K/V for one model (f16)."));
    kv_cache_->setChecked(s.kv_cache);
    kv_cache_cap_ = new QSpinBox(this);
    kv_cache_cap_->setObjectName("kvCacheCapSpin");
    kv_cache_cap_->setRange(0, 1 << 20);
    kv_cache_cap_->setSingleStep(512);
    kv_cache_cap_->setSuffix(tr(" MiB"));
    kv_cache_cap_->setToolTip(
        tr("Least recently used documents are removed from the cache above this size."));
    kv_cache_cap_->setValue(s.kv_cache_cap_mb);
    kv_cache_usage_ = new QLabel(this);
    kv_cache_usage_->setObjectName("kvCacheUsageLabel");
    kv_cache_clear_ = new QPushButton(tr("Clear K/V cache"), this);
    kv_cache_clear_->setObjectName("clearKvCacheButton");
    kv_cache_clear_->setEnabled(false);
    connect(kv_cache_clear_, &QPushButton::clicked, this, [this] {
        if (kv_cache_dir_.isEmpty()) return;
        KvStoreCache(kv_cache_dir_.toStdString()).clear();
        show_kv_cache_usage();
    });
    hub_endpoint_ = new QLineEdit(this);
    hub_endpoint_->setObjectName("hubEndpointEdit");
    hub_endpoint_->setPlaceholderText(tr("https://huggingface.co (or $HF_ENDPOINT)"));
    hub_endpoint_->setToolTip(tr("Where Get models downloads from: the Hugging Face hub, or a mirror."));
    hub_token_ = new QLineEdit(this);
    hub_token_->setObjectName("hubTokenEdit");
    hub_token_->setEchoMode(QLineEdit::Password);
    hub_token_->setPlaceholderText(tr("hf_… (or $HF_TOKEN); needed for gated models"));
    hub_token_->setToolTip(tr("A Hugging Face access token (huggingface.co/settings/tokens). Gated models "
                              "also need their licence accepted on the model page."));
    server_enabled_ = new QCheckBox(tr("Serve the loaded model to other programs (OpenAI API)"), this);
    server_enabled_->setObjectName("localServerCheck");
    server_enabled_->setToolTip(tr("Runs snapdoc-server on 127.0.0.1 for the open model, so Open WebUI, "
                                   "editor plugins or the openai client can use it."));
    server_port_ = new QSpinBox(this);
    server_port_->setObjectName("localServerPortSpin");
    server_port_->setRange(0, 65535);
    server_port_->setSpecialValueText(tr("any free port"));
    server_key_ = new QLineEdit(this);
    server_key_->setObjectName("localServerKeyEdit");
    server_key_->setEchoMode(QLineEdit::Password);
    server_key_->setPlaceholderText(tr("none: any local program may connect"));
    server_key_->setToolTip(tr("Clients send it as \"Authorization: Bearer KEY\"; others get 401."));
    server_status_ = new QLabel(this);
    server_status_->setObjectName("localServerAddressLabel");
    server_status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    server_status_->setWordWrap(true);
    error_ = new QLabel(this);
    follow_palette_color(error_, QColor(0xb0, 0x20, 0x20));  // readable on a dark theme too
    // The language scanned PDF pages are recognised in: automatic (the system locale's when
    // installed, else English) or one of the installed Tesseract languages (set_documents).
    ocr_language_ = new QComboBox(this);
    ocr_language_->setObjectName("ocrLanguageCombo");
    ocr_language_->setToolTip(tr("Scanned PDF pages are read by OCR (Tesseract) in this language. More "
                                 "languages: install their tesseract-ocr-LANG package."));
    const QString automatic = QString::fromStdString(documents::default_ocr_language());
    ocr_language_->addItem(tr("Automatic: %1").arg(ocr_language_name(automatic)), QString());
    for (const std::string& code : documents::installed_ocr_languages()) {
        const QString c = QString::fromStdString(code);
        ocr_language_->addItem(ocr_language_name(c), c);
    }
    theme_ = new QComboBox(this);
    theme_->setObjectName("themeCombo");
    theme_->addItem(tr("System"), QStringLiteral("system"));
    theme_->addItem(tr("Light"), QStringLiteral("light"));
    theme_->addItem(tr("Dark"), QStringLiteral("dark"));
    error_->setWordWrap(true);

    // Titled sections: what an answer is generated with, how the next model load runs, the on-disk
    // K/V cache (issue 23 item 23: they were all under "Generation settings"), the hub, and the
    // local OpenAI-compatible server (issue 21 item 4).
    auto section = [this](const QString& title, const char* name) {
        auto* box = new QGroupBox(title, this);
        box->setObjectName(name);
        return std::make_pair(box, new QFormLayout(box));
    };
    auto [answers_box, answers] = section(tr("Answers"), "answerSettingsGroup");
    answers->addRow(tr("Temperature"), temperature_);
    answers->addRow(tr("Top-k"), top_k_);
    answers->addRow(tr("Top-p"), top_p_);
    answers->addRow(tr("Min-p"), min_p_);
    answers->addRow(tr("Repetition penalty"), repetition_);
    answers->addRow(tr("Seed"), seed_);
    answers->addRow(tr("Answer length (tokens)"), max_new_);
    answers->addRow(tr("Default system prompt"), system_prompt_);
    auto [load_box, load] =
        section(tr("Model loading (applies at the next model load)"), "modelLoadSettingsGroup");
    load->addRow(tr("Threads"), threads_);
    load->addRow(tr("Device"), device_);
    load->addRow(QString(), device_note_);
    load->addRow(tr("Chat template"), template_);
    load->addRow(ignore_context_);
    auto [cache_box, cache] = section(tr("K/V cache on disk"), "kvCacheSettingsGroup");
    cache->addRow(kv_cache_);
    auto* cache_row = new QHBoxLayout;
    cache_row->addWidget(kv_cache_cap_);
    cache_row->addWidget(kv_cache_usage_, 1);
    cache_row->addWidget(kv_cache_clear_);
    cache->addRow(tr("Size cap"), cache_row);
    auto [hub_box, hub] = section(tr("Getting models (Hugging Face)"), "hubSettingsGroup");
    hub->addRow(tr("Endpoint"), hub_endpoint_);
    hub->addRow(tr("Token"), hub_token_);
    auto [server_box, server] = section(tr("Local server (OpenAI API)"), "localServerSettingsGroup");
    server->addRow(server_enabled_);
    server->addRow(tr("Port"), server_port_);
    server->addRow(tr("API key"), server_key_);
    server->addRow(tr("Address"), server_status_);
    auto [documents_box, documents] = section(tr("Documents"), "documentSettingsGroup");
    documents->addRow(tr("OCR language"), ocr_language_);
    connections_ = new ConnectionsEditor(this);
    auto [appearance_box, appearance] = section(tr("Appearance"), "appearanceSettingsGroup");
    appearance->addRow(tr("Theme"), theme_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &SettingsDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &SettingsDialog::reject);
    // The sections are ~875 px tall: they scroll, and the error and OK/Cancel stay below them in
    // view, so the dialog fits a 1024×700 screen (issue 37).
    auto* sections = new QWidget;
    auto* sections_layout = new QVBoxLayout(sections);
    sections_layout->setContentsMargins(0, 0, 0, 0);
    sections_layout->addWidget(answers_box);
    sections_layout->addWidget(load_box);
    sections_layout->addWidget(cache_box);
    sections_layout->addWidget(hub_box);
    sections_layout->addWidget(server_box);
    // Two one-row sections side by side: one section's height less, so Settings still opens
    // without scrolling on a 1080-pixel screen.
    auto* small_sections = new QHBoxLayout;
    small_sections->addWidget(documents_box, 1);
    small_sections->addWidget(appearance_box, 1);
    sections_layout->addLayout(small_sections);
    sections_layout->addWidget(connections_);
    sections_layout->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new ScrollingBody(sections, this), 1);
    layout->addWidget(error_);
    layout->addWidget(buttons);
    open_on_screen(*this, sizeHint());  // all sections in view where the screen is tall enough
}

services::GenerationSettings SettingsDialog::settings() const {
    services::GenerationSettings s;
    s.sampling.temperature = static_cast<float>(temperature_->value());
    s.sampling.top_k = top_k_->value();
    s.sampling.top_p = static_cast<float>(top_p_->value());
    s.sampling.min_p = static_cast<float>(min_p_->value());
    s.sampling.repetition_penalty = static_cast<float>(repetition_->value());
    s.sampling.seed = static_cast<uint64_t>(seed_->value());
    s.max_new_tokens = max_new_->value();
    s.threads = threads_->value();
    s.device = device_->currentData().toString().toStdString();
    s.chat_template = template_->currentData().toString().toStdString();
    s.ignore_context = ignore_context_->isChecked();
    s.kv_cache = kv_cache_->isChecked();
    s.kv_cache_cap_mb = kv_cache_cap_->value();
    s.system_prompt = system_prompt_->toPlainText().trimmed().toStdString();
    return s;
}

QString ocr_language_name(const QString& code) {
    // Tesseract's codes are ISO 639-2 ("deu"), some with a script ("chi_sim"); a code Qt does not
    // know is shown as it is.
    const QLocale::Language language = QLocale::codeToLanguage(code.section(u'_', 0, 0), QLocale::ISO639Part2);
    if (language == QLocale::AnyLanguage || code.contains(u'+')) return code;
    return QStringLiteral("%1 (%2)").arg(QLocale::languageToString(language), code);
}

void SettingsDialog::set_documents(const services::DocumentSettings& documents) {
    const QString code = QString::fromStdString(documents.ocr_language);
    int i = ocr_language_->findData(code);
    if (i < 0) {
        // Several joined by '+' (stored by hand or by an earlier version): kept as they are. One
        // chosen once and since uninstalled: kept, and said; reading a scan then names the package.
        ocr_language_->addItem(code.contains(u'+') ? code : tr("%1 (not installed)").arg(code), code);
        i = ocr_language_->count() - 1;
    }
    ocr_language_->setCurrentIndex(i);
}

services::DocumentSettings SettingsDialog::documents() const {
    return {ocr_language_->currentData().toString().toStdString()};
}

void SettingsDialog::set_appearance(const services::AppearanceSettings& appearance) {
    const int i = theme_->findData(QString::fromStdString(appearance.theme));
    theme_->setCurrentIndex(i >= 0 ? i : 0);
}

services::AppearanceSettings SettingsDialog::appearance() const {
    return {theme_->currentData().toString().toStdString()};
}

void SettingsDialog::set_kv_cache_dir(const QString& dir) {
    kv_cache_dir_ = dir;
    kv_cache_clear_->setEnabled(!dir.isEmpty());
    kv_cache_usage_->setToolTip(dir);
    show_kv_cache_usage();
}

void SettingsDialog::set_hub(const services::HubSettings& hub) {
    hub_endpoint_->setText(QString::fromStdString(hub.endpoint));
    hub_token_->setText(QString::fromStdString(hub.token));
}

services::HubSettings SettingsDialog::hub() const {
    return {hub_endpoint_->text().trimmed().toStdString(), hub_token_->text().trimmed().toStdString()};
}

void SettingsDialog::set_local_server(const services::LocalServerSettings& server, const QString& status) {
    server_enabled_->setChecked(server.enabled);
    server_port_->setValue(server.port);
    server_key_->setText(QString::fromStdString(server.api_key));
    server_status_->setText(status.isEmpty() ? tr("off") : status);
}

services::LocalServerSettings SettingsDialog::local_server() const {
    return {server_enabled_->isChecked(), server_port_->value(), server_key_->text().trimmed().toStdString()};
}

void SettingsDialog::show_kv_cache_usage() {
    if (kv_cache_dir_.isEmpty()) {
        kv_cache_usage_->clear();
        return;
    }
    const KvStoreCache::Usage u = KvStoreCache(kv_cache_dir_.toStdString()).usage();
    kv_cache_usage_->setText(
        tr("%n document(s), %1 in use", nullptr, u.files).arg(QString::fromStdString(format_bytes(u.bytes))));
}

void SettingsDialog::set_connections(const std::vector<services::ConnectionSettings>& connections) {
    connections_->set_connections(connections);
}

std::vector<services::ConnectionSettings> SettingsDialog::connections() const {
    return connections_->connections();
}

void SettingsDialog::accept() {
    try {
        settings().sampling.validate();
    } catch (const std::exception& e) {
        error_->setText(QString::fromStdString(e.what()));
        return;
    }
    if (const QString problem = connections_->problem(); !problem.isEmpty()) {
        error_->setText(problem);
        return;
    }
    QDialog::accept();
}

}  // namespace snapdoc::ui
