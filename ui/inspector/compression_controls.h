// The SnapKV controls: on/off, budget (log-scale slider + exact spin box, with the KV memory it
// would take), window, kernel, pooling, GQA mode and policy. Every change emits configChanged at
// once; the owner turns it into an engine reselect (no forward pass).
#pragma once

#include <QWidget>

#include "engine/kv/snapkv_config.h"
#include "ui/inspector/selection_analysis.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QSpinBox;

namespace snapdoc::ui {

// Log-scale mapping between a slider's [0, kSliderSteps] and a budget in [lo, hi].
inline constexpr int kSliderSteps = 1000;
int budget_from_slider(int value, int lo, int hi);
int slider_from_budget(int budget, int lo, int hi);

class CompressionControls : public QWidget {
    Q_OBJECT
public:
    explicit CompressionControls(QWidget* parent = nullptr);

    SnapKvConfig config() const { return config_; }
    void set_config(const SnapKvConfig& config);  // no configChanged
    // The model's cache shape and the prompt length the memory estimate is for.
    void set_shape(const CacheShape& shape, int max_budget);
    // `kept_whole`: positions per head kept on top of the budget (a conversation's recent turns).
    void set_prompt_length(int prompt_len, int kept_whole = 0);
    QString estimate_text() const;
    QString adjustment_text() const;
    // Why there is no prompt to estimate for (e.g. the document was refused); "" = the default
    // "load a model and a document".
    void set_unavailable_reason(const QString& reason);

signals:
    void configChanged(const snapdoc::SnapKvConfig& config);

private:
    void from_widgets();
    void to_widgets();
    void update_estimate();

    SnapKvConfig config_;
    CacheShape shape_;
    int prompt_len_ = 0;
    int kept_whole_ = 0;
    QString unavailable_reason_;
    int max_budget_ = 4096;
    bool updating_ = false;

    QCheckBox* enabled_;
    QSlider* budget_slider_;
    QSpinBox* budget_spin_;
    QLabel* estimate_;
    QLabel* adjusted_;  // says when a typed value was changed (an even kernel, a window out of range)
    QSpinBox* window_;
    QSpinBox* kernel_;
    QComboBox* pooling_;
    QComboBox* gqa_;
    QComboBox* policy_;
};

}  // namespace snapdoc::ui

Q_DECLARE_METATYPE(snapdoc::SnapKvConfig)
