#include "ui/inspector/inspector_panel.h"

#include <QComboBox>
#include <QEvent>
#include <QFileDialog>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QStandardPaths>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "app/common/selection_json.h"
#include "engine/common/atomic_file.h"
#include "engine/model/model_summary.h"
#include "ui/inspector/compression_controls.h"
#include "ui/inspector/head_detail_view.h"
#include "ui/inspector/heatmap_minimap.h"
#include "ui/inspector/retention_grid.h"
#include "ui/widgets/flow_layout.h"

namespace snapdoc::ui {

namespace {
// Questions kept for stability and the difference view. Their window scores are large (layers ×
// query heads × positions floats: 400 MB for a 7B model at 100K tokens), so only the current and the
// previous question keep them; older ones keep their selection and compare at their own settings.
constexpr int kMaxQuestions = 4;
constexpr int kQuestionsWithScores = 2;
// Re-selections up to this many window scores run on the GUI thread (about a millisecond per
// million on a desktop CPU); larger ones in the render job.
constexpr int64_t kSyncReselectScores = int64_t{1} << 21;

QString bytes(int64_t b) {
    return QString::fromStdString(format_bytes(b));
}

// The smallest strip height that keeps strips hoverable and their layer labels drawn; the grid's
// scroll area never gets less than what that needs (the panel scrolls instead).
int min_strip_height(int strips) {
    return strips <= 64 ? 5 : (strips <= 128 ? 2 : 1);
}
int layer_gap_for(int strips) {
    return strips <= 64 ? 3 : 1;
}

// Strips share the visible height (between the minimum above and a maximum that grows as the strips
// get fewer: 14 px for 32 or more, up to 48 px), so a small model's strips fill a large window
// (at a flat 14 px, 8 strips left 40% of the panel empty and a 2-layer model got ~12 px strips) and
// a large model's 256 (32 layers × 8 KV heads) still fit on one screen.
int max_strip_height(int strips) {
    return std::clamp(448 / std::max(1, strips), 14, 48);
}
HeatmapLayout layout_for(const SelectionSnapshot& s, int width, int height) {
    HeatmapLayout l;
    l.width = std::max(16, width);
    const int strips = s.valid() ? strip_count(*s.selection) : 0;
    const int layers = s.valid() ? static_cast<int>(s.selection->layers.size()) : 0;
    l.layer_gap = layer_gap_for(strips);
    const int room = height - RetentionGrid::kAxisHeight - std::max(0, layers - 1) * l.layer_gap;
    l.strip_height = strips > 0 ? std::clamp(room / strips, min_strip_height(strips), max_strip_height(strips)) : 4;
    return l;
}

QString swatch(QRgb color) {
    // A framed square: the outline shows even the near-white "dropped" colour on a white page.
    return QStringLiteral("<span style='background-color:%1; color:#8a8a8a'>□</span>")
        .arg(QColor(color).name());
}
}  // namespace

QString heatmap_legend_html(const HeatmapPalette& p, bool diff) {
    if (diff)
        return InspectorPanel::tr("Difference, document positions: %1 earlier question only %2 this question "
                                  "only %3 both %4 neither %5 window and question (not compared)")
            .arg(swatch(p.a_only), swatch(p.b_only), swatch(p.both), swatch(p.dropped), swatch(p.window));
    return InspectorPanel::tr("One strip per layer × head, document left to right: %1 kept %2 window %3 dropped "
                              "(a column keeping anything is at least light blue)")
        .arg(swatch(p.kept), swatch(p.window), swatch(p.dropped));
}

InspectorPanel::InspectorPanel(QWidget* parent) : QWidget(parent) {
    setObjectName("inspectorPanel");
    controls_ = new CompressionControls;
    memory_ = new QLabel;
    memory_->setObjectName("kvMemoryLabel");
    memory_->setWordWrap(true);
    stability_ = new QLabel;
    stability_->setObjectName("stabilityLabel");
    stability_->setWordWrap(true);
    legend_ = new QLabel(heatmap_legend_html(HeatmapPalette{}, false));
    legend_->setObjectName("heatmapLegend");
    legend_->setTextFormat(Qt::RichText);
    legend_->setToolTip(
        tr("Hover a strip for the text there; click it to lock that head and scroll the document.\n"
           "Wheel: zoom about the mouse · drag or Shift+wheel: pan · +/−, ←/→, Home: the same by keys."));
    legend_->setWordWrap(true);
    compare_ = new QComboBox;
    compare_->setObjectName("heatmapCompareCombo");
    compare_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    compare_->setMinimumContentsLength(12);
    compare_->setToolTip(tr("Show what this question keeps, or how it differs from an earlier question's "
                            "kept positions (at the current settings)"));
    view_label_ = new QLabel;
    view_label_->setObjectName("heatmapViewLabel");
    view_label_->setWordWrap(true);
    reset_zoom_ = new QPushButton(tr("Reset zoom"));
    reset_zoom_->setToolTip(tr("Show the whole prompt again (Home)"));
    reset_zoom_->setObjectName("heatmapResetZoom");
    export_ = new QPushButton(tr("Export selection…"));
    export_->setObjectName("exportSelectionButton");
    export_->setToolTip(tr("Write what every head keeps as JSON, as `snapdoc-cli inspect --json` does"));
    status_ = new QLabel;
    status_->setObjectName("heatmapStatus");
    status_->setWordWrap(true);
    minimap_ = new HeatmapMinimap;
    minimap_->set_left_margin(RetentionGrid::kLabelWidth);
    grid_ = new RetentionGrid;
    grid_scroll_ = new QScrollArea;
    grid_scroll_->setObjectName("retentionGridScroll");
    grid_scroll_->setWidget(grid_);
    grid_scroll_->setWidgetResizable(true);
    grid_scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    grid_scroll_->setFrameShape(QFrame::NoFrame);
    grid_scroll_->setMinimumHeight(120);
    detail_ = new HeadDetailView;

    auto* controls_box = new QGroupBox(tr("Compression"));
    auto* cb = new QVBoxLayout(controls_box);
    cb->addWidget(controls_);
    cb->addWidget(memory_);
    cb->addWidget(stability_);
    auto* grid_box = new QGroupBox(tr("What each head keeps"));
    auto* gb = new QVBoxLayout(grid_box);
    // The buttons wrap under the combo in a narrow inspector (they were cut off at 1024 px).
    auto* tools = new FlowLayout;
    compare_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    tools->addWidget(compare_);
    tools->addWidget(reset_zoom_);
    tools->addWidget(export_);
    gb->addWidget(legend_);
    gb->addLayout(tools);
    gb->addWidget(view_label_);
    gb->addWidget(minimap_);
    gb->addWidget(grid_scroll_, 1);
    gb->addWidget(detail_);
    gb->addWidget(status_);

    auto* content = new QWidget;
    content->setObjectName("inspectorContent");
    auto* inner = new QVBoxLayout(content);
    inner->setContentsMargins(0, 0, 0, 0);
    inner->addWidget(controls_box);
    inner->addWidget(grid_box, 1);
    scroll_ = new QScrollArea(this);
    scroll_->setObjectName("inspectorScroll");
    scroll_->setWidget(content);
    scroll_->setWidgetResizable(true);
    scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);  // whatever cannot reflow still scrolls
    scroll_->setFrameShape(QFrame::NoFrame);
    // Why the inspector is empty for a remote engine (set_engine_note); hidden for a local model.
    engine_note_ = new QLabel(this);
    engine_note_->setObjectName("inspectorEngineNote");
    engine_note_->setWordWrap(true);
    engine_note_->setVisible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(engine_note_);
    layout->addWidget(scroll_);
    setMinimumWidth(260);

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
    // A zoom or pan re-renders at once (a render takes milliseconds; the job keeps only the newest).
    connect(grid_, &RetentionGrid::viewChanged, this, [this](int first, int count) {
        minimap_->set_view(grid_->view().total(), first, count);
        update_view_label();
        render();
    });
    connect(minimap_, &HeatmapMinimap::centerRequested, this, [this](int position) {
        grid_->set_view(position - grid_->view().count() / 2, grid_->view().count());
    });
    connect(reset_zoom_, &QPushButton::clicked, this,
            [this] { grid_->set_view(0, grid_->view().total()); });
    connect(compare_, &QComboBox::currentIndexChanged, this, [this] {
        compare_serial_ = compare_->currentData().isValid() ? compare_->currentData().toULongLong() : 0;
        legend_->setText(heatmap_legend_html(HeatmapPalette{}, compare_serial_ != 0));
        render();
    });
    connect(export_, &QPushButton::clicked, this, &InspectorPanel::choose_export_path);
    connect(&stability_watcher_, &QFutureWatcher<StabilityResult>::finished, this, [this] {
        on_stability(stability_watcher_.result());
        if (stability_again_ && stability_pending_ && questions_.size() >= 2) {
            stability_again_ = false;
            update_stability_now();
        }
    });
    connect(detail_, &HeadDetailView::positionClicked, this, &InspectorPanel::positionClicked);
    update_compare_combo();
    update_readouts();
    update_view_label();
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

void InspectorPanel::set_head_roles(const HeadRoles& roles) {
    grid_->set_head_roles(roles);
    detail_->set_head_roles(roles);
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

void InspectorPanel::set_location_lookup(std::function<QString(int)> lookup) {
    grid_->set_location_lookup(std::move(lookup));
}

void InspectorPanel::set_export_path_chooser(std::function<QString(const QString&)> chooser) {
    export_path_ = std::move(chooser);
}

void InspectorPanel::set_engine_note(const QString& note) {
    engine_note_->setText(note);
    engine_note_->setVisible(!note.isEmpty());
}

QString InspectorPanel::engine_note() const {
    return engine_note_->text();
}

void InspectorPanel::reset() {
    snapshot_ = {};
    questions_.clear();
    resolved_.clear();
    compare_serial_ = 0;
    overlap_ = -1;
    overlap_own_settings_ = false;
    last_ = {};
    grid_->clear();
    minimap_->clear();
    detail_->clear();
    status_->clear();
    update_compare_combo();
    update_readouts();
    update_view_label();
    // Nothing is shown any more: the document's shading by this selection goes too.
    emit headCountsReady(nullptr, 0);
    emit selectionShown(nullptr);
}

void InspectorPanel::lock_head(int layer, int head) {
    grid_->set_locked(layer, head);
    detail_->set_head(snapshot_, layer, head);
}

void InspectorPanel::set_compare_question(int index) {
    const int i = index >= 0 && index + 1 < question_count()
                      ? compare_->findData(QVariant::fromValue<qulonglong>(questions_[index].serial))
                      : 0;
    compare_->setCurrentIndex(std::max(0, i));
}

QString InspectorPanel::question_text(int index) const {
    return index >= 0 && index < question_count() ? questions_[index].text : QString();
}

void InspectorPanel::set_snapshot(const SelectionSnapshot& snapshot) {
    if (!snapshot.valid()) return;
    // Which question this is: the same serial (a reselect) or the same text (Regenerate, or a
    // question asked again) is the same question; anything else is a new one. The question it
    // matches moves to the end, so "the previous question" is always another question.
    auto same = [&](const Question& q) {
        return q.serial == snapshot.question_serial ||
               (!snapshot.question.isEmpty() && q.text == snapshot.question);
    };
    const auto it = std::find_if(questions_.begin(), questions_.end(), same);
    Question q;
    if (it != questions_.end()) {
        q = *it;
        questions_.erase(it);
    }
    if (q.serial != snapshot.question_serial)
        resolved_.erase(std::remove_if(resolved_.begin(), resolved_.end(),
                                       [&](const auto& r) { return r.first == q.serial; }),
                        resolved_.end());
    q.serial = snapshot.question_serial;
    q.text = snapshot.question;
    q.latest = snapshot;
    questions_.push_back(q);
    if (static_cast<int>(questions_.size()) > kMaxQuestions) questions_.erase(questions_.begin());
    for (int i = 0; i + kQuestionsWithScores < static_cast<int>(questions_.size()); ++i)
        questions_[i].latest.scores.reset();
    snapshot_ = snapshot;
    stability_pending_ = questions_.size() >= 2;
    if (stability_pending_) update_stability_now();
    grid_->view().set_total(snapshot.selection->prompt_len);
    const int strips = strip_count(*snapshot.selection);
    const int layers = static_cast<int>(snapshot.selection->layers.size());
    const int least = RetentionGrid::kAxisHeight + strips * min_strip_height(strips) + (layers - 1) * layer_gap_for(strips);
    grid_->set_minimum_content_height(least);
    grid_scroll_->setMinimumHeight(std::min(360, least));
    const Selection& sel = *snapshot.selection;
    const int kept_whole = snapshot.keep_whole_from >= 0 ? std::max(0, sel.n_prefix() - snapshot.keep_whole_from) : 0;
    controls_->set_prompt_length(sel.prompt_len, kept_whole);
    if (detail_->layer() >= 0) detail_->set_head(snapshot_, detail_->layer(), detail_->head());
    update_compare_combo();
    update_readouts();
    update_view_label();
    render();
}

void InspectorPanel::update_stability_now() {
    // A small re-selection (a few million scores: milliseconds) runs here, so the readout is there
    // with the answer; a large one (100K positions × many heads) waits for the render job.
    const Question& prev = questions_[questions_.size() - 2];
    const auto& ws = prev.latest.scores;
    const int64_t cost = ws ? static_cast<int64_t>(ws->n_layers) * ws->n_heads * ws->n_prefix() : 0;
    const HeatmapBaseline base = baseline_of(prev);
    const auto current = snapshot_.selection;
    const int doc = snapshot_.document_tokens;
    auto compute = [base, current, doc] {
        StabilityResult r;
        r.serial = base.serial;
        r.current = current;
        bool own = false;
        r.previous = baseline_at(base, current->config, &own);
        r.own_settings = own;
        r.overlap = r.previous ? kept_overlap(*r.previous, *current, doc) : -1;
        return r;
    };
    if (cost <= kSyncReselectScores) {
        on_stability(compute());
        return;
    }
    // Off the GUI thread and apart from the heatmap (a 7B model's 100K-position re-selection takes
    // a good part of a second; the image must not wait for it). One at a time; the newest waits.
    if (stability_watcher_.isRunning()) {
        stability_again_ = true;
        return;
    }
    stability_watcher_.setFuture(QtConcurrent::run(compute));
}

void InspectorPanel::on_stability(const StabilityResult& r) {
    if (r.previous && !r.own_settings) {  // made at the current settings: keep it for the renders
        resolved_.erase(std::remove_if(resolved_.begin(), resolved_.end(),
                                       [&](const auto& e) { return e.first == r.serial; }),
                        resolved_.end());
        resolved_.emplace_back(r.serial, r.previous);
    }
    if (r.current != snapshot_.selection) return;  // a newer selection is shown meanwhile
    overlap_ = r.overlap;
    overlap_own_settings_ = r.own_settings;
    stability_pending_ = false;
    update_readouts();
}

HeatmapBaseline InspectorPanel::baseline_of(const Question& q) const {
    HeatmapBaseline b;
    b.serial = q.serial;
    b.own = q.latest.selection;
    b.scores = q.latest.scores;
    for (const auto& [serial, sel] : resolved_)
        if (serial == q.serial) b.at_current = sel;
    return b;
}

void InspectorPanel::render() {
    if (!snapshot_.valid()) return;
    HeatmapRequest req;
    req.snapshot = snapshot_;
    req.layout = layout_for(snapshot_, grid_->plot_width(), grid_scroll_->viewport()->height());
    req.layout.view_first = grid_->view().first();
    req.layout.view_count = grid_->view().count();
    req.minimap_width = std::max(16, minimap_->width() - minimap_->left_margin());
    req.minimap_height = 8;
    for (std::size_t i = 0; i + 1 < questions_.size(); ++i)
        if (compare_serial_ != 0 && questions_[i].serial == compare_serial_) req.compare = baseline_of(questions_[i]);
    job_.request(req);
}

void InspectorPanel::on_rendered(const HeatmapResult& result) {
    for (const auto& r : result.resolved) {
        resolved_.erase(std::remove_if(resolved_.begin(), resolved_.end(),
                                       [&](const auto& e) { return e.first == r.first; }),
                        resolved_.end());
        resolved_.push_back(r);
    }
    last_ = result;
    grid_->set_image(result.image, result.geometry);
    minimap_->set_image(result.minimap);
    minimap_->set_view(result.geometry.prompt_len, grid_->view().first(), grid_->view().count());
    ++rendered_;
    emit headCountsReady(result.head_counts, result.strips);
    emit selectionShown(result.selection);
}

void InspectorPanel::update_compare_combo() {
    const QSignalBlocker block(compare_);
    compare_->clear();
    compare_->addItem(tr("This question's kept positions"));
    for (int i = static_cast<int>(questions_.size()) - 2; i >= 0; --i) {
        QString text = questions_[i].text.simplified();
        if (text.size() > 48) text = text.left(48) + QStringLiteral("…");
        if (text.isEmpty()) text = tr("question %1").arg(i + 1);
        compare_->addItem(tr("Difference with “%1”").arg(text), QVariant::fromValue<qulonglong>(questions_[i].serial));
    }
    // The chosen question may have become the current one (asked again) or gone: back to none.
    const int at = compare_serial_ != 0 ? compare_->findData(QVariant::fromValue<qulonglong>(compare_serial_)) : -1;
    if (at < 0) compare_serial_ = 0;
    compare_->setCurrentIndex(std::max(0, at));
    compare_->setEnabled(compare_->count() > 1);
    legend_->setText(heatmap_legend_html(HeatmapPalette{}, compare_serial_ != 0));
}

void InspectorPanel::update_view_label() {
    const HeatmapView& v = grid_->view();
    reset_zoom_->setEnabled(v.zoomed());
    if (v.total() <= 0) {
        view_label_->clear();
        return;
    }
    view_label_->setText(v.zoomed() ? tr("Positions %1–%2 of %3 (×%4) · wheel to zoom, drag to pan")
                                          .arg(v.first())
                                          .arg(v.end() - 1)
                                          .arg(v.total())
                                          .arg(static_cast<double>(v.total()) / std::max(1, v.count()), 0, 'f', 1)
                                    : tr("All %1 positions · wheel to zoom").arg(v.total()));
}

QString InspectorPanel::export_selection(const QString& path) const {
    if (!snapshot_.valid()) return tr("Ask a question first: there is no selection to export.");
    try {
        const nlohmann::json j =
            selection_json(*snapshot_.selection, snapshot_.kv_bytes_full, snapshot_.kv_bytes_compressed);
        AtomicFileWriter f(path.toStdString());
        f.write(j.dump() + "\n");
        f.commit();
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

void InspectorPanel::choose_export_path() {
    if (!snapshot_.valid()) {
        status_->setText(tr("Ask a question first: there is no selection to export."));
        return;
    }
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    const QString suggested = dir + QStringLiteral("/selection.json");
    const QString path = export_path_ ? export_path_(suggested)
                                      : QFileDialog::getSaveFileName(this, tr("Export selection"), suggested,
                                                                     tr("JSON (*.json)"));
    if (path.isEmpty()) return;
    const QString error = export_selection(path);
    status_->setText(error.isEmpty() ? tr("Selection written to %1").arg(path)
                                     : tr("Export failed: %1").arg(error));
}

QString InspectorPanel::memory_text() const {
    return memory_->text();
}
QString InspectorPanel::stability_text() const {
    return stability_->text();
}
QString InspectorPanel::legend_text() const {
    return legend_->text();
}

void InspectorPanel::update_readouts() {
    export_->setEnabled(snapshot_.valid());  // nothing to write before a question
    if (!snapshot_.valid()) {
        memory_->setText(tr("KV cache: no question asked yet"));
        stability_->setText(QString());
        return;
    }
    const Selection& s = *snapshot_.selection;
    const double kept = kept_fraction(s);
    memory_->setText(
        tr("KV cache (f16): %1 compressed vs %2 uncompressed (%3×) · keeps %4% of %5 entries%6")
            .arg(bytes(snapshot_.kv_bytes_compressed), bytes(snapshot_.kv_bytes_full))
            .arg(static_cast<double>(snapshot_.kv_bytes_full) /
                     std::max<int64_t>(1, snapshot_.kv_bytes_compressed),
                 0, 'f', 1)
            .arg(100.0 * kept, 0, 'f', 1)
            .arg(static_cast<qlonglong>(s.prompt_len) * strip_count(s))
            .arg(s.compressed ? QString() : tr(" · not compressed (prompt within budget or SnapKV off)")));
    if (questions_.size() < 2)
        stability_->setText(tr("Question stability: ask another question to compare what the heads keep."));
    else if (stability_pending_)
        stability_->setText(tr("Question stability: comparing with the previous question…"));
    else if (overlap_ < 0)
        stability_->setText(
            tr("Question stability: not comparable with the previous question (the GQA mode "
               "changed the number of kept sets)."));
    else
        stability_->setText(
            tr("Question stability: %1% of the document positions kept now are kept for the previous question "
               "too, %2.")
                .arg(100.0 * overlap_, 0, 'f', 1)
                .arg(overlap_own_settings_
                         ? tr("at that question's own settings (its window size differs; re-scoring it needs its "
                              "queries)")
                         : tr("at the current settings")));
}

}  // namespace snapdoc::ui
