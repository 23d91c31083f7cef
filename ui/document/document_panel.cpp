#include "ui/document/document_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>

#include "app/common/document_pages.h"
#include "ui/document/document_view.h"
#include "ui/widgets/flow_layout.h"
#include "ui/widgets/number_format.h"

namespace snapdoc::ui {

DocumentPanel::DocumentPanel(QWidget* parent) : QWidget(parent) {
    setObjectName("documentPanel");
    setMinimumWidth(240);  // a readable column at 1024 px wide: the splitter may not squeeze it further
    title_ = new QLabel(tr("No document"), this);
    title_->setObjectName("documentTitle");
    QFont f = title_->font();
    f.setPointSizeF(f.pointSizeF() * 1.25);
    f.setBold(true);
    title_->setFont(f);
    title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    title_->setWordWrap(true);  // a long title wraps rather than widening the column
    facts_ = new QLabel(this);
    facts_->setObjectName("documentFacts");
    facts_->setWordWrap(true);
    facts_->setTextFormat(Qt::RichText);
    page_ = new QLabel(this);
    page_->setObjectName("documentPage");
    progress_ = new QProgressBar(this);
    progress_->setObjectName("documentProgress");
    progress_->setTextVisible(true);
    stop_ = new QPushButton(tr("Stop"), this);
    stop_->setObjectName("documentStopButton");
    shading_ = new QComboBox(this);
    shading_->setObjectName("documentShadingCombo");
    shading_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    shading_->setMinimumContentsLength(16);
    shading_->addItem(tr("Shade: kept by how many heads"), static_cast<int>(DocumentShading::HeadCount));
    shading_->addItem(tr("Shade: used by this answer"), static_cast<int>(DocumentShading::AnswerUse));
    shading_->addItem(tr("Shade: one head"), static_cast<int>(DocumentShading::OneHead));
    shading_->setToolTip(
        tr("Kept by how many heads: darker where more (layer, head) strips keep the text (log scale: one "
           "head is already visible).\nUsed by this answer: how much attention the answer paid to the "
           "text.\nOne head: what the chosen layer and head keep (click a strip in the inspector)."));
    layer_spin_ = new QSpinBox(this);
    layer_spin_->setObjectName("shadingLayerSpin");
    layer_spin_->setPrefix(tr("L"));
    head_spin_ = new QSpinBox(this);
    head_spin_->setObjectName("shadingHeadSpin");
    head_spin_->setPrefix(tr("H"));
    view_ = new DocumentView(this);

    auto* head = new QHBoxLayout;
    head->addWidget(title_, 1);
    head->addWidget(page_);
    auto* prog = new QHBoxLayout;
    prog->addWidget(progress_, 1);
    prog->addWidget(stop_);
    auto* shade_row = new FlowLayout;  // the layer/head spins wrap under the combo in a narrow column
    shading_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    shade_row->addWidget(shading_);
    shade_row->addWidget(layer_spin_);
    shade_row->addWidget(head_spin_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(head);
    layout->addWidget(facts_);
    layout->addLayout(prog);
    layout->addLayout(shade_row);
    layout->addWidget(view_, 1);
    hide_progress();
    update_shading_controls();

    connect(stop_, &QPushButton::clicked, this, &DocumentPanel::stopRequested);
    connect(view_->verticalScrollBar(), &QScrollBar::valueChanged, this, &DocumentPanel::update_page);
    // Every scroll of the viewport (keys, the scroll bar, a citation jump, the wheel) ends in an
    // update request with a vertical delta; the page indicator follows that (issue 23, item 7).
    connect(view_, &QPlainTextEdit::updateRequest, this, [this](const QRect&, int dy) {
        if (dy != 0) update_page();
    });
    connect(shading_, &QComboBox::currentIndexChanged, this, [this] {
        view_->set_shading(static_cast<DocumentShading>(shading_->currentData().toInt()));
        update_shading_controls();
    });
    auto head_changed = [this] { view_->set_shading_head(layer_spin_->value(), head_spin_->value()); };
    connect(layer_spin_, &QSpinBox::valueChanged, this, head_changed);
    connect(head_spin_, &QSpinBox::valueChanged, this, head_changed);
}

void DocumentPanel::show_document(const QString& title, const QString& text,
                                  const std::vector<int>& page_offsets, const QString& format) {
    title_->setText(title);
    page_offsets_ = page_offsets;
    line_starts_.assign(1, 0);
    for (qsizetype i = 0; i < text.size(); ++i)
        if (text[i] == QLatin1Char('\n')) line_starts_.push_back(static_cast<int>(i + 1));
    view_->set_document(text, layout_for(format, text));
    update_shading_controls();
    update_page();
}

void DocumentPanel::clear_document() {
    title_->setText(tr("No document"));
    facts_->clear();
    page_offsets_.clear();
    line_starts_.clear();
    view_->set_document(QString());
    update_shading_controls();
    update_page();
}

void DocumentPanel::set_facts(const QString& html) {
    facts_->setText(html);
}
QString DocumentPanel::facts_text() const {
    return facts_->text();
}
QString DocumentPanel::progress_text() const {
    return progress_->format();
}
bool DocumentPanel::progress_visible() const {
    return !progress_->isHidden();
}

void DocumentPanel::show_progress(const QString& text, int value, int maximum) {
    progress_->setRange(0, maximum);
    progress_->setValue(value);
    progress_->setFormat(text);
    progress_->show();
    stop_->show();
}

void DocumentPanel::hide_progress() {
    progress_->hide();
    stop_->hide();
}

void DocumentPanel::set_selection(std::shared_ptr<const Selection> selection) {
    n_layers_ = selection ? static_cast<int>(selection->layers.size()) : 0;
    n_heads_ = selection ? selection->cache_heads : 0;
    view_->set_selection(std::move(selection));
    update_shading_controls();
}

void DocumentPanel::set_shading_head(int layer, int head) {
    {
        const QSignalBlocker b1(layer_spin_), b2(head_spin_);
        layer_spin_->setValue(layer);
        head_spin_->setValue(head);
    }
    view_->set_shading_head(layer_spin_->value(), head_spin_->value());
}

void DocumentPanel::set_shading(DocumentShading mode) {
    const int i = shading_->findData(static_cast<int>(mode));
    if (i >= 0) shading_->setCurrentIndex(i);
}

DocumentShading DocumentPanel::shading() const {
    return view_->shading();
}

void DocumentPanel::setAnswerWeights(std::shared_ptr<const std::vector<float>> weights) {
    view_->set_answer_weights(weights && !weights->empty() ? std::move(weights) : nullptr);
    update_shading_controls();
}

void DocumentPanel::setAnswerWeights(const std::vector<float>& weights) {
    setAnswerWeights(weights.empty() ? nullptr : std::make_shared<const std::vector<float>>(weights));
}

bool DocumentPanel::scrollToAndHighlight(int charBegin, int charEnd) {
    const bool ok = view_->highlight_range(charBegin, charEnd);
    if (ok) update_page();
    return ok;
}

void DocumentPanel::update_shading_controls() {
    const bool one_head = view_->shading() == DocumentShading::OneHead;
    layer_spin_->setVisible(one_head);
    head_spin_->setVisible(one_head);
    {
        const QSignalBlocker b1(layer_spin_), b2(head_spin_);
        layer_spin_->setRange(0, std::max(0, n_layers_ - 1));
        head_spin_->setRange(0, std::max(0, n_heads_ - 1));
    }
    // The combo says when there is nothing to show yet rather than hiding the choice.
    const QString no_answer = tr(" (no answer weights yet)");
    const QString label = tr("Shade: used by this answer");
    shading_->setItemText(1, view_->has_answer_weights() ? label : label + no_answer);
}

QString DocumentPanel::location_of(int position) const {
    const TokenTextMap* map = view_->token_map();
    if (!map || position < map->first_text || position > map->last_text) return {};
    const int offset = map->begin[position];
    if (offset < 0) return {};
    QString where;
    if (page_offsets_.size() >= 2) {
        where = tr("page %1").arg(page_at(page_offsets_, offset));
    }
    if (!line_starts_.empty()) {
        const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
        const QString line = tr("line %1").arg(it - line_starts_.begin());
        where = where.isEmpty() ? line : where + QStringLiteral(" · ") + line;
    }
    return where;
}

void DocumentPanel::update_page() {
    if (page_offsets_.size() < 2) {
        page_->clear();
        return;
    }
    // The page of the first visible character.
    const int offset = view_->first_visible_offset();
    const int page = page_at(page_offsets_, std::max(0, offset));
    page_->setText(tr("page %1 of %2").arg(with_commas(std::max(1, page)), with_commas(static_cast<qint64>(page_offsets_.size()))));
}

}  // namespace snapdoc::ui
