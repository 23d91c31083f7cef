#include "ui/inspector/compression_controls.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <algorithm>

#include "engine/session/document_session.h"
#include <cmath>

#include "engine/model/model_summary.h"

namespace snapdoc::ui {

// The engine keeps the last kDefaultMaxWindow document queries for re-scoring, so a larger window
// cannot be re-selected without a forward pass.
constexpr int kMaxWindow = kDefaultMaxWindow;

int budget_from_slider(int value, int lo, int hi) {
    if (hi <= lo) return lo;
    const double t = std::clamp(value, 0, kSliderSteps) / static_cast<double>(kSliderSteps);
    const double b = std::exp(std::log(lo) + t * (std::log(hi) - std::log(lo)));
    return std::clamp(static_cast<int>(std::lround(b)), lo, hi);
}

int slider_from_budget(int budget, int lo, int hi) {
    if (hi <= lo) return 0;
    budget = std::clamp(budget, lo, hi);
    const double t = (std::log(budget) - std::log(lo)) / (std::log(hi) - std::log(lo));
    return static_cast<int>(std::lround(t * kSliderSteps));
}

CompressionControls::CompressionControls(QWidget* parent) : QWidget(parent) {
    enabled_ = new QCheckBox(tr("Compress with SnapKV"), this);
    enabled_->setObjectName("snapkvEnabled");
    enabled_->setToolTip(tr("Off: answer from the full KV cache of the document"));

    budget_slider_ = new QSlider(Qt::Horizontal, this);
    budget_slider_->setObjectName("budgetSlider");
    budget_slider_->setRange(0, kSliderSteps);
    budget_slider_->setToolTip(tr("Positions kept per head per layer (observation window included)"));
    budget_spin_ = new QSpinBox(this);
    budget_spin_->setObjectName("budgetSpin");
    budget_spin_->setRange(2, 1 << 20);
    estimate_ = new QLabel(this);
    estimate_->setObjectName("budgetMemoryLabel");
    estimate_->setWordWrap(true);  // a figure or a sentence, in a column that may be 260 px wide
    estimate_->setToolTip(tr("KV cache this budget keeps for the current prompt, against the full cache"));

    window_ = new QSpinBox(this);
    window_->setObjectName("windowSpin");
    window_->setRange(1, kMaxWindow);
    window_->setToolTip(tr("Observation window: the last prompt tokens whose attention scores the document"));
    kernel_ = new QSpinBox(this);
    kernel_->setObjectName("kernelSpin");
    kernel_->setRange(1, 63);
    kernel_->setSingleStep(2);
    kernel_->setToolTip(tr("Pooling kernel (odd): kept positions come in clusters of about this size"));
    pooling_ = new QComboBox(this);
    pooling_->setObjectName("poolingCombo");
    pooling_->addItem(tr("max"), QString("max"));
    pooling_->addItem(tr("average"), QString("avg"));
    gqa_ = new QComboBox(this);
    gqa_->setObjectName("gqaCombo");
    gqa_->addItem(tr("per KV head"), QString("kv-head"));
    gqa_->addItem(tr("per query head"), QString("query-head"));
    gqa_->setToolTip(
        tr("Per KV head: one kept set per shared key/value head (less memory).\n"
           "Per query head: the paper's reference behaviour (group-size times the memory)."));
    policy_ = new QComboBox(this);
    policy_->setObjectName("policyCombo");
    policy_->addItem(tr("uniform"), QString("uniform"));
    policy_->addItem(tr("pyramid (PyramidKV)"), QString("pyramid"));
    policy_->addItem(tr("adaptive (AdaKV)"), QString("adaptive"));

    auto* budget_row = new QHBoxLayout;
    budget_row->addWidget(budget_slider_, 1);
    budget_row->addWidget(budget_spin_);
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    // A narrow inspector puts a label above its field rather than cutting the field off.
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->addRow(enabled_);
    form->addRow(tr("Budget"), budget_row);
    form->addRow(QString(), estimate_);
    form->addRow(tr("Window"), window_);
    form->addRow(tr("Kernel"), kernel_);
    form->addRow(tr("Pooling"), pooling_);
    form->addRow(tr("GQA"), gqa_);
    form->addRow(tr("Policy"), policy_);

    to_widgets();
    connect(enabled_, &QCheckBox::toggled, this, &CompressionControls::from_widgets);
    connect(budget_slider_, &QSlider::valueChanged, this, [this](int v) {
        if (updating_) return;
        const QSignalBlocker block(budget_spin_);
        budget_spin_->setValue(budget_from_slider(v, budget_spin_->minimum(), budget_spin_->maximum()));
        from_widgets();
    });
    connect(budget_spin_, &QSpinBox::valueChanged, this, [this](int v) {
        if (updating_) return;
        const QSignalBlocker block(budget_slider_);
        budget_slider_->setValue(slider_from_budget(v, budget_spin_->minimum(), budget_spin_->maximum()));
        from_widgets();
    });
    for (QSpinBox* s : {window_, kernel_})
        connect(s, &QSpinBox::valueChanged, this, &CompressionControls::from_widgets);
    for (QComboBox* c : {pooling_, gqa_, policy_})
        connect(c, &QComboBox::currentIndexChanged, this, &CompressionControls::from_widgets);
}

void CompressionControls::set_config(const SnapKvConfig& config) {
    config_ = config;
    to_widgets();
}

void CompressionControls::set_shape(const CacheShape& shape, int max_budget) {
    shape_ = shape;
    max_budget_ = std::max(max_budget, 64);
    to_widgets();
}

void CompressionControls::set_prompt_length(int prompt_len) {
    prompt_len_ = prompt_len;
    update_estimate();
}

void CompressionControls::set_unavailable_reason(const QString& reason) {
    unavailable_reason_ = reason;
    update_estimate();
}

void CompressionControls::to_widgets() {
    updating_ = true;
    const QSignalBlocker b1(enabled_), b2(budget_slider_), b3(budget_spin_), b4(window_), b5(kernel_),
        b6(pooling_), b7(gqa_), b8(policy_);
    enabled_->setChecked(config_.enabled);
    window_->setValue(config_.window);
    kernel_->setValue(config_.kernel);
    budget_spin_->setRange(config_.window + 1, std::max(max_budget_, config_.budget));
    budget_spin_->setValue(config_.budget);
    budget_slider_->setValue(
        slider_from_budget(config_.budget, budget_spin_->minimum(), budget_spin_->maximum()));
    pooling_->setCurrentIndex(
        pooling_->findData(QString::fromStdString(std::string(pooling_name(config_.pooling)))));
    gqa_->setCurrentIndex(gqa_->findData(QString::fromStdString(std::string(gqa_mode_name(config_.gqa)))));
    policy_->setCurrentIndex(
        policy_->findData(QString::fromStdString(std::string(budget_policy_name(config_.policy)))));
    for (QWidget* w : std::initializer_list<QWidget*>{budget_slider_, budget_spin_, window_, kernel_,
                                                      pooling_, gqa_, policy_})
        w->setEnabled(config_.enabled);
    updating_ = false;
    update_estimate();
}

void CompressionControls::from_widgets() {
    if (updating_) return;
    SnapKvConfig c = config_;
    c.enabled = enabled_->isChecked();
    c.window = window_->value();
    // Kernels are odd; a typed even value moves up to the next odd one.
    c.kernel = kernel_->value() | 1;
    c.budget = std::max(budget_spin_->value(), c.window + 1);
    c.pooling = parse_pooling(pooling_->currentData().toString().toStdString());
    c.gqa = parse_gqa_mode(gqa_->currentData().toString().toStdString());
    c.policy = parse_budget_policy(policy_->currentData().toString().toStdString());
    const bool changed_shape = c.window != config_.window || c.kernel != kernel_->value() ||
                               c.budget != budget_spin_->value() || c.enabled != config_.enabled;
    config_ = c;
    if (changed_shape) to_widgets();
    update_estimate();
    emit configChanged(config_);
}

void CompressionControls::update_estimate() {
    if (shape_.n_layers == 0 || prompt_len_ <= 0) {
        estimate_->setText(unavailable_reason_.isEmpty() ? tr("KV memory: load a model and a document")
                                                         : tr("KV memory: %1").arg(unavailable_reason_));
        return;
    }
    const int64_t est = estimate_kv_bytes(shape_, config_, prompt_len_);
    const int64_t full = full_kv_bytes(shape_, prompt_len_);
    estimate_->setText(
        tr("≈ %1 KV (full: %2, %3×)")
            .arg(QString::fromStdString(format_bytes(est)), QString::fromStdString(format_bytes(full)))
            .arg(static_cast<double>(full) / std::max<int64_t>(1, est), 0, 'f', 1));
}

}  // namespace snapdoc::ui
