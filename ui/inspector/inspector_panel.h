// The compression inspector: SnapKV controls, the KV memory readout (full vs compressed), question
// stability (against the previous question re-selected at the current settings), the retention
// grid with zoom, position axis and minimap, the difference with an earlier question's kept sets,
// "Export selection…" (the JSON `snapdoc-cli inspect` writes) and the locked head's detail. It
// shows snapshots it is given and reports control changes; it never talks to the engine itself.
// Everything sits in a vertical scroll area, so a short window scrolls instead of squeezing the
// strips to nothing.
#pragma once

#include <QFutureWatcher>
#include <QWidget>
#include <functional>
#include <memory>
#include <vector>

#include "ui/inspector/head_roles.h"
#include "ui/inspector/heatmap_job.h"
#include "ui/inspector/selection_analysis.h"
#include "ui/worker/worker_types.h"

class QComboBox;
class QLabel;
class QPushButton;
class QScrollArea;
class QTimer;

namespace snapdoc::ui {

class CompressionControls;
class HeadDetailView;
class HeatmapMinimap;
class RetentionGrid;

// The legend under "What each head keeps", from the colours the renderer draws with.
QString heatmap_legend_html(const HeatmapPalette& palette, bool diff);

class InspectorPanel : public QWidget {
    Q_OBJECT
public:
    explicit InspectorPanel(QWidget* parent = nullptr);

    CompressionControls* controls() const { return controls_; }
    RetentionGrid* grid() const { return grid_; }
    HeadDetailView* detail() const { return detail_; }
    HeatmapMinimap* minimap() const { return minimap_; }

    void set_shape(const CacheShape& shape, int context_length);
    // The loaded model's names for its heads (none: the strips keep their layer/head labels only).
    void set_head_roles(const HeadRoles& roles);
    void set_document_tokens(int tokens);
    void set_text_lookup(std::function<QString(int first, int last)> lookup);
    // "page 3 · line 41" of a prompt position, for the axis and tooltips (DocumentPanel::location_of).
    void set_location_lookup(std::function<QString(int position)> lookup);
    // Where "Export selection…" writes ("" cancels); unset, a save dialog asks.
    void set_export_path_chooser(std::function<QString(const QString& suggested)> chooser);
    // A new selection (after an answer or a reselect): re-render and update the readouts.
    void set_snapshot(const SelectionSnapshot& snapshot);
    // Forget everything shown (stability, locked head, images, zoom), and tell the document view
    // (headCountsReady / selectionShown with nothing).
    void reset();
    // A sentence above the (empty) heatmaps saying why they are empty: a remote engine that does not
    // expose its kept positions. "" hides it (a local model).
    void set_engine_note(const QString& note);
    QString engine_note() const;
    // Locks a head as a click on its strip does (opens its detail view).
    void lock_head(int layer, int head);
    // Shows kept by the earlier question `index` (0 = oldest of questions()) only / now only / both;
    // -1 shows the current question alone.
    void set_compare_question(int index);
    // Writes the current selection as `snapdoc-cli inspect` does; "" on success, else the error.
    QString export_selection(const QString& path) const;

    const SelectionSnapshot& snapshot() const { return snapshot_; }
    // Questions seen for this document, oldest first; the last is the current one.
    int question_count() const { return static_cast<int>(questions_.size()); }
    QString question_text(int index) const;
    uint64_t rendered_serial() const { return rendered_; }  // increments on each shown heatmap
    const HeatmapResult& last_result() const { return last_; }
    QString memory_text() const;
    QString stability_text() const;
    QString legend_text() const;

signals:
    void configChanged(const snapdoc::SnapKvConfig& config);
    void headLocked(int layer, int head, int position);
    void positionClicked(int position);
    // Per prompt position, how many strips keep it (for the document view's shading).
    void headCountsReady(std::shared_ptr<const std::vector<uint16_t>> counts, int strips);
    // The selection now shown (for the document view's one-head shading).
    void selectionShown(std::shared_ptr<const snapdoc::Selection> selection);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Question {
        uint64_t serial = 0;
        QString text;
        SelectionSnapshot latest;  // its latest selection (with the scores it came from)
    };
    void render();
    void on_rendered(const HeatmapResult& result);
    void update_readouts();
    void update_compare_combo();
    void update_view_label();
    void choose_export_path();
    struct StabilityResult {
        uint64_t serial = 0;  // the previous question's
        std::shared_ptr<const Selection> current, previous;  // previous: at the current settings
        bool own_settings = false;
        double overlap = -1;
    };
    void update_stability_now();
    void on_stability(const StabilityResult& result);
    HeatmapBaseline baseline_of(const Question& q) const;

    CompressionControls* controls_;
    QLabel* memory_;
    QLabel* stability_;
    QLabel* legend_;
    QComboBox* compare_;
    QLabel* view_label_;
    QPushButton* reset_zoom_;
    QPushButton* export_;
    QLabel* status_;
    QLabel* engine_note_ = nullptr;
    HeatmapMinimap* minimap_;
    RetentionGrid* grid_;
    QScrollArea* grid_scroll_;
    QScrollArea* scroll_;
    HeadDetailView* detail_;
    HeatmapJob job_;
    QFutureWatcher<StabilityResult> stability_watcher_;
    bool stability_again_ = false;
    QTimer* resize_timer_;
    std::function<QString(const QString&)> export_path_;

    SelectionSnapshot snapshot_;
    CacheShape shape_;
    int document_tokens_ = 0;
    uint64_t rendered_ = 0;
    HeatmapResult last_;
    std::vector<Question> questions_;  // oldest first, the current one last
    uint64_t compare_serial_ = 0;      // the earlier question of the difference view, 0: none
    // Earlier questions re-selected at the current settings, by question serial (a zoom or pan
    // re-renders without re-selecting).
    std::vector<std::pair<uint64_t, std::shared_ptr<const Selection>>> resolved_;
    double overlap_ = -1;
    bool overlap_own_settings_ = false;
    bool stability_pending_ = false;
};

}  // namespace snapdoc::ui
