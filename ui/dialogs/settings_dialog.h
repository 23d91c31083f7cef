// Generation settings: sampling (temperature, top-k, top-p, min-p, repetition penalty, seed), the
// answer length, threads, the chat template and whether prompts may exceed the trained context;
// the on-disk K/V cache (on/off, size cap, clear); the Hugging Face endpoint and token (Get models);
// the local OpenAI-compatible server (on/off, port, API key, its address); the OCR language of
// scanned PDFs; the theme.
#pragma once

#include <QDialog>

#include "app/services/app_settings.h"

class QCheckBox;
class QComboBox;
class QPlainTextEdit;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace snapdoc::ui {

// "German (deu)" for Tesseract's code "deu"; a code Qt does not know ("chi_sim", "deu+eng") as it is.
QString ocr_language_name(const QString& code);
class ConnectionsEditor;

class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    explicit SettingsDialog(const services::GenerationSettings& settings, QWidget* parent = nullptr);
    // The edited settings; valid when the dialog was accepted.
    services::GenerationSettings settings() const;

    void accept() override;
    // The K/V cache folder the app uses: shows its size and enables "Clear K/V cache" (without it
    // the button stays disabled).
    void set_kv_cache_dir(const QString& dir);
    // The hub settings (endpoint, token), shown and edited beside the others.
    void set_hub(const services::HubSettings& hub);
    services::HubSettings hub() const;
    // The local OpenAI-compatible server (on/off, port, API key) and its state now (address or
    // why it stopped; "" when off).
    void set_local_server(const services::LocalServerSettings& server, const QString& status);
    services::LocalServerSettings local_server() const;
    // How documents are read: the OCR language of scanned PDF pages ("" = automatic).
    void set_documents(const services::DocumentSettings& documents);
    services::DocumentSettings documents() const;
    // The theme: System, Light or Dark (applied by the main window when the dialog is accepted).
    void set_appearance(const services::AppearanceSettings& appearance);
    services::AppearanceSettings appearance() const;
    // Settings > Connections: the remote engines the Models menu offers.
    void set_connections(const std::vector<services::ConnectionSettings>& connections);
    std::vector<services::ConnectionSettings> connections() const;
    ConnectionsEditor* connections_editor() const { return connections_; }

private:
    QDoubleSpinBox* temperature_;
    QSpinBox* top_k_;
    QDoubleSpinBox* top_p_;
    QDoubleSpinBox* min_p_;
    QDoubleSpinBox* repetition_;
    QSpinBox* seed_;
    QSpinBox* max_new_;
    QSpinBox* threads_;
    QComboBox* device_;
    QLabel* device_note_;  // the GPU self-check's last sentence, under the device
    QComboBox* template_;
    QComboBox* ocr_language_;
    QComboBox* theme_;
    QPlainTextEdit* system_prompt_;
    QCheckBox* ignore_context_;
    QLabel* error_;
    QCheckBox* kv_cache_;
    QSpinBox* kv_cache_cap_;
    QLabel* kv_cache_usage_;
    QPushButton* kv_cache_clear_;
    QString kv_cache_dir_;
    QLineEdit* hub_endpoint_;
    QLineEdit* hub_token_;
    QCheckBox* server_enabled_;
    QSpinBox* server_port_;
    QLineEdit* server_key_;
    QLabel* server_status_;
    ConnectionsEditor* connections_;
    void show_kv_cache_usage();
};

}  // namespace snapdoc::ui
