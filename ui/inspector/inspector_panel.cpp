#include "ui/inspector/inspector_panel.h"

#include <QEvent>
#include <QGroupBox>
#include <QLabel>
#include <QScrollArea>
#include <QTimer>
#include <QVBoxLayout>

#include "engine/model/model_summary.h"
#include "ui/inspector/compression_controls.h"
#include "ui/inspector/head_detail_view.h"
#include "ui/inspector/retention_grid.h"

namespace snapdoc::ui {

namespace {
QString bytes(int64_t b) {
    return QString::fromStdString(format_bytes(b));
}

// Strips share the visible height (between 1 and 14 px each), so a small model's 20 strips are
// easy to hover and a large model's 256 (32 layers × 8 KV heads) still fit on one screen.
HeatmapLayout layout_for(const SelectionSnapshot& s, int width, int height) {
    HeatmapLayout l;
    l.width = std::max(16, width);
    const int strips = s.valid() ? strip_count(*s.selection) : 0;
    const int layers = s.valid() ? static_cast<int>(s.selection->layers.size()) : 0;
    l.layer_gap = strips <= 64 ? 3 : 1;
    const int room = height - std::max(0, layers - 1) * l.layer_gap;
    l.strip_height = strips > 0 ? std::clamp(room / strips, 1, 14) : 4;
    return l;
}
}  // namespace

InspectorPanel::InspectorPanel(QWidget* parent) : QWidget(parent) {
    setObjectName("inspectorPanel");
    controls_ = new CompressionControls(this);
    memory_ = new QLabel(this);
    memory_->setObjectName("kvMemoryLabel");
    memory_->setWordWrap(true);
    stability_ = new QLabel(this);
    stability_->setObjectName("stabilityLabel");
    stability_->setWordWrap(true);
    legend_ = new QLabel(tr("One strip per layer × head, document left to right: "
                            "<span style='color:#185cc8'>■</span> kept "
                            "<span style='color:#e67814'>■</span> window "
                            "<span style='color:#bbbbbb'>■</span> dropped"),
                         this);
    legend_->setToolTip(
        tr("Hover a strip for the text there; click it to lock that head and scroll the document."));
    legend_->setWordWrap(true);
    grid_ = new RetentionGrid;
    grid_scroll_ = new QScrollArea(this);
    grid_scroll_->setWidget(grid_);
    grid_scroll_->setWidgetResizable(true);
    grid_scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    grid_scroll_->setFrameShape(QFrame::NoFrame);
    detail_ = new HeadDetailView(this);

    auto* controls_box = new QGroupBox(tr("Compression"), this);
    auto* cb = new QVBoxLayout(controls_box);
    cb->addWidget(controls_);
    cb->addWidget(memory_);
    cb->addWidget(stability_);
    auto* grid_box = new QGroupBox(tr("What each head keeps"), this);
    auto* gb = new QVBoxLayout(grid_box);
    gb->addWidget(legend_);
    gb->addWidget(grid_scroll_, 1);
    gb->addWidget(detail_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(controls_box);
    layout->addWidget(grid_box, 1);

    resize_timer_ = new QTimer(this);
    resize_timer_->setSingleShot(true);
    resize_timer_->setInterval(80);
    connect(resize_timer_, &QTimer::timeout, this, &InspectorPanel::render);
    connect(grid_, &RetentionGrid::plotWidthChanged, resize_timer_, qOverload<>(&QTimer::start));
    grid_scroll_->viewport()->installEventFilter(this);
    connect(&job_, &HeatmapJob::finished, this, &InspectorPanel::on_rendered);
    connect(controls_, &CompressionControls::configChanged, this, &InspectorPanel::configChanged);
    connect(grid_, &RetentionGrid::headClicked, this, [this](int layer, int head, int position) {
        detail_->set_head(snapshot_, layer, head);
        emit headLocked(layer, head, position);
    });
    connect(detail_, &HeadDetailView::positionClicked, this, &InspectorPanel::positionClicked);
    update_readouts();
}

bool InspectorPanel::eventFilter(QObject* watched, QEvent* event) {
    // The strips fill the visible height: a taller panel re-renders with taller strips.
    if (watched == grid_scroll_->viewport() && event->type() == QEvent::Resize) resize_timer_->start();
    return QWidget::eventFilter(watched, event);
}

void InspectorPanel::set_shape(const CacheShape& shape, int context_length) {
    shape_ = shape;
    controls_->set_shape(shape, std::max(context_length, document_tokens_ + 256));
}

void InspectorPanel::set_document_tokens(int tokens) {
    document_tokens_ = tokens;
    grid_->set_document_tokens(tokens);
    // Until a question is asked, estimate for the document plus a short question.
    controls_->set_prompt_length(tokens > 0 ? tokens + 16 : 0);
}

void InspectorPanel::set_text_lookup(std::function<QString(int, int)> lookup) {
    grid_->set_text_lookup(std::move(lookup));
}

void InspectorPanel::reset() {
    snapshot_ = {};
    previous_question_.reset();
    current_question_.reset();
    current_serial_ = 0;
    overlap_ = -1;
    grid_->clear();
    detail_->clear();
    update_readouts();
}

void InspectorPanel::lock_head(int layer, int head) {
    grid_->set_locked(layer, head);
    detail_->set_head(snapshot_, layer, head);
}

void InspectorPanel::set_snapshot(const SelectionSnapshot& snapshot) {
    if (!snapshot.valid()) return;
    if (snapshot.question_serial != current_serial_) {
        // A new question: compare what it keeps with the previous question's latest selection.
        previous_question_ = current_question_;
        current_serial_ = snapshot.question_serial;
    }
    current_question_ = snapshot.selection;
    overlap_ = previous_question_
                   ? kept_overlap(*previous_question_, *snapshot.selection, snapshot.document_tokens)
                   : -1;
    snapshot_ = snapshot;
    controls_->set_prompt_length(snapshot.selection->prompt_len);
    if (detail_->layer() >= 0) detail_->set_head(snapshot_, detail_->layer(), detail_->head());
    update_readouts();
    render();
}

void InspectorPanel::render() {
    if (snapshot_.valid())
        job_.request(snapshot_,
                     layout_for(snapshot_, grid_->plot_width(), grid_scroll_->viewport()->height()));
}

void InspectorPanel::on_rendered(const HeatmapResult& result) {
    grid_->set_image(result.image, result.geometry);
    ++rendered_;
    emit headCountsReady(result.head_counts, result.strips);
}

QString InspectorPanel::memory_text() const {
    return memory_->text();
}
QString InspectorPanel::stability_text() const {
    return stability_->text();
}

void InspectorPanel::update_readouts() {
    if (!snapshot_.valid()) {
        memory_->setText(tr("KV cache: no question asked yet"));
        stability_->setText(QString());
        return;
    }
    const Selection& s = *snapshot_.selection;
    const double kept = kept_fraction(s);
    memory_->setText(
        tr("KV cache: %1 compressed vs %2 full (%3×) · keeps %4% of %5 entries%6")
            .arg(bytes(snapshot_.kv_bytes_compressed), bytes(snapshot_.kv_bytes_full))
            .arg(static_cast<double>(snapshot_.kv_bytes_full) /
                     std::max<int64_t>(1, snapshot_.kv_bytes_compressed),
                 0, 'f', 1)
            .arg(100.0 * kept, 0, 'f', 1)
            .arg(static_cast<qlonglong>(s.prompt_len) * strip_count(s))
            .arg(s.compressed ? QString() : tr(" · not compressed (prompt within budget or SnapKV off)")));
    if (!previous_question_)
        stability_->setText(tr("Question stability: ask another question to compare what the heads keep."));
    else if (overlap_ < 0)
        stability_->setText(
            tr("Question stability: not comparable with the previous question (the GQA mode "
               "changed the number of kept sets)."));
    else
        stability_->setText(tr("Question stability: %1% of the document positions kept now were kept for the "
                               "previous question too.")
                                .arg(100.0 * overlap_, 0, 'f', 1));
}

}  // namespace snapdoc::ui
