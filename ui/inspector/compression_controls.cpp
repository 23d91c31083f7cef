#include "ui/inspector/compression_controls.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStringList>
#include <algorithm>

#include "engine/kv/kv_cache.h"
#include "engine/session/document_session.h"
#include <cmath>

#include "engine/model/model_summary.h"
#include "ui/widgets/app_theme.h"
#include "ui/widgets/number_format.h"

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
    // What the budget counts (issue 23: it said "window included" while a head kept more than it).
    const QString budget_tip =
        tr("Positions kept per head and layer: the best-scored document positions plus the observation "
           "window (the last Window prompt tokens). In a conversation, the recent earlier turns are kept whole "
           "on top of the budget.");
    budget_slider_->setToolTip(budget_tip);
    budget_spin_ = new QSpinBox(this);
    budget_spin_->setObjectName("budgetSpin");
    budget_spin_->setRange(2, 1 << 20);
    budget_spin_->setToolTip(budget_tip);
    estimate_ = new QLabel(this);
    estimate_->setObjectName("budgetMemoryLabel");
    estimate_->setWordWrap(true);  // a figure or a sentence, in a column that may be 260 px wide
    estimate_->setToolTip(tr("KV cache this budget keeps for the current prompt, against the full cache"));

    window_ = new QSpinBox(this);
    window_->setObjectName("windowSpin");
    // Out-of-range values are taken and then changed with a note (a spin box that refused them
    // left the old value without a word).
    window_->setRange(0, 9999);
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
    adjusted_ = new QLabel(this);
    adjusted_->setObjectName("snapkvAdjustedNote");
    adjusted_->setWordWrap(true);
    follow_palette_color(adjusted_, QColor(0x80, 0x60, 0x00));
    adjusted_->hide();
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
    form->addRow(adjusted_);

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

void CompressionControls::set_prompt_length(int prompt_len, int kept_whole) {
    prompt_len_ = prompt_len;
    kept_whole_ = std::max(0, kept_whole);
    // The slider spans the prompt, not the model's context: a budget at or past the prompt keeps
    // everything, and on a 1.8K-token document a 131K range made one short drag jump 60 → 30,000.
    if (prompt_len > 0) {
        max_budget_ = std::max(prompt_len, 64);
        to_widgets();
        return;
    }
    update_estimate();
}

QString CompressionControls::estimate_text() const {
    return estimate_->text();
}

QString CompressionControls::adjustment_text() const {
    return adjusted_->isHidden() ? QString() : adjusted_->text();
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
    c.window = std::clamp(window_->value(), 1, kMaxWindow);
    // Kernels are odd; a typed even value moves up to the next odd one.
    c.kernel = kernel_->value() | 1;
    QStringList notes;
    if (c.kernel != kernel_->value())
        notes << tr("Kernel %1 is even: pooling kernels are odd (centred), so %2 is used.")
                     .arg(kernel_->value())
                     .arg(c.kernel);
    if (c.window != window_->value())
        notes << tr("Window %1 is out of range: it is 1 to %2 prompt tokens (the engine keeps the last %2 "
                    "queries for re-scoring), so %3 is used.")
                     .arg(window_->value())
                     .arg(kMaxWindow)
                     .arg(c.window);
    adjusted_->setText(notes.join(QLatin1Char(' ')));
    adjusted_->setVisible(!notes.isEmpty());
    c.budget = std::max(budget_spin_->value(), c.window + 1);
    c.pooling = parse_pooling(pooling_->currentData().toString().toStdString());
    c.gqa = parse_gqa_mode(gqa_->currentData().toString().toStdString());
    c.policy = parse_budget_policy(policy_->currentData().toString().toStdString());
    const bool changed_shape = c.window != window_->value() || c.window != config_.window || c.kernel != kernel_->value() ||
                               c.budget != budget_spin_->value() || c.enabled != config_.enabled;
    config_ = c;
    if (changed_shape) to_widgets();
    update_estimate();
    emit configChanged(config_);
}

void CompressionControls::update_estimate() {
    // Says what is missing (it said "load a model and a document" while both were there and the
    // document was being read).
    if (shape_.n_layers == 0) {
        estimate_->setText(tr("KV memory: open a model to see what a budget keeps"));
        return;
    }
    // A refusal wins over an estimate for an earlier prompt (it kept showing one: issue 23, 12).
    if (!unavailable_reason_.isEmpty()) {
        // The reason is a sentence of its own ("The document is longer than …"): after a full
        // stop, not glued to a prefix (it read "KV memory: The document is not loaded: The …").
        estimate_->setText(tr("KV memory: none. %1").arg(unavailable_reason_));
        return;
    }
    if (prompt_len_ <= 0) {
        estimate_->setText(tr("KV memory: once a document is read into the model"));
        return;
    }
    int64_t est = estimate_kv_bytes(shape_, config_, prompt_len_);
    const int64_t full = full_kv_bytes(shape_, prompt_len_);
    // Positions kept whole (recent turns) come on top of the budget in every head: counted too, so
    // the estimate is what the answer's cache holds.
    const bool compressed = config_.enabled && prompt_len_ > config_.budget;
    const int whole = compressed ? kept_whole_ : 0;
    if (whole > 0) {
        const int heads = config_.gqa == GqaMode::QueryHead ? shape_.n_heads : shape_.n_kv_heads;
        est = std::min(full, est + int64_t{whole} * shape_.n_layers * heads * shape_.head_dim * 2 *
                                       kKvCacheValueBytes);
    }
    QString text = tr("≈ %1 KV cache (f16) for a %2-position prompt; uncompressed %3 (%4×)")
                       .arg(QString::fromStdString(format_bytes(est)))
                       .arg(with_commas(prompt_len_))
                       .arg(QString::fromStdString(format_bytes(full)))
                       .arg(static_cast<double>(full) / std::max<int64_t>(1, est), 0, 'f', 1);
    if (whole > 0) text += tr(" · with %1 positions per head of earlier turns kept whole").arg(whole);
    estimate_->setText(text);
}

}  // namespace snapdoc::ui
