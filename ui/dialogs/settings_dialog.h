// Generation settings: sampling (temperature, top-k, top-p, min-p, repetition penalty, seed), the
// answer length, threads, the chat template and whether prompts may exceed the trained context.
#pragma once

#include <QDialog>

#include "app/services/app_settings.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace snapdoc::ui {

class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    explicit SettingsDialog(const services::GenerationSettings& settings, QWidget* parent = nullptr);
    // The edited settings; valid when the dialog was accepted.
    services::GenerationSettings settings() const;

    void accept() override;

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
    QComboBox* template_;
    QCheckBox* ignore_context_;
    QLabel* error_;
};

}  // namespace snapdoc::ui
